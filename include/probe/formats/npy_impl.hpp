// .npy files (npy.hpp): definitions: writing, and reading whole files (the header's parser is
// npy_header_impl.hpp).
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fs.hpp"
#include "../util/int_text.hpp"
#include "npy.hpp"
#include "npy_header_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace npy {

// The complete header (magic through the final '\n') for a C-order array: version 1.0 (the
// text of at most 8 dimensions never needs version 2.0's 32-bit length), padded so that the
// data starts at a multiple of 64 bytes. Empty when the dtype or the number of dimensions is
// invalid.
PROBE_API std::string header(dtype t, const int64_t* shape, int ndim) noexcept {
  const char* descr = detail::descr_of(t);
  if (!*descr || ndim < 0 || ndim > max_dims) return std::string();
  // 12-byte prefix room, then the dict text (at most ~300 bytes with 8 dims), then padding.
  char buf[512];
  char* text = buf + 12;
  char* end = probe::detail::put_text(text, "{'descr': ");
  end = probe::detail::put_text(end, descr);
  end = probe::detail::put_text(end, ", 'fortran_order': False, 'shape': (");
  for (int i = 0; i < ndim; ++i) {
    if (i) end = probe::detail::put_text(end, ", ");
    end = probe::detail::put_int(end, static_cast<long long>(shape[i]));
  }
  end = probe::detail::put_text(end, ndim == 1 ? ",), }" : "), }");
  const size_t dict = static_cast<size_t>(end - text);
  const size_t prefix = 10;
  const size_t total = (prefix + dict + 1 + 63) / 64 * 64;
  const size_t text_len = total - prefix;
  char* out = text - prefix;
  memcpy(out, "\x93NUMPY\x01\x00", 8);
  out[8] = static_cast<char>(text_len & 0xff);
  out[9] = static_cast<char>(text_len >> 8);
  memset(text + dict, ' ', text_len - dict - 1);
  text[text_len - 1] = '\n';
  try {
    return std::string(out, total);
  } catch (...) {
    return std::string();
  }
}

PROBE_API std::string header_for(const tensor_view& v) noexcept {
  return v.valid() ? header(v.type, v.shape, v.ndim) : std::string();
}


