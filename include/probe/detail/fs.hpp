// File-system plumbing for effects that write files: whole writes that survive EINTR and
// short writes, directories created on demand, files that appear atomically under their
// final name. POSIX. Implementation-only header.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <string>

#include "../core/config.hpp"
#include "int_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Writes all of buf; returns 0 or an errno value.
PROBE_FUNC int write_all(int fd, const void* buf, size_t n) noexcept {
  const char* p = static_cast<const char*>(buf);
  while (n > 0) {
    // Large writes in 1 GiB pieces: some kernels cap a single write near 2 GiB.
    const size_t piece = n < (size_t(1) << 30) ? n : (size_t(1) << 30);
    const ssize_t w = ::write(fd, p, piece);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

// Writes two buffers with one system call where possible (a header and its data).
PROBE_FUNC int write_all2(int fd, const void* a, size_t na, const void* b, size_t nb) noexcept {
  iovec iov[2] = {{const_cast<void*>(a), na}, {const_cast<void*>(b), nb}};
  if (na + nb < (size_t(1) << 30)) {
    const ssize_t w = ::writev(fd, iov, 2);
    if (w == static_cast<ssize_t>(na + nb)) return 0;
    if (w < 0 && errno != EINTR) return errno;
    // Short write: finish piecewise from where it stopped.
    size_t done = w > 0 ? static_cast<size_t>(w) : 0;
    if (done < na) {
      if (int e = write_all(fd, static_cast<const char*>(a) + done, na - done)) return e;
      done = na;
    }
    return write_all(fd, static_cast<const char*>(b) + (done - na), nb - (done - na));
  }
  if (int e = write_all(fd, a, na)) return e;
  return write_all(fd, b, nb);
}

// mkdir -p; returns 0 or an errno value.
PROBE_FUNC int make_dirs(const std::string& path, mode_t mode = 0777) noexcept {
  if (path.empty()) return ENOENT;
  std::string cur;
  cur.reserve(path.size());
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) return errno;
      struct stat st;
      if (::stat(cur.c_str(), &st) != 0) return errno;
      if (!S_ISDIR(st.st_mode)) return ENOTDIR;
    }
    if (i < path.size()) cur += path[i];
  }
  return 0;
}

PROBE_FUNC bool is_dir(const std::string& path) noexcept {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

PROBE_FUNC std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

// getpid() is a system call on current glibc; temporary names need it per file.
inline pid_t g_cached_pid = 0;
PROBE_FUNC pid_t cached_pid() noexcept {
  pid_t p = __atomic_load_n(&g_cached_pid, __ATOMIC_RELAXED);
  if (PROBE_LIKELY(p != 0)) return p;
  static const bool hooked =
      pthread_atfork(nullptr, nullptr, [] { __atomic_store_n(&g_cached_pid, getpid(), __ATOMIC_RELAXED); }) == 0;
  (void)hooked;
  p = getpid();
  __atomic_store_n(&g_cached_pid, p, __ATOMIC_RELAXED);
  return p;
}

// A file that becomes visible under its final name only when committed: written to
// "<dir>/.<name>.tmp.<pid>.<n>" and renamed over the final name by commit().
template <int = 0>
class basic_atomic_file {
 public:
  basic_atomic_file() = default;
  basic_atomic_file(const basic_atomic_file&) = delete;
  basic_atomic_file& operator=(const basic_atomic_file&) = delete;
  ~basic_atomic_file() { abandon(); }

  // Returns 0 or an errno value.
  template <int = 0>
  int open(const std::string& final_path) noexcept {
    abandon();
    try {
      final_ = final_path;
      const size_t slash = final_path.rfind('/');
      const std::string dir = slash == std::string::npos ? std::string() : final_path.substr(0, slash + 1);
      const std::string base = slash == std::string::npos ? final_path : final_path.substr(slash + 1);
      static unsigned counter = 0;
      const unsigned n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
      // Keep the temporary name within NAME_MAX whatever the final name's length.
      std::string stem = base.size() > 200 ? base.substr(0, 200) : base;
      char tag[48];
      char* end = put_text(tag, ".tmp.");
      end = put_uint(end, static_cast<unsigned long long>(cached_pid()));
      *end++ = '.';
      end = put_uint(end, n);
      tmp_.reserve(dir.size() + stem.size() + 48);
      tmp_.assign(dir).append(1, '.').append(stem).append(tag, static_cast<size_t>(end - tag));
    } catch (...) {
      return ENOMEM;
    }
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    return fd_ < 0 ? errno : 0;
  }
  template <int = 0>
  int fd() const noexcept { return fd_; }

  // Closes and renames into place; returns 0 or an errno value (the temp is removed on error).
  template <int = 0>
  int commit() noexcept {
    if (fd_ < 0) return EBADF;
    int err = 0;
    if (::close(fd_) != 0) err = errno;
    fd_ = -1;
    if (!err && ::rename(tmp_.c_str(), final_.c_str()) != 0) err = errno;
    if (err) ::unlink(tmp_.c_str());
    tmp_.clear();
    return err;
  }
  // Closes and removes the temporary file.
  template <int = 0>
  void abandon() noexcept {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    if (!tmp_.empty()) {
      ::unlink(tmp_.c_str());
      tmp_.clear();
    }
  }

 private:
  int fd_ = -1;
  std::string final_, tmp_;
};
using atomic_file = basic_atomic_file<>;

// Writes a whole file atomically; returns 0 or an errno value.
PROBE_FUNC int write_file_atomic(const std::string& path, const void* data, size_t n) noexcept {
  atomic_file f;
  if (int e = f.open(path)) return e;
  if (int e = write_all(f.fd(), data, n)) return e;
  return f.commit();
}

}  // namespace detail
PROBE_END_NAMESPACE
