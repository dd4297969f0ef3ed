// Files named by a dump folder, read as what they may be: planted by someone else. Only a
// regular file is read: opening is non-blocking, so a FIFO named in a manifest is refused at
// once instead of waiting for a writer forever, and a device is never read. A file a dump
// names is not followed through a symbolic link (probe writes regular files: a link there
// could lead anywhere); a path the user typed, or found in a folder of .npy files, is. An .npy file
// is read in bounded blocks: its header (probe's defensive parser), any range of its
// elements, and its health statistics, so that memory does not grow with the file.
// Standalone header, plain inline.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <probe/core/stats.hpp>
#include <probe/formats/npy.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

enum class links { refuse, follow };

// Opens path for reading when it is a regular file; -1 with *error otherwise. *size gets
// its size.
inline int open_regular_file(const std::string& path, std::string* error, size_t* size = nullptr,
                             links at_last = links::refuse) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
                                          (at_last == links::follow ? 0 : O_NOFOLLOW));
  if (fd < 0 && errno == ELOOP && at_last == links::refuse) {
    *error = path + ": a symbolic link where the dump has a file; not followed";
    return -1;
  }
  if (fd < 0) {
    *error = path + ": cannot open: " + strerror(errno);
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *error = path + ": cannot stat: " + strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file (" + file_kind(st.st_mode) + ")";
    ::close(fd);
    return -1;
  }
  if (size) *size = static_cast<size_t>(st.st_size);
  return fd;
}

// Reads n bytes at offset `at`; false at end of file (*error: truncated) or on an error.
inline bool pread_exactly(int fd, void* data, size_t n, uint64_t at, const std::string& path, std::string* error) {
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, p + done, n - done, static_cast<off_t>(at + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      *error = path + (r < 0 ? ": read error: " + std::string(strerror(errno)) : ": truncated while reading");
      return false;
    }
    done += static_cast<size_t>(r);
  }
  return true;
}

// A whole regular file of at most max_bytes (a manifest, a snapshot.json).
inline bool read_regular_file(const std::string& path, std::string* out, std::string* error,
                              size_t max_bytes = size_t{1} << 34, links at_last = links::refuse) {
  size_t size = 0;
  const int fd = open_regular_file(path, error, &size, at_last);
  if (fd < 0) return false;
  bool ok = size <= max_bytes;
  if (!ok) *error = path + ": " + std::to_string(size) + " bytes, over the " + std::to_string(max_bytes) + " read";
  if (ok) {
    out->resize(size);
    ok = pread_exactly(fd, &(*out)[0], size, 0, path, error);
  }
  ::close(fd);
  return ok;
}

// The health of two parts as one: counts add, moments combine (Chan et al.).
inline health merge_health(const health& a, const health& b) {
  if (!a.valid) return b;
  if (!b.valid) return a;
  health h = a;
  h.count += b.count;
  h.finite += b.finite;
  h.nan += b.nan;
  h.pos_inf += b.pos_inf;
  h.neg_inf += b.neg_inf;
  h.zero += b.zero;
  h.subnormal += b.subnormal;
  h.negative += b.negative;
  h.positive += b.positive;
  if (b.finite == 0) return h;
  if (a.finite == 0) {
    h.min = b.min, h.max = b.max, h.mean = b.mean, h.std = b.std;
    return h;
  }
  const double na = static_cast<double>(a.finite), nb = static_cast<double>(b.finite), n = na + nb;
  const double delta = b.mean - a.mean;
  const double m2 = a.std * a.std * na + b.std * b.std * nb + delta * delta * na * nb / n;
  h.min = std::fmin(a.min, b.min);
  h.max = std::fmax(a.max, b.max);
  h.mean = a.mean + delta * nb / n;
  h.std = std::sqrt(m2 / n);
  return h;
}

// An open .npy file whose header has been checked against its size.
class npy_file {
 public:
  npy_file() = default;
  ~npy_file() {
    if (fd_ >= 0) ::close(fd_);
  }
  npy_file(const npy_file&) = delete;
  npy_file& operator=(const npy_file&) = delete;

  bool open(const std::string& path, std::string* error, links at_last = links::refuse) {
    path_ = path;
    size_t size = 0;
    fd_ = open_regular_file(path, error, &size, at_last);
    if (fd_ < 0) return false;
    unsigned char prefix[12] = {};
    const size_t got = size < sizeof prefix ? size : sizeof prefix;
    if (got == 0) return fail(error, "empty file, not an .npy file");
    if (!pread_exactly(fd_, prefix, got, 0, path, error)) return false;
    size_t text_offset = 0, text_len = 0;
    std::string why;
    if (!npy::parse_prefix(prefix, got, &h_, &text_offset, &text_len, &why)) return fail(error, why);
    if (text_len > size - text_offset)
      return fail(error, "truncated: header length " + std::to_string(text_len) + " runs past the end of the " +
                             std::to_string(size) + "-byte file");
    std::string text(text_len, '\0');  // <= npy::max_header_bytes, checked by parse_prefix
    if (!pread_exactly(fd_, &text[0], text_len, text_offset, path, error)) return false;
    if (!npy::parse_header_text(text.data(), text.size(), &h_, &why)) return fail(error, why);
    h_.data_offset = text_offset + text_len;
    if (h_.data_bytes > size - h_.data_offset)
      return fail(error, "truncated: the header promises " + std::to_string(h_.data_bytes) + " bytes of " +
                             dtype_name(h_.type) + " data, the file holds " + std::to_string(size - h_.data_offset));
    return true;
  }

  const npy::header_info& header() const { return h_; }
  const std::string& path() const { return path_; }
  int64_t numel() const { return static_cast<int64_t>(h_.data_bytes / dtype_size(h_.type)); }

  // Elements [first, first + count) in file order, in this machine's byte order.
  bool read(int64_t first, size_t count, void* out, std::string* error) const {
    const size_t item = dtype_size(h_.type);
    if (!pread_exactly(fd_, out, count * item, h_.data_offset + static_cast<uint64_t>(first) * item, path_, error))
      return false;
    if (h_.swap_bytes) {  // complex values swap each component
      const size_t width = dtype_is_complex(h_.type) ? item / 2 : item;
      char* p = static_cast<char*>(out);
      for (size_t i = 0, n = count * item / width; i < n; ++i, p += width)
        for (size_t x = 0, y = width - 1; x < y; ++x, --y) {
          const char t = p[x];
          p[x] = p[y];
          p[y] = t;
        }
    }
    return true;
  }

  // Health statistics of every element, read block by block.
  bool health_of_all(health* out, std::string* error) const {
    const int64_t n = numel();
    const size_t item = dtype_size(h_.type);
    const int64_t block = static_cast<int64_t>((size_t{8} << 20) / item);
    std::vector<uint64_t> buf(static_cast<size_t>(std::min(n, block)) * item / 8 + 2);
    health all = compute_health(view_raw(buf.data(), h_.type, {int64_t{0}}));  // valid, no values
    for (int64_t at = 0; at < n; at += block) {
      const int64_t m = std::min(block, n - at);
      if (!read(at, static_cast<size_t>(m), buf.data(), error)) return false;
      all = merge_health(all, compute_health(view_raw(buf.data(), h_.type, {m})));
    }
    all.type = h_.type;
    *out = all;
    return true;
  }

 private:
  bool fail(std::string* error, const std::string& why) {
    *error = path_ + ": " + why;
    return false;
  }

  std::string path_;
  int fd_ = -1;
  npy::header_info h_;
};

}  // namespace analysis
PROBE_END_NAMESPACE
