// File-system plumbing for effects that write files: whole writes that survive EINTR and
// short writes, directories created on demand, files that appear atomically under their
// final name (atomic_file.hpp). POSIX. Internal header.
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

#include "config.hpp"
#include "int_text.hpp"
#include "io_signals.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Closes a descriptor (if any) when it goes out of scope.
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

// Writes all of buf; returns 0 or an errno value.
PROBE_API int write_all(int fd, const void* buf, size_t n) noexcept;

// Writes two buffers with one system call where possible (a header and its data).
PROBE_API int write_all2(int fd, const void* a, size_t na, const void* b, size_t nb) noexcept;

// Appends one record (a manifest line) to an O_APPEND descriptor that only this process's
// holder of its lock writes: whole, or (when the rest does not fit) not at all. Returns 0 or
// an errno value.
PROBE_API int append_whole(int fd, const void* buf, size_t n) noexcept;

// mkdir -p; returns 0 or an errno value.
PROBE_API int make_dirs(const std::string& path, mode_t mode = 0777) noexcept;

PROBE_API bool is_dir(const std::string& path) noexcept;

PROBE_API std::string join_path(const std::string& dir, const std::string& name);

// getpid() is a system call on current glibc; temporary names need it per file.
inline pid_t g_cached_pid = 0;
PROBE_API pid_t cached_pid() noexcept;


// Files that appear under their final name complete or not at all: a killed process never
// leaves a partial file under a final name. On Linux the data goes into an unnamed O_TMPFILE
// in the target directory, linked under its name once written: one directory entry made
// instead of one made and one renamed (on journaled ext4 about a fifth less per small file
// than create + rename), and a crash leaves nothing behind. Where the kernel, the file system
// or a sandbox refuses that, a hidden "<dir>/.<name>.tmp.<pid>.<n>" is renamed into place.
// Included by fs.hpp.


// What this process has learned about linking unnamed files (bits, only ever set).
enum : int {
  k_atomic_named_only = 1,     // use named temporaries (no O_TMPFILE here; tests set it too)
  k_atomic_no_empty_path = 2,  // linkat(AT_EMPTY_PATH) refused: link through /proc/self/fd
};
inline int g_atomic_file_mode = 0;
inline int atomic_file_mode() noexcept { return __atomic_load_n(&g_atomic_file_mode, __ATOMIC_RELAXED); }
inline void learn_atomic_file_mode(int bit) noexcept { __atomic_fetch_or(&g_atomic_file_mode, bit, __ATOMIC_RELAXED); }

// A file name kept by atomic_file: in place when it fits (every name relative to a dump's run
// directory does), so that a file being written holds no heap memory of its own (a child
// forked meanwhile has no copy of the writing thread's stack to find it through).
class file_name_buf {
 public:
  const char* c_str() const noexcept { return long_.empty() ? short_ : long_.c_str(); }
  size_t size() const noexcept { return long_.empty() ? n_ : long_.size(); }
  bool empty() const noexcept { return size() == 0; }
  void clear() noexcept {
    n_ = 0;
    short_[0] = '\0';
    long_.clear();
  }
  // Pieces joined; false when out of memory.
  bool assign(const char* a, size_t na, const char* b = "", size_t nb = 0, const char* c = "", size_t nc = 0,
              const char* d = "", size_t nd = 0) noexcept {
    clear();
    const size_t n = na + nb + nc + nd;
    char* out = short_;
    if (n >= sizeof short_) {
      try {
        long_.resize(n);
      } catch (...) {
        return false;
      }
      out = &long_[0];
    }
    memcpy(out, a, na);
    memcpy(out + na, b, nb);
    memcpy(out + na + nb, c, nc);
    memcpy(out + na + nb + nc, d, nd);
    if (out == short_) {
      short_[n] = '\0';
      n_ = n;
    }
    return true;
  }
  size_t rfind_slash() const noexcept {
    const char* p = c_str();
    for (size_t i = size(); i > 0; --i)
      if (p[i - 1] == '/') return i - 1;
    return static_cast<size_t>(-1);
  }

