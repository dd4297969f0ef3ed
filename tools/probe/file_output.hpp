// Writing a report (--json, --svg, --html). A regular file is written to a temporary name in
// the same folder, then renamed, so that a reader never sees half a file and a failure
// leaves any earlier file in place. What is not a regular file is written in place: '-' and
// the process's own stdout or stderr (/dev/stdout, /dev/fd/1, /proc/self/fd/2, or the file
// they are redirected to), a FIFO, a terminal or another device. Renaming over those would
// replace the name in /dev, or leave the reader of the FIFO waiting.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace probe_cli {

namespace file_output_detail {

inline bool write_all(int fd, const std::string& content, int* err) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = n < 0 ? errno : EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// The standard stream (1 or 2) that `st` is, or -1.
inline int standard_stream_of(const struct stat& st) {
  for (int fd : {1, 2}) {
    struct stat s;
    if (fstat(fd, &s) == 0 && s.st_dev == st.st_dev && s.st_ino == st.st_ino) return fd;
  }
  return -1;
}

inline bool write_in_place(const std::string& path, int stream, const std::string& content, std::string* error) {
  int err = 0;
  if (stream >= 0) {  // after what stdio already holds for it
    fflush(stream == 1 ? stdout : stderr);
    if (write_all(stream, content, &err)) return true;
  } else {
    // No O_CREAT or O_TRUNC: the target exists and is not a file; opening a FIFO waits for
    // its reader, as any writer's would.
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
      const bool ok = write_all(fd, content, &err);
      if (close(fd) != 0 && ok) err = errno;
      if (ok && !err) return true;
    } else {
      err = errno;
    }
  }
  *error = "cannot write " + path + ": " + strerror(err);
  return false;
}

}  // namespace file_output_detail

inline bool write_report_file(const std::string& path, const std::string& content, std::string* error) {
  using namespace file_output_detail;
  if (path == "-") return write_in_place(path, 1, content, error);
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    const int stream = standard_stream_of(st);
    if (stream >= 0 || !S_ISREG(st.st_mode)) return write_in_place(path, stream, content, error);
  }
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(&tmp[0]);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + strerror(errno);
    return false;
  }
  int err = 0;
  if (!write_all(fd, content, &err)) {
    *error = "cannot write " + path + ": " + strerror(err);
    close(fd);
    unlink(tmp.c_str());
    return false;
  }
  // mkstemp makes the file private; a report is an ordinary file (0644 less the umask)
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  if (close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace probe_cli
