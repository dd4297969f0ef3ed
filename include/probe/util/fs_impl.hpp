// File-system plumbing (fs.hpp, atomic_file.hpp): definitions.
#pragma once
#include "fs.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API int write_all(int fd, const void* buf, size_t n) noexcept {
  io_signal_guard quiet;  // EFBIG/EPIPE instead of a signal that ends the program
  const char* p = static_cast<const char*>(buf);
  while (n > 0) {
    // Large writes in 1 GiB pieces: some kernels cap a single write near 2 GiB.
    const size_t piece = n < (size_t(1) << 30) ? n : (size_t(1) << 30);
    const ssize_t w = ::write(fd, p, piece);
    if (w < 0) {
      if (errno == EINTR) continue;
      note_io_error(errno);
      return errno;
    }
    if (w == 0) return EIO;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

PROBE_API int write_all2(int fd, const void* a, size_t na, const void* b, size_t nb) noexcept {
  io_signal_guard quiet;
  iovec iov[2] = {{const_cast<void*>(a), na}, {const_cast<void*>(b), nb}};
  if (na + nb < (size_t(1) << 30)) {
    const ssize_t w = ::writev(fd, iov, 2);
    if (w == static_cast<ssize_t>(na + nb)) return 0;
    if (w < 0 && errno != EINTR) {
      note_io_error(errno);
      return errno;
    }
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

PROBE_API int append_whole(int fd, const void* buf, size_t n) noexcept {
  io_signal_guard quiet;
  const char* p = static_cast<const char*>(buf);
  size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd, p + done, n - done);
    if (w > 0) {
      done += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    const int e = w < 0 ? errno : EIO;
    note_io_error(e);
    // The start of the record is in the file, its end is not (a file-size limit, a full
    // disk): take it back, so that the file holds whole records only.
    if (done > 0) {
      const off_t end = ::lseek(fd, 0, SEEK_END);
      if (end >= static_cast<off_t>(done)) (void)!::ftruncate(fd, end - static_cast<off_t>(done));
    }
    return e;
  }
  return 0;
}

PROBE_API int make_dirs(const std::string& path, mode_t mode) noexcept {
  if (path.empty()) return ENOENT;
  std::string cur;
  try {
    cur.reserve(path.size());  // the appends below then never allocate
  } catch (...) {
    return ENOMEM;
  }
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

PROBE_API bool is_dir(const std::string& path) noexcept {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

PROBE_API std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

PROBE_API pid_t cached_pid() noexcept {
  pid_t p = __atomic_load_n(&g_cached_pid, __ATOMIC_RELAXED);
  if (PROBE_LIKELY(p != 0)) return p;
  static const bool hooked =
      pthread_atfork(nullptr, nullptr, [] { __atomic_store_n(&g_cached_pid, getpid(), __ATOMIC_RELAXED); }) == 0;
  (void)hooked;
  p = getpid();
  __atomic_store_n(&g_cached_pid, p, __ATOMIC_RELAXED);
  return p;
}



PROBE_API int write_file_atomic(const std::string& path, const void* data, size_t n) noexcept {
  atomic_file f;
  if (int e = f.open(path)) return e;
  if (int e = write_all(f.fd(), data, n)) return e;
  return f.commit();
}

PROBE_API int write_file_atomic_at(int dirfd, const char* name, const void* data, size_t n) noexcept {
  atomic_file f;
  try {
    if (int e = f.open_at(dirfd, name)) return e;
  } catch (...) {
    return ENOMEM;
  }
  if (int e = write_all(f.fd(), data, n)) return e;
  return f.commit();
}

PROBE_API int open_subdir(int dirfd, const char* name, int* out) noexcept {
  *out = -1;
  if (::mkdirat(dirfd, name, 0777) != 0 && errno != EEXIST) return errno;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    struct stat st;
    if (e == ENOTDIR && ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) return ELOOP;
    return e;
  }
  *out = fd;
  return 0;
}

PROBE_API int create_fresh_at(int dirfd, const char* name, int flags, int* out) noexcept {
  *out = -1;
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (::unlinkat(dirfd, name, 0) != 0 && errno != ENOENT) return errno;
    const int fd = ::openat(dirfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *out = fd;
      return 0;
    }
    if (errno != EEXIST) return errno;  // another name appeared meanwhile: remove it again
  }
  return EEXIST;
}

PROBE_API int open_regular_at(int dirfd, const char* name, int* out) noexcept {
  *out = -1;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const int fd = ::openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    struct stat st;
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
      *out = fd;
      return 0;
    }
    const int e = fd >= 0 ? EINVAL : errno;
    if (fd >= 0) ::close(fd);
    // ELOOP: a symbolic link; ENXIO: a FIFO without a reader; EINVAL: something else.
    if (e != ELOOP && e != ENXIO && e != EINVAL && e != EISDIR) return e;
    if (e == EISDIR || ::unlinkat(dirfd, name, 0) != 0) return e == EINVAL ? EEXIST : e;
  }
  return EEXIST;
}

PROBE_API bool dir_removed(int dirfd) noexcept {
  struct stat st;
  return dirfd >= 0 && ::fstat(dirfd, &st) == 0 && st.st_nlink == 0;
}

}  // namespace detail
PROBE_END_NAMESPACE