 private:
  char short_[256] = "";
  size_t n_ = 0;
  std::string long_;
};

class atomic_file {
 public:
  atomic_file() = default;
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file() { abandon(); }

  // Returns 0 or an errno value.
  int open(const std::string& final_path) noexcept { return open_at(AT_FDCWD, final_path); }

  // `name` relative to the open directory `dirfd` (a dump's run directory: no path walk per
  // file); with AT_FDCWD, a path. Returns 0 or an errno value.
  int open_at(int dirfd, const std::string& name) noexcept {
    abandon();
    dirfd_ = dirfd;
    if (!final_.assign(name.data(), name.size())) return ENOMEM;
#if defined(O_TMPFILE)
    if (!(atomic_file_mode() & k_atomic_named_only)) {
      const size_t slash = name.rfind('/');
      try {
        fd_ = slash == std::string::npos ? ::openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666)
                                         : ::openat(dirfd, name.substr(0, slash + 1).c_str(),
                                                    O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
      } catch (...) {
        return ENOMEM;
      }
      if (fd_ >= 0) {
        unnamed_ = true;
        return 0;
      }
      // Kernels before 3.11 say EISDIR; file systems without it EOPNOTSUPP.
      if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return errno;
      learn_atomic_file_mode(k_atomic_named_only);
    }
#endif
    if (!make_temp_name()) return ENOMEM;
    fd_ = ::openat(dirfd_, tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0) {
      const int e = errno;
      tmp_.clear();  // not ours to remove
      return e;
    }
    return 0;
  }
  int fd() const noexcept { return fd_; }

  // Closes and puts the file in place; returns 0 or an errno value (nothing is left behind
  // on error).
  int commit() noexcept {
    if (fd_ < 0) return EBADF;
    int err = unnamed_ ? link_unnamed() : 0;
    const bool linked = unnamed_ && !err && tmp_.empty();  // already under its final name
    if (::close(fd_) != 0 && !err) err = errno;
    fd_ = -1;
    unnamed_ = false;
    if (err && linked) ::unlinkat(dirfd_, final_.c_str(), 0);
    if (!tmp_.empty()) {
      if (!err && ::renameat(dirfd_, tmp_.c_str(), dirfd_, final_.c_str()) != 0) err = errno;
      if (err) ::unlinkat(dirfd_, tmp_.c_str(), 0);
      tmp_.clear();
    }
    return err;
  }

