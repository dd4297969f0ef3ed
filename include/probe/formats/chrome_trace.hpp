// Chrome trace event format (the JSON that Perfetto and chrome://tracing read), written as a
// stream: events go to an unnamed (or temporary) file as they come, so a long run never holds
// its whole trace in memory, and the final name only ever holds a complete file (util/fs.hpp's
// atomic_file).
// No probe state of its own.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "../util/fs.hpp"
#include "../util/int_text.hpp"
#include "../util/text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// {"traceEvents":[ e1, e2, ... ] <after>}: events are appended, then finish() or
// publish_copy() closes the array with the given trailing events and object members.
class chrome_trace_writer {
 public:
  chrome_trace_writer() = default;
  chrome_trace_writer(const chrome_trace_writer&) = delete;
  chrome_trace_writer& operator=(const chrome_trace_writer&) = delete;
  ~chrome_trace_writer() { abandon(); }

  // Starts a trace that will be named `path`. Returns false (with error() set) on failure.
  bool open(const std::string& path) {
    abandon();
    path_ = path;
    error_.clear();
    if (const int e = file_.open(path)) return fail("cannot create a file next to", path, e);
    buf_ = "{\"traceEvents\":[\n";
    first_ = true;
    events_ = 0;
    written_ = 0;
    return true;
  }
  bool is_open() const { return file_.fd() >= 0; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }
  uint64_t events() const { return events_; }

  // One event: a JSON object's text.
  void event(const std::string& json) {
    if (!is_open()) return;
    begin_event() += json;
    end_event();
  }
  // Or written in place: append the object's text to the returned buffer, then end_event().
  std::string& begin_event() {
    if (!first_) buf_.append(",\n", 2);
    first_ = false;
    return buf_;
  }
  void end_event() {
    ++events_;
    if (buf_.size() >= k_flush_bytes) write_out();
  }

  // Makes `path` a complete trace of everything so far plus `trailing` events, and keeps
  // streaming: what was written is copied, so this costs time proportional to the trace.
  bool publish_copy(const std::string& trailing, const std::string& members) {
    if (!is_open() || !write_out()) return false;
    atomic_file copy;
    if (const int e = copy.open(path_)) return fail("cannot create a file next to", path_, e);
    char chunk[1 << 16];
    int e = 0;
    for (off_t off = 0; !e && off < written_;) {
      const ssize_t n = ::pread(file_.fd(), chunk, sizeof chunk, off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        e = n < 0 ? errno : EIO;
        break;
      }
      e = write_all(copy.fd(), chunk, static_cast<size_t>(n));
      off += n;
    }
    const std::string tail = closing(trailing, members, first_);
    if (!e) e = write_all(copy.fd(), tail.data(), tail.size());
    if (!e) e = copy.commit();
    return e ? fail("cannot write", path_, e) : true;
  }

  // Closes the trace and puts it under its final name. The writer is closed afterwards.
  bool finish(const std::string& trailing, const std::string& members) {
    if (!is_open()) return false;
    buf_ += closing(trailing, members, first_);
    int e = write_out() ? 0 : EIO;
    if (!e) e = file_.commit();
    file_.abandon();
    return e ? fail("cannot write", path_, e) : true;
  }

  // Lets go of the file without touching it (a forked child: the file is its parent's).
  void detach() {
    file_.release();
    buf_.clear();
  }

  // Drops the trace: `path` stays as it was.
  void abandon() {
    file_.abandon();
    buf_.clear();
  }

 private:
  static constexpr size_t k_flush_bytes = 1 << 20;

  static std::string closing(const std::string& trailing, const std::string& members, bool none_yet) {
    std::string s;
    if (!trailing.empty()) {
      if (!none_yet) s += ",\n";
      s += trailing;
    }
    s += "\n]";
    if (!members.empty()) {
      s += ',';
      s += members;
    }
    s += "}\n";
    return s;
  }

  bool write_out() {
    if (!is_open()) return false;
    const int e = write_all(file_.fd(), buf_.data(), buf_.size());
    written_ += static_cast<off_t>(buf_.size());
    buf_.clear();
    if (e) {
      fail("cannot write", path_, e);
      abandon();
    }
    return !e;
  }
  // The first error is the one to tell (a full disk), not what failed after it.
  bool fail(const char* what, const std::string& file, int err) {
    if (error_.empty()) error_ = std::string(what) + " " + file + ": " + strerror(err);
    return false;
  }

  atomic_file file_;
  std::string path_, buf_, error_;
  off_t written_ = 0;
  bool first_ = true;
  uint64_t events_ = 0;
};

}  // namespace detail
PROBE_END_NAMESPACE
