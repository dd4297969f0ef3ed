// The trace's binary spool: what the aggregator keeps of each traced interval until the trace
// is published, in fixed-size records, so that recording a scope while a trace is written
// costs a copy of 32 bytes instead of its JSON text (about 150 bytes, formatted). The JSON is
// made from the spool when the trace is published (probe::flush, exit): one pass, in the
// order the events were spooled, ticks converted to microseconds there.
//
// Memory stays bounded: past one block (1 MiB) the records go to an unnamed file next to the
// trace (O_TMPFILE, positioned writes, so a forked child sharing the descriptor moves nothing
// of its parent's), read back block by block when the JSON is made. Where no such file can
// be made, a full block is turned into JSON at once, as every event was before.
// Implementation-only; one caller at a time (the aggregator's lock).
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "../util/config.hpp"
#include "../util/io_signals.hpp"
#include "timing_buffer.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// One complete ("ph":"X") event; an op's arguments (JSON members) follow it, padded to 8.
struct spool_record {
  uint64_t begin, end;        // ticks
  const std::string* prefix;  // the event's opening, owned by the aggregator for the process
  int32_t tid;                // OS thread id
  uint32_t args;              // bytes of arguments after the record + 1; 0: no arguments
  size_t args_len() const { return args ? args - 1 : 0; }
  size_t size() const { return sizeof(spool_record) + ((args_len() + 7) & ~static_cast<size_t>(7)); }
};
#if UINTPTR_MAX == UINT64_MAX
#define PROBE_SPOOL_FIELDS 1
static_assert(sizeof(spool_record) == 32, "a spooled event is 32 bytes");
static_assert(offsetof(spool_record, end) == 8 && offsetof(timing_event, end) == 8 &&
                  offsetof(spool_record, prefix) == 16 && offsetof(spool_record, tid) == 24 &&
                  offsetof(spool_record, args) == 28,
              "append_run stores a record's fields at these offsets");
#endif

class trace_spool {
 public:
  static constexpr size_t k_block = 1 << 20;

  trace_spool() = default;
  trace_spool(const trace_spool&) = delete;
  trace_spool& operator=(const trace_spool&) = delete;
  ~trace_spool() { close_file(); }

  // Where the spill file goes (the trace's directory); forgets what was spooled.
  void reset(const std::string& dir) {
    discard();
    close_file();  // a new trace spills beside itself
    dir_ = dir;
    spill_tried_ = false;
  }
  uint64_t count() const { return count_; }
  size_t bytes_in_memory() const { return used_; }
  uint64_t bytes_spilled() const { return static_cast<uint64_t>(spilled_); }
  bool empty() const { return count_ == 0; }

  // Appends one event (`args` null: none). Returns false when the block is full and could not
  // be spilled: the caller makes JSON of what is spooled (drain) and appends again.
  bool append(uint64_t begin, uint64_t end, const std::string* prefix, long tid, const char* args,
              size_t args_len) {
    const size_t size = sizeof(spool_record) + ((args_len + 7) & ~static_cast<size_t>(7));
    if (used_ + size > buf_.size()) {
      if (used_ > 0 && !spill()) return false;
      if (buf_.size() < (size > k_block ? size : k_block)) buf_.resize(size > k_block ? size : k_block);
    }
    spool_record r{begin, end, prefix, static_cast<int32_t>(tid), args ? static_cast<uint32_t>(args_len + 1) : 0u};
    memcpy(&buf_[used_], &r, sizeof r);
    if (args_len) memcpy(&buf_[used_ + sizeof r], args, args_len);
    used_ += size;
    ++count_;
    return true;
  }
  // A run of one scope's events (no arguments): each a 32-byte copy into the block. Returns
  // how many it took (fewer than k when the block filled and could not be spilled).
  uint32_t append_run(const timing_event* e, uint32_t k, const std::string* prefix, long tid) {
    uint32_t i = 0;
    while (i < k) {
      const size_t room = (buf_.size() - used_) / sizeof(spool_record);
#if defined(PROBE_SPOOL_FIELDS)
      const bool whole = room == 0;
#else
      const bool whole = true;  // one at a time where the record's layout differs
      (void)room;
#endif
      if (whole) {
        if (!append(e[i].begin, e[i].end, prefix, tid, nullptr, 0)) break;
        ++i;
        continue;
      }
#if defined(PROBE_SPOOL_FIELDS)
      const uint32_t m = room < k - i ? static_cast<uint32_t>(room) : k - i;
      // Stored field by field: a record built on the stack and copied whole is read back
      // across its smaller stores, which stalls store forwarding (most of this loop's time).
      uint64_t tail;  // tid, then args = 0
      const int32_t tid32 = static_cast<int32_t>(tid);
      const uint32_t no_args = 0;
      memcpy(&tail, &tid32, 4);
      memcpy(reinterpret_cast<char*>(&tail) + 4, &no_args, 4);
      char* out = &buf_[used_];
      for (uint32_t j = 0; j < m; ++j, out += sizeof(spool_record)) {
        memcpy(out, &e[i + j].begin, 16);  // begin and end, adjacent in both
        memcpy(out + 16, &prefix, 8);
        memcpy(out + 24, &tail, 8);
      }
      used_ += m * sizeof(spool_record);
      count_ += m;
      i += m;
#endif
    }
    return i;
  }

