// Op records: sequence numbers, occurrences, steps, nesting, threads, data-flow edges, and
// the listeners (effects) that observe them. Internal: effects observe ops through op_listener.
#pragma once
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <string>

#include "../util/log.hpp"
#include <vector>
#include "../util/string_table.hpp"
#include "../util/sync.hpp"
#include "../util/thread_id.hpp"
#include "op.hpp"
#include "op_context.hpp"
#include "options.hpp"
#include "tensor_reader.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct recorded_tensor {
  io which;
  std::string slot;
  tensor_view view;
  std::string producer;  // key of the op output this input came from ("" if none)
  tensor gathered;       // a batch_view's samples, gathered: `view` shows this copy
};

// op::attr(name, value): an attribute, copied out of the caller's value.
struct op_attribute {
  std::string name;
  attr_kind kind = attr_kind::integer;
  int64_t i = 0;              // boolean, integer
  double d = 0;               // real
  std::string text;           // text
  std::vector<int64_t> ints;  // ints
};

// Attributes are parameters, not data: past these sizes the attribute is refused (with one
// message) rather than bloating every manifest line and snapshot.
constexpr size_t k_attr_text_cap = 4096;
constexpr size_t k_attr_list_cap = 1024;

// op::link(slot, producer_key): the producer an input slot names explicitly.
struct explicit_link {
  std::string slot, producer;
};

struct op_record {
  uint64_t seq = 0;         // global, from 1, in begin order
  int64_t step = 0;         // probe::current_step() at begin
  uint64_t occurrence = 0;  // how many ops of this name began before this one
  std::string name, type;
  op_record* parent = nullptr;  // enclosing op on the same thread
  uint32_t thread = 0;          // small per-process thread index (detail::thread_index)
  int64_t wall_ns = 0;          // CLOCK_REALTIME at begin
  int64_t mono_begin_ns = 0, mono_end_ns = 0;
  std::vector<recorded_tensor> tensors;   // in the order given
  std::vector<recorded_tensor> deferred;  // output_at_end views, emitted by op_end
  std::vector<explicit_link> links;
  std::vector<op_attribute> attrs;  // in the order first given; a name given again replaces its value
  // The listeners this op began with: it reports its tensors and its end to the same ones,
  // even when the options change meanwhile. Listener i keeps its state for this op in scratch[i].
  const struct listener_set* listeners = nullptr;
  uint64_t scratch[8] = {};

  // "<op>#<occurrence>/<io>/<slot>": stable across runs that execute the same ops.
  std::string key(io which, const char* slot) const {
    std::string k = name;
    k += '#';
    k += std::to_string(occurrence);
    k += which == io::in ? "/in/" : "/out/";
    k += slot;
    return k;
  }
};

// Effects implement this; core calls them in registration order. Never throws. `state` is
// the listener's own word of per-op state (zero at begin), the same in every call for an op.
class op_listener {
 public:
  virtual ~op_listener() = default;
  virtual void on_begin(op_record&, uint64_t& /*state*/) noexcept {}
  virtual void on_tensor(op_record&, const recorded_tensor&, uint64_t& /*state*/) noexcept {}
  virtual void on_end(op_record&, uint64_t& /*state*/) noexcept {}
};

// The listeners of one set of options, in call order. Immutable once published, never freed:
// ops begun under it may still be running.
struct listener_set {
  static constexpr int k_capacity = 8;
  int count = 0;
  op_listener* list[k_capacity] = {};
};

