// Data-flow per byte range: which op output last wrote each byte, per device. An input is
// linked to every output whose bytes it reads (a KV cache read by attention has one writer per
// earlier position). Internal header.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Ranges are disjoint and kept sorted by (device, start) in one vector: lookups are binary
// searches, and the number of live outputs is small.
class producer_map {
 public:
  // A range some output wrote, as seen from a reader's range.
  struct piece {
    std::string key;
    uint64_t seq = 0;
    int64_t step = 0;          // the writer's step
    uintptr_t lo = 0, hi = 0;  // the part inside the reader's range
    bool whole = false;        // the writer's whole range lies inside the reader's
    bool hashed = false;       // `hash` is what the writer left in [lo, hi) (whole ranges only)
    uint64_t hash = 0;
    bool read = false;         // an op has read some of these bytes since they were written
    uintptr_t origin = 0;      // where the writer's whole output starts: lo - origin is the piece's
                               // byte offset in that output
  };

  // v's bytes were written by output `key` of op `seq`; `hash` (when `hashed`) is the content
  // hash of its whole byte range as written.
  void record(const tensor_view& v, const std::string& key, uint64_t seq, bool hashed = false, uint64_t hash = 0,
              int64_t step = 0) {
    uintptr_t lo, hi;
    if (!byte_range(v, &lo, &hi)) return;
    const int dev = device_key(v);
    // Trim or drop every range overlapping [lo, hi): the new output overwrote that memory.
    size_t i = first_not_before(dev, lo);
    if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > lo) --i;
    std::vector<entry> keep;  // pieces of overlapped ranges that stick out on either side
    size_t end = i;
    while (end < ranges_.size() && ranges_[end].dev == dev && ranges_[end].lo < hi) {
      const entry& e = ranges_[end];
      // A trimmed piece's hash no longer describes it: it is not checked any more.
      if (e.lo < lo) keep.push_back(entry{dev, e.lo, lo, e.key, e.seq, false, 0, e.step, e.read, e.origin});
      if (e.hi > hi) keep.push_back(entry{dev, hi, e.hi, e.key, e.seq, false, 0, e.step, e.read, e.origin});
      ++end;
    }
    ranges_.erase(ranges_.begin() + static_cast<ptrdiff_t>(i), ranges_.begin() + static_cast<ptrdiff_t>(end));
    entry fresh{dev, lo, hi, key, seq, hashed, hash, step, false, lo};
    if (!keep.empty() && keep[0].lo < lo) {
      ranges_.insert(ranges_.begin() + static_cast<ptrdiff_t>(i++), keep[0]);
      keep.erase(keep.begin());
    }
    ranges_.insert(ranges_.begin() + static_cast<ptrdiff_t>(i++), fresh);
    if (!keep.empty()) ranges_.insert(ranges_.begin() + static_cast<ptrdiff_t>(i), keep[0]);
  }

  // Every recorded range overlapping v's bytes, in address order.
  std::vector<piece> find(const tensor_view& v) const {
    std::vector<piece> out;
    uintptr_t lo, hi;
    if (!byte_range(v, &lo, &hi)) return out;
    const int dev = device_key(v);
    size_t i = first_not_before(dev, lo);
    if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > lo) --i;
    for (; i < ranges_.size() && ranges_[i].dev == dev && ranges_[i].lo < hi; ++i) {
      const entry& e = ranges_[i];
      piece p;
      p.key = e.key;
      p.seq = e.seq;
      p.step = e.step;
      p.lo = e.lo > lo ? e.lo : lo;
      p.hi = e.hi < hi ? e.hi : hi;
      p.whole = e.lo >= lo && e.hi <= hi;
      p.hashed = p.whole && e.hashed;
      p.hash = e.hash;
      p.read = e.read;
      p.origin = e.origin;
      out.push_back(p);
    }
    return out;
  }

  // An op read v's bytes: their writers' outputs were consumed.
  void mark_read(const tensor_view& v) {
    uintptr_t lo, hi;
    if (!byte_range(v, &lo, &hi)) return;
    const int dev = device_key(v);
    size_t i = first_not_before(dev, lo);
    if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > lo) --i;
    for (; i < ranges_.size() && ranges_[i].dev == dev && ranges_[i].lo < hi; ++i) ranges_[i].read = true;
  }

  bool empty() const noexcept { return ranges_.empty(); }
  void clear() { ranges_.clear(); }

  // The bytes a view spans, from its lowest to its highest element (false: no data).
  static bool byte_range(const tensor_view& v, uintptr_t* lo, uintptr_t* hi) {
    if (!v.valid() || !v.data || v.batch || v.numel() == 0) return false;
    const int64_t item = static_cast<int64_t>(v.itemsize());
    int64_t first = 0, last = 0;
    for (int i = 0; i < v.ndim; ++i) {
      const int64_t span = (v.shape[i] - 1) * v.strides[i];
      if (span < 0) first += span; else last += span;
    }
    const uintptr_t base = reinterpret_cast<uintptr_t>(v.data);
    *lo = base + static_cast<uintptr_t>(first * item);
    *hi = base + static_cast<uintptr_t>((last + 1) * item);
    return true;
  }

 private:
  struct entry {
    int dev;
    uintptr_t lo, hi;
    std::string key;
    uint64_t seq;
    bool hashed;
    uint64_t hash;
    int64_t step;
    bool read;
    uintptr_t origin;
  };
  // Index of the first range at or after (dev, lo).
  size_t first_not_before(int dev, uintptr_t lo) const noexcept {
    size_t a = 0, b = ranges_.size();
    while (a < b) {
      const size_t m = (a + b) / 2;
      const entry& e = ranges_[m];
      if (e.dev < dev || (e.dev == dev && e.lo < lo)) a = m + 1; else b = m;
    }
    return a;
  }
  static int device_key(const tensor_view& v) { return v.where.kind == device::host ? -1 : v.where.index; }
  std::vector<entry> ranges_;
};

}  // namespace detail
PROBE_END_NAMESPACE