  // Calls f(const spool_record&, const char* args or null, size_t args_len) for every event,
  // oldest first, and empties the spool. Returns 0 or the errno of a failed read of the spill file (the events still in
  // memory are given all the same).
  template <class F>
  int drain(F&& f) {
    int err = 0;
    if (spilled_ > 0) {
      std::vector<char> in;
      size_t have = 0;  // bytes in `in` not consumed yet
      for (off_t off = 0; off < spilled_;) {
        const size_t want = static_cast<size_t>(spilled_ - off) < k_block ? static_cast<size_t>(spilled_ - off) : k_block;
        if (in.size() < have + want) in.resize(have + want);
        const ssize_t n = ::pread(fd_, in.data() + have, want, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          err = n < 0 ? errno : EIO;
          break;
        }
        off += n;
        have += static_cast<size_t>(n);
        const size_t used = give(in.data(), have, f);
        memmove(in.data(), in.data() + used, have - used);  // a record cut by the block's end
        have -= used;
      }
      spilled_ = 0;
      if (::ftruncate(fd_, 0) != 0) close_file();  // the disk space goes back either way
    }
    give(buf_.data(), used_, f);
    used_ = 0;
    count_ = 0;
    return err;
  }

  // Forgets every event (a trace abandoned, or a forked child's copy of its parent's).
  void discard() {
    used_ = 0;
    count_ = 0;
    if (spilled_ > 0 && fd_ >= 0 && ::ftruncate(fd_, 0) != 0) close_file();
    spilled_ = 0;
  }
  // A forked child: the spill file is its parent's; let go of it without touching it.
  void detach() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    spilled_ = 0;
    spill_tried_ = true;
    used_ = 0;
    count_ = 0;
  }

 private:
  template <class F>
  static size_t give(const char* p, size_t n, F& f) {
    size_t at = 0;
    while (n - at >= sizeof(spool_record)) {
      spool_record r;
      memcpy(&r, p + at, sizeof r);
      const size_t size = r.size();
      if (n - at < size) break;
      f(r, r.args ? p + at + sizeof r : nullptr, r.args_len());
      at += size;
    }
    return at;
  }

  bool spill() {
    if (fd_ < 0 && !spill_tried_) {
      spill_tried_ = true;
#if defined(O_TMPFILE)
      fd_ = ::open(dir_.empty() ? "." : dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    }
    if (fd_ < 0) return false;
    io_signal_guard quiet;  // past RLIMIT_FSIZE: EFBIG here, not SIGXFSZ to the host
    for (size_t done = 0; done < used_;) {
      const ssize_t n = ::pwrite(fd_, buf_.data() + done, used_ - done, spilled_ + static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n < 0) note_io_error(errno);
        return false;  // what was written past spilled_ is overwritten or cut later
      }
      done += static_cast<size_t>(n);
    }
    spilled_ += static_cast<off_t>(used_);
    used_ = 0;
    return true;
  }

  void close_file() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    spilled_ = 0;
  }

  std::vector<char> buf_;  // the block: records not spilled yet fill its first used_ bytes
  size_t used_ = 0;
  uint64_t count_ = 0;     // events spooled, spilled ones included
  std::string dir_;
  int fd_ = -1;            // the spill file, once needed
  off_t spilled_ = 0;      // bytes of records in it
  bool spill_tried_ = false;
};

}  // namespace detail
PROBE_END_NAMESPACE
