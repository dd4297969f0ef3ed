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
// searches, and the number of live outputs is small. A strided view is its runs of contiguous
// bytes, not the span from its first to its last: workers writing interleaved rows of one
// buffer each own their rows, and a reader of some rows meets only their writers.
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

  // A view of more runs than this is taken as its span: the map stays small and a record
  // cheap (a record costs a range per run), at the cost of the precision above for views that
  // fine-grained.
  static constexpr size_t k_most_runs = 32;

  // v's bytes were written by output `key` of op `seq`; `hash` (when `hashed`) is the content
  // hash of its whole byte range as written (a contiguous view's).
  void record(const tensor_view& v, const std::string& key, uint64_t seq, bool hashed = false, uint64_t hash = 0,
              int64_t step = 0) {
    if (!runs_of(v, &runs_)) return;
    const int dev = device_key(v);
    const uintptr_t origin = runs_.front().lo, end_of_all = runs_.back().hi;
    // A hash covers the whole view: it describes a range only when the view is one run.
    const writer w{dev, &key, seq, hashed && runs_.size() == 1, hash, step, origin};
    if (rewrite_in_place(w)) return;
    // The window of ranges overlapping the runs' span: each keeps what no run overwrote.
    size_t i = first_not_before(dev, origin);
    if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > origin) --i;
    size_t end = i;
    while (end < ranges_.size() && ranges_[end].dev == dev && ranges_[end].lo < end_of_all) ++end;
    merged_.clear();
    size_t next_run = 0;  // the first run not yet placed
    size_t first_over = 0;  // the first run ending after the range at hand starts
    for (size_t k = i; k < end; ++k) {
      const entry& e = ranges_[k];
      while (first_over < runs_.size() && runs_[first_over].hi <= e.lo) ++first_over;
      if (first_over == runs_.size() || runs_[first_over].lo >= e.hi) {  // in a gap: kept whole, moved
        for (; next_run < runs_.size() && runs_[next_run].lo < e.lo; ++next_run) merged_.push_back(fresh(w, runs_[next_run]));
        merged_.push_back(std::move(ranges_[k]));
        continue;
      }
      uintptr_t at = e.lo;
      for (size_t q = first_over; q < runs_.size() && runs_[q].lo < e.hi; ++q) {
        if (runs_[q].lo > at) keep_piece(e, at, runs_[q].lo, w, &next_run);
        if (runs_[q].hi > at) at = runs_[q].hi;
      }
      if (at < e.hi) keep_piece(e, at, e.hi, w, &next_run);
    }
    for (; next_run < runs_.size(); ++next_run) merged_.push_back(fresh(w, runs_[next_run]));
    // One erase and one insert: the window is replaced whatever the number of runs. The room
    // is made first, so that running out of memory leaves the map as it was.
    if (merged_.size() > end - i) {
      const size_t need = ranges_.size() + (merged_.size() - (end - i));
      if (need > ranges_.capacity()) ranges_.reserve(need > 2 * ranges_.capacity() ? need : 2 * ranges_.capacity());
    }
    const size_t common = end - i < merged_.size() ? end - i : merged_.size();
    for (size_t k = 0; k < common; ++k) ranges_[i + k] = std::move(merged_[k]);
    if (merged_.size() > common) {
      ranges_.insert(ranges_.begin() + static_cast<ptrdiff_t>(i + common), merged_.size() - common, entry());
      for (size_t k = common; k < merged_.size(); ++k) ranges_[i + k] = std::move(merged_[k]);
    } else {
      ranges_.erase(ranges_.begin() + static_cast<ptrdiff_t>(i + common), ranges_.begin() + static_cast<ptrdiff_t>(end));
    }
  }

  // Every recorded range overlapping v's bytes, in address order (a strided reader's: those
  // its runs overlap, cut to them).
  std::vector<piece> find(const tensor_view& v) {
    std::vector<piece> out;
    if (!runs_of(v, &runs_)) return out;
    const int dev = device_key(v);
    for (const span& r : runs_) {
      size_t i = first_not_before(dev, r.lo);
      if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > r.lo) --i;
      for (; i < ranges_.size() && ranges_[i].dev == dev && ranges_[i].lo < r.hi; ++i) {
        const entry& e = ranges_[i];
        piece p;
        p.key = e.key;
        p.seq = e.seq;
        p.step = e.step;
        p.lo = e.lo > r.lo ? e.lo : r.lo;
        p.hi = e.hi < r.hi ? e.hi : r.hi;
        p.whole = e.lo >= r.lo && e.hi <= r.hi;
        p.hashed = p.whole && e.hashed;
        p.hash = e.hash;
        p.read = e.read;
        p.origin = e.origin;
        out.push_back(std::move(p));
      }
    }
    return out;
  }

  // An op read v's bytes: their writers' outputs were consumed.
  void mark_read(const tensor_view& v) {
    if (!runs_of(v, &runs_)) return;
    const int dev = device_key(v);
    for (const span& r : runs_) {
      size_t i = first_not_before(dev, r.lo);
      if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > r.lo) --i;
      for (; i < ranges_.size() && ranges_[i].dev == dev && ranges_[i].lo < r.hi; ++i) ranges_[i].read = true;
    }
  }

  bool empty() const noexcept { return ranges_.empty(); }
  void clear() { ranges_.clear(); }
  size_t ranges() const noexcept { return ranges_.size(); }

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

  struct span {
    uintptr_t lo, hi;
  };

  // The runs of contiguous bytes v covers, in address order, those that touch or overlap
  // joined; its span alone when it has more than k_most_runs (false: no data).
  static bool runs_of(const tensor_view& v, std::vector<span>* out) {
    out->clear();
    uintptr_t lo, hi;
    if (!byte_range(v, &lo, &hi)) return false;
    out->push_back(span{lo, hi});
    if (v.is_contiguous()) return true;
    // The dims that move, by stride: the bytes are the same whatever their order and sign.
    struct dim {
      int64_t n, s;
    } d[max_dims];
    int m = 0;
    for (int i = 0; i < v.ndim; ++i) {
      if (v.shape[i] < 2 || v.strides[i] == 0) continue;
      dim x{v.shape[i], v.strides[i] < 0 ? -v.strides[i] : v.strides[i]};
      int at = m++;
      for (; at > 0 && d[at - 1].s > x.s; --at) d[at] = d[at - 1];
      d[at] = x;
    }
    int64_t run = 1;  // elements in the innermost contiguous run
    int inner = 0;
    while (inner < m && d[inner].s == run) run *= d[inner++].n;
    uint64_t count = 1;
    for (int k = inner; k < m; ++k) {
      count *= static_cast<uint64_t>(d[k].n);
      if (count > k_most_runs) return true;
    }
    if (count == 1) return true;
    const uintptr_t item = v.itemsize();
    out->clear();
    int64_t idx[max_dims] = {};
    int64_t off = 0;  // elements from the lowest one
    for (;;) {
      const uintptr_t a = lo + static_cast<uintptr_t>(off) * item;
      out->push_back(span{a, a + static_cast<uintptr_t>(run) * item});
      int k = inner;
      for (; k < m; ++k) {
        if (++idx[k] < d[k].n) {
          off += d[k].s;
          break;
        }
        off -= (d[k].n - 1) * d[k].s;
        idx[k] = 0;
      }
      if (k == m) break;
    }
    // In address order already unless the dims overlap (a sliding window): sort what is not.
    for (size_t k = 1; k < out->size(); ++k) {
      const span x = (*out)[k];
      size_t at = k;
      for (; at > 0 && (*out)[at - 1].lo > x.lo; --at) (*out)[at] = (*out)[at - 1];
      (*out)[at] = x;
    }
    size_t w = 0;
    for (size_t k = 1; k < out->size(); ++k) {
      if ((*out)[k].lo <= (*out)[w].hi) {
        if ((*out)[k].hi > (*out)[w].hi) (*out)[w].hi = (*out)[k].hi;
      } else {
        (*out)[++w] = (*out)[k];
      }
    }
    out->resize(w + 1);
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
  // What a record writes into each of its runs.
  struct writer {
    int dev;
    const std::string* key;
    uint64_t seq;
    bool hashed;
    uint64_t hash;
    int64_t step;
    uintptr_t origin;
  };
  // Whether each run is exactly a recorded range (a loop's op writing the same rows again):
  // then each is reassigned where it lies, and no range moves.
  bool rewrite_in_place(const writer& w) {
    found_.clear();
    for (const span& r : runs_) {
      const size_t at = first_not_before(w.dev, r.lo);
      if (at == ranges_.size() || ranges_[at].dev != w.dev || ranges_[at].lo != r.lo || ranges_[at].hi != r.hi) return false;
      found_.push_back(at);
    }
    for (size_t at : found_) {
      entry& e = ranges_[at];
      e.key.assign(*w.key);  // the same length as last time: no allocation
      e.seq = w.seq;
      e.hashed = w.hashed;
      e.hash = w.hash;
      e.step = w.step;
      e.read = false;
      e.origin = w.origin;
    }
    return true;
  }
  static entry fresh(const writer& w, const span& r) {
    return entry{w.dev, r.lo, r.hi, *w.key, w.seq, w.hashed, w.hash, w.step, false, w.origin};
  }
  // Keeps [lo, hi) of an earlier range e, after placing the new runs that start before it.
  void keep_piece(const entry& e, uintptr_t lo, uintptr_t hi, const writer& w, size_t* next_run) {
    for (; *next_run < runs_.size() && runs_[*next_run].lo < lo; ++*next_run) merged_.push_back(fresh(w, runs_[*next_run]));
    // A trimmed piece's hash no longer describes it: it is not checked any more.
    const bool whole = lo == e.lo && hi == e.hi;
    merged_.push_back(entry{e.dev, lo, hi, e.key, e.seq, whole && e.hashed, whole ? e.hash : 0, e.step, e.read, e.origin});
  }
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
  std::vector<span> runs_;      // scratch: the view at hand's runs
  std::vector<entry> merged_;   // scratch: a record's new window
  std::vector<size_t> found_;   // scratch: the ranges a record rewrites in place
};

}  // namespace detail
PROBE_END_NAMESPACE
