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
// Standalone (messages are built with snprintf, not string concatenation, to keep the
// include cheap); usable in every build mode.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <string>

#include "../core/tensor.hpp"
#include "npy_header.hpp"

PROBE_BEGIN_NAMESPACE
namespace npy {
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

// Writes everything, across partial writes and interruptions; false with errno set.
inline bool write_all(int fd, const void* data, size_t n) noexcept {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n < (size_t{1} << 30) ? n : (size_t{1} << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Header and data in one system call when the data is contiguous.
inline bool write_two(int fd, const std::string& head, const void* data, size_t n) noexcept {
  iovec iov[2] = {{const_cast<char*>(head.data()), head.size()}, {const_cast<void*>(data), n}};
  ssize_t w;
  do {
    w = ::writev(fd, iov, n ? 2 : 1);
  } while (w < 0 && errno == EINTR);
  if (w < 0) return false;
  const size_t done = static_cast<size_t>(w);
  if (done < head.size() && !write_all(fd, head.data() + done, head.size() - done)) return false;
  const size_t data_done = done > head.size() ? done - head.size() : 0;
  return write_all(fd, static_cast<const char*>(data) + data_done, n - data_done);
}

// Gathers a strided host view in row-major order through a bounded buffer.
inline bool write_strided(int fd, const tensor_view& v) noexcept {
  const size_t item = v.itemsize();
  const int last = v.ndim - 1;
  const bool inner_dense = v.strides[last] == 1;
  const int64_t run = inner_dense ? v.shape[last] : 1;
  const int outer = inner_dense ? last : v.ndim;
  const size_t run_bytes = static_cast<size_t>(run) * item;
  const size_t cap = run_bytes > (size_t{4} << 20) ? run_bytes : (size_t{4} << 20);
  char* buf = static_cast<char*>(malloc(cap));
  if (!buf) {
    errno = ENOMEM;
    return false;
  }
  size_t fill = 0;
  bool ok = true;
  int64_t idx[max_dims] = {};
  const char* base = static_cast<const char*>(v.data);
  const int64_t n = v.numel();
  for (int64_t done = 0; ok && done < n; done += run) {
    int64_t off = 0;
    for (int d = 0; d < outer; ++d) off += idx[d] * v.strides[d];
    if (fill + run_bytes > cap) {
      ok = write_all(fd, buf, fill);
      fill = 0;
    }
    memcpy(buf + fill, base + off * static_cast<int64_t>(item), run_bytes);
    fill += run_bytes;
    for (int d = outer - 1; d >= 0; --d) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
  ok = ok && write_all(fd, buf, fill);
  const int saved = errno;
  free(buf);
  errno = saved;
  return ok;
}

// Why a view cannot be written ("" if it can).
inline const char* unwritable(const tensor_view& v) noexcept {
  if (v.ndim < 0) return "invalid view (more than 8 dimensions, or strides not matching the shape)";
  if (v.type == dtype::invalid) return "invalid view (no dtype)";
  if (!v.where.is_host()) return "device memory: copy the tensor to the host first";
  for (int i = 0; i < v.ndim; ++i)
    if (v.shape[i] < 0) return "negative dimension in the view's shape";
  if (v.numel() > 0 && !v.data) return "null data pointer";
  return "";
}

inline unsigned next_temp_number() noexcept {
  static unsigned counter = 0;
  return __atomic_add_fetch(&counter, 1u, __ATOMIC_RELAXED);
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

class fd_guard {
 public:
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;

 private:
  int fd_;
};

// Opens path and reads and checks its header, sizes included; *fd_out is open on success
// and may be open on failure (the caller closes it).
inline bool open_and_parse(const char* path, int* fd_out, header_info* info, std::string* error) noexcept {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(error, "%s: cannot open: %s", path, strerror(errno));
  *fd_out = fd;
  struct stat st;
  if (fstat(fd, &st) != 0) return fail(error, "%s: cannot stat: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(error, "%s: not a regular file", path);
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
inline bool write_fd(int fd, const tensor_view& v, std::string* error = nullptr) noexcept {
  const char* bad = detail::unwritable(v);
  if (*bad) return detail::fail(error, "%s", bad);
  const std::string head = header_for(v);
  if (head.empty()) return detail::fail(error, "cannot build a header for this view");
  const bool ok = v.ndim == 0 || v.is_contiguous()
                      ? detail::write_two(fd, head, v.data, v.nbytes())
                      : detail::write_all(fd, head.data(), head.size()) && detail::write_strided(fd, v);
  return ok || detail::fail(error, "write failed: %s", strerror(errno));
}

// Writes path atomically: the file appears under its name complete, or not at all (a hidden
// temporary in the same directory is renamed over it).
inline bool write(const char* path, const tensor_view& v, std::string* error = nullptr) noexcept {
  const char* bad = detail::unwritable(v);
  if (*bad) return detail::fail(error, "%s: %s", path, bad);
  const char* slash = strrchr(path, '/');
  const int dir_len = slash ? static_cast<int>(slash - path + 1) : 0;
  char temp[4096 + 64];
  if (snprintf(temp, sizeof temp, "%.*s.probe-tmp-%ld-%u.npy", dir_len, path, static_cast<long>(getpid()),
               detail::next_temp_number()) >= static_cast<int>(sizeof temp))
    return detail::fail(error, "%s: path too long", path);
  const int fd = ::open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return detail::fail(error, "%s: cannot create a file in its directory: %s", path, strerror(errno));
  std::string why;
  bool ok = write_fd(fd, v, &why);
  if (::close(fd) != 0 && ok) {
    ok = false;
    detail::fail(&why, "close failed: %s", strerror(errno));
  }
  if (ok && ::rename(temp, path) != 0) {
    ok = false;
    detail::fail(&why, "cannot rename into place: %s", strerror(errno));
  }
  if (ok) return true;
  ::unlink(temp);
  return detail::fail(error, "%s: %s", path, why.c_str());
}
inline bool write(const std::string& path, const tensor_view& v, std::string* error = nullptr) noexcept {
  return write(path.c_str(), v, error);
}

// Reads only the header (type, shape, order, where the data starts).
inline bool read_header(const char* path, header_info* info, std::string* error = nullptr) noexcept {
  int fd = -1;
  header_info h;
  const bool ok = detail::open_and_parse(path, &fd, &h, error);
  detail::fd_guard guard(fd);
  if (ok && info) *info = h;
  return ok;
}
inline bool read_header(const std::string& path, header_info* info, std::string* error = nullptr) noexcept {
  return read_header(path.c_str(), info, error);
}

// Reads a whole .npy into an owning, C-ordered tensor in native byte order. On error the
// tensor is empty() and *error says what is wrong.
inline tensor read(const char* path, std::string* error = nullptr) noexcept {
  int fd = -1;
  header_info h;
  const bool ok = detail::open_and_parse(path, &fd, &h, error);
  detail::fd_guard guard(fd);
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
    if (lseek(fd, static_cast<off_t>(h.data_offset), SEEK_SET) < 0 || !detail::read_all(fd, dst, h.data_bytes, &got)) {
      detail::fail(error, "%s: read error: %s", path, strerror(errno));
      return tensor();
    }
    if (got != h.data_bytes) {
      detail::fail(error, "%s: truncated while reading the data", path);
      return tensor();
    }
    if (h.swap_bytes) {
      const size_t width = dtype_is_complex(h.type) ? dtype_size(h.type) / 2 : dtype_size(h.type);
      detail::swap_bytes(dst, h.data_bytes / width, width);
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
    detail::fail(error, "%s: out of memory for %zu bytes of data", path, h.data_bytes);
    return tensor();
  }
}
inline tensor read(const std::string& path, std::string* error = nullptr) noexcept {
  return read(path.c_str(), error);
}

}  // namespace npy
PROBE_END_NAMESPACE
