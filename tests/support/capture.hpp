// Test support: capture what a block writes to a file descriptor (stderr by default).
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

namespace probe_test {

class capture_fd {
 public:
  explicit capture_fd(int fd = 2) : fd_(fd) {
    fflush(nullptr);
    char name[] = "/tmp/probe_capture_XXXXXX";
    tmp_ = mkstemp(name);
    path_ = name;
    saved_ = dup(fd_);
    dup2(tmp_, fd_);
  }
  ~capture_fd() { stop(); }
  // Restores the descriptor and returns everything written while capturing.
  std::string stop() {
    if (saved_ >= 0) {
      fflush(nullptr);
      dup2(saved_, fd_);
      close(saved_);
      saved_ = -1;
      lseek(tmp_, 0, SEEK_SET);
      char buf[4096];
      ssize_t n;
      while ((n = read(tmp_, buf, sizeof buf)) > 0) text_.append(buf, static_cast<size_t>(n));
      close(tmp_);
      unlink(path_.c_str());
    }
    return text_;
  }

 private:
  int fd_, tmp_ = -1, saved_ = -1;
  std::string path_, text_;
};

// A fresh temporary directory, removed (recursively) at scope end.
class temp_dir {
 public:
  temp_dir() {
    char name[] = "/tmp/probe_test_XXXXXX";
    path_ = mkdtemp(name);
  }
  ~temp_dir() {
    std::string cmd = "rm -rf '" + path_ + "'";
    if (system(cmd.c_str()) != 0) {
    }
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

}  // namespace probe_test