inline int64_t mono_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
inline int64_t wall_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Byte ranges of the most recent output written to each region, per device, so an input that
// reads an earlier output is linked to it. Ranges are disjoint and kept sorted by (device,
// start) in one vector: lookups are binary searches, and the number of live outputs is small.
class producer_map {
 public:
  void record(const tensor_view& v, const std::string& key, uint64_t seq) {
    uintptr_t lo, hi;
    if (!range(v, &lo, &hi)) return;
    const int dev = device_key(v);
    // Trim or drop every range overlapping [lo, hi): the new output overwrote that memory.
    size_t i = first_not_before(dev, lo);
    if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > lo) --i;
    std::vector<entry> keep;  // pieces of overlapped ranges that stick out on either side
    size_t end = i;
    while (end < ranges_.size() && ranges_[end].dev == dev && ranges_[end].lo < hi) {
      const entry& e = ranges_[end];
      if (e.lo < lo) keep.push_back(entry{dev, e.lo, lo, e.key, e.seq});
      if (e.hi > hi) keep.push_back(entry{dev, hi, e.hi, e.key, e.seq});
      ++end;
    }
    ranges_.erase(ranges_.begin() + (i), ranges_.begin() + (end));
    entry fresh{dev, lo, hi, key, seq};
    if (!keep.empty() && keep[0].lo < lo) {
      ranges_.insert(ranges_.begin() + (i++), keep[0]);
      keep.erase(keep.begin());
    }
    ranges_.insert(ranges_.begin() + (i++), fresh);
    if (!keep.empty()) ranges_.insert(ranges_.begin() + (i), keep[0]);
  }
  // The key of the most recent output overlapping v's bytes, or "".
  std::string find(const tensor_view& v) const {
    uintptr_t lo, hi;
    if (!range(v, &lo, &hi)) return {};
    const int dev = device_key(v);
    size_t i = first_not_before(dev, lo);
    if (i > 0 && ranges_[i - 1].dev == dev && ranges_[i - 1].hi > lo) --i;
    const entry* best = nullptr;
    for (; i < ranges_.size() && ranges_[i].dev == dev && ranges_[i].lo < hi; ++i)
      if (!best || ranges_[i].seq > best->seq) best = &ranges_[i];
    return best ? best->key : std::string();
  }
  void clear() { ranges_.clear(); }

 private:
  struct entry {
    int dev;
    uintptr_t lo, hi;
    std::string key;
    uint64_t seq;
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
  static int device_key(const tensor_view& v) {
    return v.where.kind == device::host ? -1 : v.where.index;
  }
  static bool range(const tensor_view& v, uintptr_t* lo, uintptr_t* hi) {
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
  std::vector<entry> ranges_;
};

struct op_context {
  mutex m;  // guards occurrences and producers
  string_table occurrences;  // op name -> executions begun
  producer_map producers;
  uint64_t next_seq = 0;  // atomic
  bool track_edges = false;  // atomic
  const listener_set* listeners = nullptr;  // replaced whole (one atomic pointer)
};
PROBE_API op_context& context();

// t_current_op: core/op_context.hpp (PROBE_SCOPE reads it inline).

// Called by the wiring whenever options change. `set` must outlive every op.
PROBE_API void set_op_listeners(const listener_set* set, bool track_edges) noexcept;

// Starts numbering afresh (sequence numbers, occurrences, producer ranges): a new set of
// options is a new run, whose keys and file names must not depend on what ran before.
PROBE_API void reset_op_counters() noexcept;

// The innermost op scope open on this thread (nullptr outside every op).
inline op_record* current_op() noexcept { return t_current_op; }

// Calls f(listener, its state word) for each listener the op began with.
template <class F>
void for_each_listener(op_record& r, F&& f) noexcept {
  const listener_set* s = r.listeners;
  if (!s) return;
  for (int i = 0; i < s->count; ++i) f(*s->list[i], r.scratch[i]);
}

PROBE_API op_record* op_begin(const char* name, const char* type) noexcept;

PROBE_API void emit_tensor(op_record* r, io which, const char* slot, const tensor_view& v) noexcept;

PROBE_API void op_tensor(op_record* r, io which, const char* slot, const tensor_view& v) noexcept;

PROBE_API void op_defer_output(op_record* r, const char* slot, const tensor_view& v) noexcept;

PROBE_API void op_link(op_record* r, const char* slot, const char* producer_key) noexcept;

PROBE_API void op_attr(op_record* r, const char* name, const attr_arg& a) noexcept;

PROBE_API void op_end(op_record* r) noexcept;

PROBE_API uint64_t op_sequence(const op_record* r) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
