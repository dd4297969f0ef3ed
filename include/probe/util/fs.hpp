// File-system plumbing for effects that write files: whole writes that survive EINTR and
// short writes, directories created on demand, files that appear atomically under their
// final name (atomic_file.hpp). POSIX. Implementation-only header.
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

PROBE_BEGIN_NAMESPACE
namespace detail {

// Writes all of buf; returns 0 or an errno value.
PROBE_API int write_all(int fd, const void* buf, size_t n) noexcept;

// Writes two buffers with one system call where possible (a header and its data).
PROBE_API int write_all2(int fd, const void* a, size_t na, const void* b, size_t nb) noexcept;

// mkdir -p; returns 0 or an errno value.
PROBE_API int make_dirs(const std::string& path, mode_t mode = 0777) noexcept;

PROBE_API bool is_dir(const std::string& path) noexcept;

PROBE_API std::string join_path(const std::string& dir, const std::string& name);

// getpid() is a system call on current glibc; temporary names need it per file.
inline pid_t g_cached_pid = 0;
PROBE_API pid_t cached_pid() noexcept;

}  // namespace detail
PROBE_END_NAMESPACE

// Files that appear whole under their final name (uses the above).
#include "atomic_file.hpp"
