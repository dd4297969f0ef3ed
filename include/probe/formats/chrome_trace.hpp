// Chrome trace event format (the JSON that Perfetto and chrome://tracing read), written as a
// stream: events go to a temporary file as they come, so a long run never holds its whole
// trace in memory, and the final name only ever holds a complete file (temp + rename).
// Standalone helper: no probe state.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Appends s as the inside of a JSON string: quotes, backslashes and control characters
// escaped, valid UTF-8 kept as is (readable names in any script), invalid bytes replaced by
// U+FFFD so the file stays valid UTF-8.
inline void json_escape_append(std::string& out, const char* s) {
  static const char hex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const unsigned char*>(s ? s : "");
  while (*p) {
    const unsigned char c = *p;
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7f) {
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
      ++p;
      continue;
    }
    // Length of a well-formed sequence starting here (0 if ill-formed), per RFC 3629.
    int len = 0;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) len = 3;
    else if (c >= 0xf0 && c <= 0xf4) len = 4;
    for (int i = 1; i < len; ++i)
      if ((p[i] & 0xc0) != 0x80) len = 0;
    if (len >= 3) {
      const unsigned char d = p[1];
      if ((c == 0xe0 && d < 0xa0) || (c == 0xed && d > 0x9f) || (c == 0xf0 && d < 0x90) ||
          (c == 0xf4 && d > 0x8f))
        len = 0;  // overlong, surrogate, or beyond U+10FFFF
    }
    if (len == 0) {
      out += "\\ufffd";
      ++p;
    } else {
      out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
      p += len;
    }
  }
}

// Decimal digits of v at the end of buf[0, 20); returns where they start.
inline char* u64_digits(uint64_t v, char* end) {
  do {
    *--end = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  return end;
}

inline void append_u64(std::string& out, uint64_t v) {
  char buf[20];
  char* p = u64_digits(v, buf + sizeof buf);
  out.append(p, static_cast<size_t>(buf + sizeof buf - p));
}

inline void append_i64(std::string& out, int64_t v) {
  if (v < 0) {
    out += '-';
    append_u64(out, 0 - static_cast<uint64_t>(v));
  } else {
    append_u64(out, static_cast<uint64_t>(v));
  }
}

// Nanoseconds as microseconds with three decimals, exactly ("1234.005"): the trace's unit.
inline void append_us(std::string& out, int64_t ns) {
  char buf[32];
  char* end = buf + sizeof buf;
  uint64_t a = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  const unsigned frac = static_cast<unsigned>(a % 1000);
  *--end = static_cast<char>('0' + frac % 10);
  *--end = static_cast<char>('0' + frac / 10 % 10);
  *--end = static_cast<char>('0' + frac / 100);
  *--end = '.';
  char* p = u64_digits(a / 1000, end);
  if (ns < 0) *--p = '-';
  out.append(p, static_cast<size_t>(buf + sizeof buf - p));
}

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
    temp_ = path + ".tmp." + std::to_string(static_cast<long>(getpid()));
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return fail("cannot create", temp_);
    buf_ = "{\"traceEvents\":[\n";
    first_ = true;
    events_ = 0;
    return true;
  }
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }
  uint64_t events() const { return events_; }

  // One event: a JSON object's text.
  void event(const std::string& json) {
    if (fd_ < 0) return;
    begin_event() += json;
    end_event();
  }
  // Or written in place: append the object's text to the returned buffer, then end_event().
  std::string& begin_event() {
    if (!first_) buf_ += ",\n";
    first_ = false;
    return buf_;
  }
  void end_event() {
    ++events_;
    if (buf_.size() >= k_flush_bytes) write_out();
  }

  // Makes `path` a complete trace of everything so far plus `trailing` events, and keeps
  // streaming: the temporary file is copied, so this costs time proportional to the trace.
  bool publish_copy(const std::string& trailing, const std::string& members) {
    if (fd_ < 0 || !write_out()) return false;
    const std::string copy = temp_ + ".flush";
    const int out = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) return fail("cannot create", copy);
    const int in = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
    bool ok = in >= 0;
    char chunk[1 << 16];
    while (ok) {
      const ssize_t n = ::read(in, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = n == 0;
        break;
      }
      ok = write_all(out, chunk, static_cast<size_t>(n));
    }
    if (in >= 0) ::close(in);
    const std::string tail = closing(trailing, members, first_);
    ok = ok && write_all(out, tail.data(), tail.size());
    ok = (::close(out) == 0) && ok;
    if (!ok || ::rename(copy.c_str(), path_.c_str()) != 0) {
      ::unlink(copy.c_str());
      return fail("cannot write", path_);
    }
    return true;
  }

  // Closes the trace and renames it to its final name. The writer is closed afterwards.
  bool finish(const std::string& trailing, const std::string& members) {
    if (fd_ < 0) return false;
    buf_ += closing(trailing, members, first_);
    bool ok = write_out();
    ok = (::close(fd_) == 0) && ok;
    fd_ = -1;
    if (!ok || ::rename(temp_.c_str(), path_.c_str()) != 0) {
      ::unlink(temp_.c_str());
      return fail("cannot write", path_);
    }
    return true;
  }

  // Lets go of the file without touching it (a forked child: the file is its parent's).
  void detach() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buf_.clear();
  }

  // Drops the trace: removes the temporary file, leaves `path` as it was.
  void abandon() {
    if (fd_ < 0) return;
    ::close(fd_);
    fd_ = -1;
    ::unlink(temp_.c_str());
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

  static bool write_all(int fd, const char* p, size_t n) {
    while (n) {
      const ssize_t w = ::write(fd, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  bool write_out() {
    if (fd_ < 0) return false;
    const bool ok = write_all(fd_, buf_.data(), buf_.size());
    buf_.clear();
    if (!ok) {
      fail("cannot write", temp_);
      abandon();
    }
    return ok;
  }
  bool fail(const char* what, const std::string& file) {
    error_ = std::string(what) + " " + file + ": " + strerror(errno);
    return false;
  }

  std::string path_, temp_, buf_, error_;
  int fd_ = -1;
  bool first_ = true;
  uint64_t events_ = 0;
};

}  // namespace detail
PROBE_END_NAMESPACE