  // Closes the descriptor and forgets the file without removing anything: how a forked
  // child lets go of its parent's file.
  void release() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    unnamed_ = false;
    tmp_.clear();
  }

  // Closes and removes the temporary file (an unnamed one goes with its descriptor).
  void abandon() noexcept {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    unnamed_ = false;
    if (!tmp_.empty()) {
      ::unlinkat(dirfd_, tmp_.c_str(), 0);
      tmp_.clear();
    }
  }

 private:
  // "<dir>/.<name>.tmp.<pid>.<n>" in tmp_, within NAME_MAX whatever the final name's length.
  bool make_temp_name() noexcept {
    try {
      const size_t slash = final_.rfind_slash();
      const size_t base = slash == static_cast<size_t>(-1) ? 0 : slash + 1;
      const size_t stem = final_.size() - base > 200 ? 200 : final_.size() - base;
      static unsigned counter = 0;
      const unsigned n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
      char tag[48];
      char* end = put_text(tag, ".tmp.");
      end = put_uint(end, static_cast<unsigned long long>(cached_pid()));
      *end++ = '.';
      end = put_uint(end, n);
      return tmp_.assign(final_.c_str(), base, ".", 1, final_.c_str() + base, stem, tag, static_cast<size_t>(end - tag));
    } catch (...) {
      tmp_.clear();
      return false;
    }
  }

  // Gives the unnamed file a name: the final one, or (when that exists: a folder reused) a
  // temporary one that commit() renames over it. Returns 0 or an errno value.
  int link_unnamed() noexcept {
    int e = link_to(final_.c_str());
    if (e == EEXIST) {
      if (!make_temp_name()) return ENOMEM;
      e = link_to(tmp_.c_str());
      if (e) tmp_.clear();
      return e;
    }
    if (e == 0 || e == ENOSPC || e == EDQUOT || e == EIO || e == EROFS || e == EMLINK || e == ENAMETOOLONG ||
        e == ENOMEM)
      return e;
    return copy_to_temp();  // linking refused (no /proc, a sandbox): copy instead
  }

  int link_to(const char* target) noexcept {
#if defined(AT_EMPTY_PATH)
    if (!(atomic_file_mode() & k_atomic_no_empty_path)) {
      if (::linkat(fd_, "", dirfd_, target, AT_EMPTY_PATH) == 0) return 0;
      // Unprivileged before Linux 6.10: ENOENT. Anything else is about the target.
      if (errno != ENOENT && errno != EPERM && errno != EINVAL) return errno;
      learn_atomic_file_mode(k_atomic_no_empty_path);
    }
#endif
    char proc[40];
    char* end = put_text(proc, "/proc/self/fd/");
    *put_uint(end, static_cast<unsigned long long>(fd_)) = '\0';
    return ::linkat(AT_FDCWD, proc, dirfd_, target, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
  }

  // The unnamed file's bytes into a new named temporary (tmp_), which commit() renames; from
  // then on this process writes named temporaries directly.
  int copy_to_temp() noexcept {
    if (!make_temp_name()) return ENOMEM;
    const int out = ::openat(dirfd_, tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (out < 0) {
      const int e = errno;
      tmp_.clear();
      return e;
    }
    char buf[16384];
    off_t off = 0;
    int e = 0;
    for (;;) {
      const ssize_t r = ::pread(fd_, buf, sizeof buf, off);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        if (r < 0) e = errno;
        break;
      }
      if ((e = write_all(out, buf, static_cast<size_t>(r))) != 0) break;
      off += r;
    }
    if (::close(out) != 0 && !e) e = errno;
    if (!e) learn_atomic_file_mode(k_atomic_named_only);
    return e;
  }

  int fd_ = -1;
  int dirfd_ = AT_FDCWD;
  bool unnamed_ = false;  // fd_ is an O_TMPFILE
  file_name_buf final_, tmp_;
};

// Writes a whole file atomically; returns 0 or an errno value.

PROBE_API int write_file_atomic(const std::string& path, const void* data, size_t n) noexcept;
// The same, `name` (no '/') relative to the open directory `dirfd`.
PROBE_API int write_file_atomic_at(int dirfd, const char* name, const void* data, size_t n) noexcept;

// Folders and files probe makes inside a folder it holds open: relative to its descriptor,
// so a path walk cannot be redirected, and never through a symbolic link planted there.

// Creates (if missing) and opens the folder `name` (no '/') in `dirfd`: *out is its
// descriptor. A symbolic link there is refused (ELOOP), as is anything not a folder
// (ENOTDIR). Returns 0 or an errno value.
PROBE_API int open_subdir(int dirfd, const char* name, int* out) noexcept;

// A fresh, empty regular file `name` in `dirfd`, opened for appending: whatever had the name
// (an earlier run's file, a link to a file elsewhere, a FIFO) is removed first, never
// truncated or written through. Returns 0 or an errno value.
PROBE_API int create_fresh_at(int dirfd, const char* name, int flags, int* out) noexcept;

// Opens the regular file `name` in `dirfd` (created if missing) for reading and writing
// without following a symbolic link or waiting on a FIFO: what a lock file needs. A link or
// a non-regular file there is removed and the file created anew. Returns 0 or an errno value.
PROBE_API int open_regular_at(int dirfd, const char* name, int* out) noexcept;

// Whether the folder held open by `dirfd` was removed (it has no name any more).
PROBE_API bool dir_removed(int dirfd) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
