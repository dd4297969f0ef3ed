// Timing device work with events, lazily: a start and a stop event per op, recorded on the
// op's stream, and read back only once they have happened (queried at flush, at exit, when
// the pool runs out of pairs, and every few dozen ops). Nothing here ever waits for a stream
// while the program runs. Internal header; no device runtime included (the
// runtime comes in through gpu_event_api).
//
// Placing device time on the host timeline: a reference event is recorded with the first
// op, and that moment is taken as its host time; each later reference (one per second of
// host time) is placed from the previous one by device-measured elapsed time, and every op
// from its nearest reference. The elapsed times stay short, so float milliseconds keep
// sub-microsecond precision however long the run.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "device_timing_api.hpp"
#include "device_timing_ops.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class gpu_event_pool {
 public:
  static constexpr int64_t k_reference_period_ns = 1000000000;
  static constexpr uint32_t k_resolve_every = 64;

  gpu_event_pool(gpu_event_api& api, int device, size_t max_pairs)
      : api_(api), device_(device), max_pairs_(max_pairs) {}
  gpu_event_pool(const gpu_event_pool&) = delete;
  gpu_event_pool& operator=(const gpu_event_pool&) = delete;

  // Records a start event on `stream` at host time host_ns. Returns a ticket for end(), or 0
  // when this op goes untimed (pool exhausted: counted in dropped(); error: failed()).
  uint32_t begin(void* stream, int64_t host_ns) {
    if (failed_) return 0;
    if (free_.empty()) resolve(false);
    if (free_.empty() && !grow()) {
      if (!failed_) ++dropped_;
      return 0;
    }
    if (!ensure_reference(stream, host_ns)) return 0;
    const uint32_t i = free_.back();
    pair_slot& p = pairs_[i];
    if (!api_.record(p.start, stream)) return fail();
    free_.pop_back();
    p.stream = stream;
    p.ref = static_cast<uint32_t>(refs_.size() - 1);
    p.state = slot_begun;
    ++refs_[p.ref].users;
    return i + 1;
  }

  // Records the stop event of `ticket` on the stream the start went to.
  void end(uint32_t ticket, gpu_op_desc desc) {
    if (ticket == 0 || ticket > pairs_.size()) return;
    const uint32_t i = ticket - 1;
    pair_slot& p = pairs_[i];
    if (p.state != slot_begun) return;
    if (failed_ || !api_.record(p.stop, p.stream)) {
      if (!failed_) fail();
      release(i);
      return;
    }
    desc.stream = p.stream;
    p.desc = static_cast<gpu_op_desc&&>(desc);
    p.state = slot_ended;
    pending_.push_back(i);
    if (++ends_since_resolve_ >= k_resolve_every) resolve(false);
  }

  // Moves every op whose events have happened to the done list; with `wait`, waits for
  // each first (process exit only).
  void resolve(bool wait) {
    ends_since_resolve_ = 0;
    resolve_references(wait);
    size_t keep = 0;
    for (size_t k = 0; k < pending_.size(); ++k) {
      const uint32_t i = pending_[k];
      pair_slot& p = pairs_[i];
      const reference& ref = refs_[p.ref];
      int state = happened(p.stop, wait);
      if (state > 0) {  // its reference may sit on another, busier stream
        const int ref_state = ref.placed ? happened(ref.event, wait) : 0;
        if (ref_state < 0) state = -1;
        else if (ref_state == 0) state = 0;
      }
      if (state == 0) {
        pending_[keep++] = i;
        continue;
      }
      float dur = 0, offset = 0;
      if (state > 0 && api_.elapsed_ms(p.start, p.stop, &dur) &&
          api_.elapsed_ms(ref.event, p.start, &offset)) {
        gpu_op_timing t;
        t.op = static_cast<gpu_op_desc&&>(p.desc);
        t.device = device_;
        t.begin_ns = ref.host_ns + static_cast<int64_t>(static_cast<double>(offset) * 1e6);
        t.dur_ns = static_cast<int64_t>(static_cast<double>(dur) * 1e6);
        done_.push_back(static_cast<gpu_op_timing&&>(t));
      } else {
        ++lost_;
      }
      release(i);
    }
    pending_.resize(keep);
    retire_references();
  }

  // Takes the resolved timings out.
  void collect(std::vector<gpu_op_timing>& out) {
    for (gpu_op_timing& t : done_) out.push_back(static_cast<gpu_op_timing&&>(t));
    done_.clear();
  }

  size_t pending() const { return pending_.size(); }
  size_t pairs() const { return pairs_.size(); }
  uint64_t dropped() const { return dropped_; }  // untimed: the pool was full
  uint64_t lost() const { return lost_; }        // recorded but unreadable (runtime error)
  bool failed() const { return failed_; }
  size_t live_references() const {
    size_t n = 0;
    for (const reference& r : refs_) n += r.event != nullptr;
    return n;
  }

 private:
  enum : uint8_t { slot_free = 0, slot_begun, slot_ended };
  struct pair_slot {
    void* start = nullptr;
    void* stop = nullptr;
    void* stream = nullptr;
    uint32_t ref = 0;
    uint8_t state = slot_free;
    gpu_op_desc desc;
  };
  struct reference {
    void* event = nullptr;
    int64_t recorded_ns = 0;  // host time when recorded
    int64_t host_ns = 0;      // host time it happened (valid once placed)
    bool placed = false;
    uint32_t users = 0;       // pairs measured from it, not yet resolved
  };

  uint32_t fail() {
    failed_ = true;
    return 0;
  }

  bool grow() {
    if (pairs_.size() >= max_pairs_) return false;
    // Doubling keeps creation rare; the first few pairs come one at a time.
    size_t add = pairs_.empty() ? 16 : pairs_.size();
    if (pairs_.size() + add > max_pairs_) add = max_pairs_ - pairs_.size();
    for (size_t k = 0; k < add; ++k) {
      pair_slot p;
      p.start = api_.create_event(device_);
      p.stop = p.start ? api_.create_event(device_) : nullptr;
      if (!p.stop) {
        if (p.start) api_.destroy_event(p.start);
        fail();
        return !free_.empty();
      }
      free_.push_back(static_cast<uint32_t>(pairs_.size()));
      pairs_.push_back(static_cast<pair_slot&&>(p));
    }
    return true;
  }

  void release(uint32_t i) {
    pair_slot& p = pairs_[i];
    if (p.state != slot_free) --refs_[p.ref].users;
    p.state = slot_free;
    p.desc = gpu_op_desc();
    free_.push_back(i);
  }

  bool ensure_reference(void* stream, int64_t host_ns) {
    if (!refs_.empty() && host_ns - refs_.back().recorded_ns < k_reference_period_ns) return true;
    reference r;
    r.event = api_.create_event(device_);
    if (!r.event || !api_.record(r.event, stream)) {
      if (r.event) api_.destroy_event(r.event);
      fail();
      return false;
    }
    r.recorded_ns = host_ns;
    if (refs_.empty()) {  // the origin: assumed to happen when recorded
      r.host_ns = host_ns;
      r.placed = true;
    }
    refs_.push_back(r);
    return true;
  }

  // 1 happened, 0 not yet, -1 error.
  int happened(void* event, bool wait) {
    if (wait) return api_.wait(event) ? 1 : -1;
    return api_.query(event);
  }

  void resolve_references(bool wait) {
    for (size_t k = 1; k < refs_.size(); ++k) {
      reference& r = refs_[k];
      if (r.placed) continue;
      const reference& prev = refs_[k - 1];
      if (!prev.placed || !prev.event) break;
      const int state = happened(r.event, wait);
      if (state == 0) break;
      float ms = 0;
      if (state < 0 || happened(prev.event, wait) <= 0 || !api_.elapsed_ms(prev.event, r.event, &ms)) {
        // Unplaceable: measure from the previous reference's placement instead of losing ops.
        r.host_ns = prev.host_ns + (r.recorded_ns - prev.recorded_ns);
      } else {
        r.host_ns = prev.host_ns + static_cast<int64_t>(static_cast<double>(ms) * 1e6);
      }
      r.placed = true;
    }
  }

  // A reference no pending pair uses, older than a placed one, is no longer needed.
  void retire_references() {
    size_t newest_placed = 0;
    for (size_t k = 0; k < refs_.size(); ++k)
      if (refs_[k].placed) newest_placed = k;
    for (size_t k = 0; k < newest_placed; ++k) {
      reference& r = refs_[k];
      if (r.event && r.users == 0) {
        api_.destroy_event(r.event);
        r.event = nullptr;
      }
    }
  }

  gpu_event_api& api_;
  int device_;
  size_t max_pairs_;
  std::vector<pair_slot> pairs_;
  std::vector<uint32_t> free_, pending_;
  std::vector<reference> refs_;
  std::vector<gpu_op_timing> done_;
  uint32_t ends_since_resolve_ = 0;
  uint64_t dropped_ = 0, lost_ = 0;
  bool failed_ = false;
};

}  // namespace detail
PROBE_END_NAMESPACE
