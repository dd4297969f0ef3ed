// .npy files: write any host tensor view, read any .npy numpy writes for probe's dtypes.
//
//   std::string err;
//   if (!probe::npy::write("x.npy", probe::view(x), &err)) ...   // atomic: temp + rename
//   probe::tensor t = probe::npy::read("x.npy", &err);            // t.empty() on error
//
// Writing: version 1.0 header, data 64-byte aligned, contiguous views written straight from
// the caller's memory with large write(2) calls, strided views gathered through a bounded
// buffer. Reading: versions 1-3, either byte order (converted to native), fortran_order
// (transposed to C order), 0-d and empty arrays; a corrupt, truncated or hostile file gives
// an error naming the file and the problem, and nothing is allocated before the header's
// size has been checked against the file's. Nothing here throws. See docs/npy.md.
// The header: building one for a dtype and shape, and parsing one defensively (a small
// parser for the Python literal dict numpy writes, with limits on size and nesting).
//
// Layout: "\x93NUMPY", major, minor, header length (2 bytes little-endian in version 1, 4 in
// versions 2 and 3), then the dict text padded with spaces and a final '\n' so that the data
// starts at a multiple of 64 bytes. Version 3 only changes the text encoding (UTF-8), which
// the parser treats like version 2.
//
// bfloat16 has no numpy dtype: it is written as the structured dtype
// [('bfloat16', '<u2')], which numpy loads (as uint16 bits in a field named bfloat16) and
// probe reads back as bfloat16 (docs/npy.md).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <string>

#include "../core/tensor.hpp"

PROBE_BEGIN_NAMESPACE
namespace npy {

// What a header says about the data that follows it.
struct header_info {
  int major = 0, minor = 0;
  dtype type = dtype::invalid;
  bool fortran_order = false;
  bool swap_bytes = false;  // the data's byte order is not this machine's
  int ndim = 0;
  int64_t shape[max_dims] = {};
  size_t data_offset = 0;  // bytes before the data: prefix + header text
  size_t data_bytes = 0;   // numel * itemsize (checked for overflow)

  int64_t numel() const noexcept {
    int64_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= shape[i];
    return n;
  }
};

// Headers above this are refused (numpy's own reader refuses above 10000 bytes by default);
// bounds what a hostile file can make the reader allocate.
constexpr size_t max_header_bytes = size_t{1} << 20;

// Parses the dict text of a header into info (type, order, shape, data_bytes). `why` gets
// what is wrong when it returns false.
PROBE_API bool parse_header_text(const char* text, size_t n, header_info* info, std::string* why) noexcept;
// Parses the fixed prefix (magic, version, header length) from the first bytes of a file.
// On success sets major/minor, *text_offset (where the dict text starts) and *text_len.
PROBE_API bool parse_prefix(const unsigned char* p, size_t n, header_info* info, size_t* text_offset,
                         size_t* text_len, std::string* why) noexcept;
// The complete header (magic through the final '\n') for a C-order array: version 1.0 (the
// text of at most 8 dimensions never needs version 2.0's 32-bit length), padded so that the
// data starts at a multiple of 64 bytes. Empty when the dtype or the number of dimensions is
// invalid.
PROBE_API std::string header(dtype t, const int64_t* shape, int ndim) noexcept;
PROBE_API std::string header_for(const tensor_view& v) noexcept;
// Writes a complete .npy (header, then the data in C order) at fd's current position. For
// dump engines that manage their own files. The view must be on the host.
PROBE_API bool write_fd(int fd, const tensor_view& v, std::string* error = nullptr) noexcept;
// Writes path atomically: the file appears under its name complete, or not at all (a hidden
// temporary in the same directory is renamed over it).
PROBE_API bool write(const char* path, const tensor_view& v, std::string* error = nullptr) noexcept;
PROBE_API bool write(const std::string& path, const tensor_view& v, std::string* error = nullptr) noexcept;
// The same, `path` relative to the open directory `dirfd` (AT_FDCWD: the working directory).
PROBE_API bool write_at(int dirfd, const char* path, const tensor_view& v, std::string* error = nullptr) noexcept;
// Reads only the header (type, shape, order, where the data starts).
PROBE_API bool read_header(const char* path, header_info* info, std::string* error = nullptr) noexcept;
PROBE_API bool read_header(const std::string& path, header_info* info, std::string* error = nullptr) noexcept;
// Reads a whole .npy into an owning, C-ordered tensor in native byte order. On error the
// tensor is empty() and *error says what is wrong.
PROBE_API tensor read(const char* path, std::string* error = nullptr) noexcept;
PROBE_API tensor read(const std::string& path, std::string* error = nullptr) noexcept;
// The same, refusing a symbolic link at the path's last component: for the files a dump or a
// snapshot names, which probe wrote as regular files (a link there was put by someone else).
PROBE_API tensor read_nofollow(const std::string& path, std::string* error = nullptr) noexcept;

}  // namespace npy
PROBE_END_NAMESPACE