namespace detail {

// Sets *error (when given) from a format; always returns false.
inline PROBE_PRINTF_LIKE(2, 3) bool fail(std::string* error, const char* fmt, ...) noexcept {
  if (!error) return false;
  char buf[4096 + 512];  // room for a full path and the reason
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  try {
    error->assign(buf);
  } catch (...) {
  }
  return false;
}

// Gathers a strided host view in row-major order through a bounded buffer.
inline int write_strided(int fd, const tensor_view& v) noexcept {
  const size_t item = v.itemsize();
  const int last = v.ndim - 1;
  const bool inner_dense = v.strides[last] == 1;
  const int64_t run = inner_dense ? v.shape[last] : 1;
  const int outer = inner_dense ? last : v.ndim;
  const size_t run_bytes = static_cast<size_t>(run) * item;
  const size_t cap = run_bytes > (size_t{4} << 20) ? run_bytes : (size_t{4} << 20);
  char* buf = static_cast<char*>(malloc(cap));
  if (!buf) return ENOMEM;
  size_t fill = 0;
  int err = 0;
  int64_t idx[max_dims] = {};
  const char* base = static_cast<const char*>(v.data);
  const int64_t n = v.numel();
  for (int64_t done = 0; !err && done < n; done += run) {
    int64_t off = 0;
    for (int d = 0; d < outer; ++d) off += idx[d] * v.strides[d];
    if (fill + run_bytes > cap) {
      err = ::probe::detail::write_all(fd, buf, fill);
      fill = 0;
    }
    memcpy(buf + fill, base + off * static_cast<int64_t>(item), run_bytes);
    fill += run_bytes;
    for (int d = outer - 1; d >= 0; --d) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
  if (!err) err = ::probe::detail::write_all(fd, buf, fill);
  free(buf);
  return err;
}

// Why a view cannot be written ("" if it can).
inline const char* unwritable(const tensor_view& v) noexcept {
  if (v.ndim < 0 && v.problem == view_problem::too_many_dims) return "invalid view: more than 8 dimensions";
  if (v.ndim < 0 && v.problem == view_problem::strides_count) return "invalid view: strides do not match the shape";
  if (v.ndim < 0) return "invalid view: a bad batch_view (its sample view or count)";
  if (v.batch) return "a batch_view: read it into one tensor first (probe::detail::read_tensor)";
  if (v.type == dtype::invalid) return "invalid view (no dtype)";
  if (!v.where.is_host()) return "device memory: copy the tensor to the host first";
  for (int i = 0; i < v.ndim; ++i)
    if (v.shape[i] < 0) return "negative dimension in the view's shape";
  if (v.numel() > 0 && !v.data) return "null data pointer";
  return "";
}

inline void swap_bytes(char* p, size_t count, size_t width) noexcept {
  for (size_t i = 0; i < count; ++i, p += width)
    for (size_t a = 0, b = width - 1; a < b; ++a, --b) {
      const char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

// Reads up to n bytes (fewer only at end of file); false with errno set on an error.
inline bool read_all(int fd, void* data, size_t n, size_t* got) noexcept {
  char* p = static_cast<char*>(data);
  *got = 0;
  while (*got < n) {
    const size_t want = n - *got < (size_t{1} << 30) ? n - *got : (size_t{1} << 30);
    const ssize_t r = ::read(fd, p + *got, want);
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (r == 0) return true;
    *got += static_cast<size_t>(r);
  }
  return true;
}

// Opens path and reads and checks its header, sizes included; *fd_out is open on success
// and may be open on failure (the caller closes it).
inline bool open_and_parse(const char* path, int* fd_out, header_info* info, std::string* error,
                           bool follow = true) noexcept {
  // Non-blocking, so a FIFO named like a data file fails the regular-file check below
  // instead of waiting in open() for a writer; cleared again before reading.
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow ? 0 : O_NOFOLLOW));
  if (fd < 0 && !follow && errno == ELOOP)
    return fail(error, "%s: a symbolic link where a data file belongs; not followed", path);
  if (fd < 0) return fail(error, "%s: cannot open: %s", path, strerror(errno));
  *fd_out = fd;
  struct stat st;
  if (fstat(fd, &st) != 0) return fail(error, "%s: cannot stat: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(error, "%s: not a regular file", path);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const size_t size = static_cast<size_t>(st.st_size);
  unsigned char prefix[12] = {};
  size_t got = 0;
  if (!read_all(fd, prefix, sizeof prefix, &got)) return fail(error, "%s: read error: %s", path, strerror(errno));
  if (got == 0) return fail(error, "%s: empty file, not an .npy file", path);
  size_t text_offset = 0, text_len = 0;
  std::string why;
  if (!parse_prefix(prefix, got, info, &text_offset, &text_len, &why))
    return fail(error, "%s: %s", path, why.c_str());
  if (text_len > size - text_offset)
    return fail(error, "%s: truncated: header length %zu runs past the end of the %zu-byte file", path,
                text_len, size);
  char* text = static_cast<char*>(malloc(text_len ? text_len : 1));  // <= max_header_bytes
  if (!text) return fail(error, "%s: out of memory", path);
  const bool read_ok = lseek(fd, static_cast<off_t>(text_offset), SEEK_SET) >= 0 &&
                       read_all(fd, text, text_len, &got) && got == text_len;
  const bool parsed = read_ok && parse_header_text(text, text_len, info, &why);
  free(text);
  if (!read_ok) return fail(error, "%s: read error in the header", path);
  if (!parsed) return fail(error, "%s: %s", path, why.c_str());
  info->data_offset = text_offset + text_len;
  if (info->data_bytes > size - info->data_offset)
    return fail(error, "%s: truncated: the header promises %zu bytes of %s data, the file holds %zu", path,
                info->data_bytes, dtype_name(info->type), size - info->data_offset);
  return true;
}

}  // namespace detail

// Writes a complete .npy (header, then the data in C order) at fd's current position. For
// dump engines that manage their own files. The view must be on the host.
PROBE_API bool write_fd(int fd, const tensor_view& v, std::string* error) noexcept {
  const char* bad = detail::unwritable(v);
  if (*bad) return detail::fail(error, "%s", bad);
  const std::string head = header_for(v);
  if (head.empty()) return detail::fail(error, "cannot build a header for this view");
  int err;
  if (v.ndim == 0 || v.is_contiguous()) {
    err = ::probe::detail::write_all2(fd, head.data(), head.size(), v.data, v.nbytes());
  } else {
    err = ::probe::detail::write_all(fd, head.data(), head.size());
    if (!err) err = detail::write_strided(fd, v);
  }
  return !err || detail::fail(error, "write failed: %s", strerror(err));
}

PROBE_API bool write_at(int dirfd, const char* path, const tensor_view& v, std::string* error) noexcept {
  const char* bad = detail::unwritable(v);
  if (*bad) return detail::fail(error, "%s: %s", path, bad);
  ::probe::detail::atomic_file f;
  if (const int e = f.open_at(dirfd, path))
    return detail::fail(error, "%s: cannot create a file in its directory: %s", path, strerror(e));
  std::string why;
  if (!write_fd(f.fd(), v, &why)) return detail::fail(error, "%s: %s", path, why.c_str());
  if (const int e = f.commit()) return detail::fail(error, "%s: %s", path, strerror(e));
  return true;
}
PROBE_API bool write(const char* path, const tensor_view& v, std::string* error) noexcept {
  return write_at(AT_FDCWD, path, v, error);
}
PROBE_API bool write(const std::string& path, const tensor_view& v, std::string* error) noexcept {
  return write(path.c_str(), v, error);
}

// Reads only the header (type, shape, order, where the data starts).
PROBE_API bool read_header(const char* path, header_info* info, std::string* error) noexcept {
  int fd = -1;
  header_info h;
  const bool ok = detail::open_and_parse(path, &fd, &h, error);
  ::probe::detail::fd_guard guard(fd);
  if (ok && info) *info = h;
  return ok;
}
PROBE_API bool read_header(const std::string& path, header_info* info, std::string* error) noexcept {
  return read_header(path.c_str(), info, error);
}

// Reads a whole .npy into an owning, C-ordered tensor in native byte order. On error the
// tensor is empty() and *error says what is wrong.
namespace detail {
// Follows a link at the last component only when asked (npy::read does, read_nofollow not).
inline tensor read_file(const char* path, std::string* error, bool follow) noexcept {
  int fd = -1;
  header_info h;
  const bool ok = open_and_parse(path, &fd, &h, error, follow);
  ::probe::detail::fd_guard guard(fd);
  if (!ok) return tensor();
  try {
    const dims shape(h.shape, static_cast<size_t>(h.ndim));
    tensor out(h.type, shape);
    if (h.data_bytes == 0) return out;
    // Fortran order needs the column-major bytes somewhere before transposing.
    const bool transpose = h.fortran_order && h.ndim > 1;
    tensor raw = transpose ? tensor(h.type, dims{h.numel()}) : tensor();
    char* dst = static_cast<char*>(transpose ? raw.data() : out.data());
    size_t got = 0;
    if (lseek(fd, static_cast<off_t>(h.data_offset), SEEK_SET) < 0 || !read_all(fd, dst, h.data_bytes, &got)) {
      fail(error, "%s: read error: %s", path, strerror(errno));
      return tensor();
    }
    if (got != h.data_bytes) {
      fail(error, "%s: truncated while reading the data", path);
      return tensor();
    }
    if (h.swap_bytes) {
      const size_t width = dtype_is_complex(h.type) ? dtype_size(h.type) / 2 : dtype_size(h.type);
      swap_bytes(dst, h.data_bytes / width, width);
    }
    if (transpose) {
      int64_t strides[max_dims];
      int64_t s = 1;
      for (int i = 0; i < h.ndim; ++i) {
        strides[i] = s;
        s *= h.shape[i];
      }
      const tensor_view column_major =
          view_raw(raw.data(), h.type, shape, dims(strides, static_cast<size_t>(h.ndim)));
      ::probe::detail::copy_contiguous(column_major, out.data());
    }
    return out;
  } catch (...) {  // allocation of the tensor
    fail(error, "%s: out of memory for %zu bytes of data", path, h.data_bytes);
    return tensor();
  }
}
}  // namespace detail

PROBE_API tensor read(const char* path, std::string* error) noexcept { return detail::read_file(path, error, true); }
PROBE_API tensor read(const std::string& path, std::string* error) noexcept {
  return detail::read_file(path.c_str(), error, true);
}
PROBE_API tensor read_nofollow(const std::string& path, std::string* error) noexcept {
  return detail::read_file(path.c_str(), error, false);
}

}  // namespace npy
PROBE_END_NAMESPACE
