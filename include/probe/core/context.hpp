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
#include "producer_map.hpp"
#include "../util/sync.hpp"
#include "../util/thread_id.hpp"
#include "op.hpp"
#include "op_context.hpp"
#include "options.hpp"
#include "tensor_reader.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// One op output that last wrote a byte range of an input: `bytes` of the input from byte
// `offset` (of the input's address range) on.
struct producer_ref {
  std::string key;
  uint64_t bytes = 0, offset = 0;
  uint64_t seq = 0;  // the producing op's sequence number
  uint64_t at = 0;   // where these bytes start in the producer's output (its lowest byte: 0)
  bool rows = false; // the bytes are equally spaced rows from `offset`, not one range (a head's
                     // rows of [T, H, D]): no snapshot piece can be copied from them
};

struct recorded_tensor {
  io which = io::in;
  std::string slot;
  tensor_view view;
  std::string producer;  // key of the op output this input came from ("" if none): the main producer
  std::vector<producer_ref> producers;  // inputs: every latest writer of its bytes, in address order
  bool inout = false;     // declared with op::inout (recorded once as input, once as output)
  bool implicit = false;  // an input the library added: the prior state of an output written in place
  // An implicit input found after the kernel ran: its bytes hold the op's result, so they are
  // never read (view.data is null); its prior state is what `producers` recorded.
  bool unread = false;
  bool have_hash = false;  // `hash` is the content hash of the row-major bytes, read at the call
  uint64_t hash = 0;
  // Breakpoint frames show this copy, made at the call (options::frame_values): the program
  // may free or rewrite the view's memory before a stop inside the op. Empty when not made;
  // `not_kept` then says why, when the reason is not simply that no stop reads frames.
  tensor kept;
  std::string not_kept;
  std::string stale_producer, stale_last_op;  // inputs: a producer whose bytes changed since (see docs/dump.md)
  // A worker's input no op wrote, inside an input of an op enclosing it (that input's key,
  // and where these bytes start in it): which part of the op's data the worker reads, in
  // words that do not depend on the values.
  std::string within;
  uint64_t within_at = 0;
  tensor gathered;       // a batch_view's samples, gathered: `view` shows this copy
  std::vector<const void*> batch_pointers;  // output_at_end of a batch_view: its pointer array, copied at the call
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
  // The thread lineage the op belongs to: the thread index of the thread that began its
  // outermost op (a worker that adopted an op context joins that op's lane). Occurrences
  // counted per lane do not depend on how other threads are scheduled, which the run-wide
  // `occurrence` does: compare pairs copies of one network run on threads by lane.
  uint32_t lane = 0;
  uint64_t lane_occurrence = 0;  // how many ops of this name began before this one in its lane
  uint32_t module = 0;          // engine IR module it was compiled from (probe::ir_run); 0: none
  std::vector<recorded_tensor> tensors;   // in the order given
  std::vector<recorded_tensor> deferred;  // output_at_end views, emitted by op_end
  std::vector<explicit_link> links;
  std::vector<op_attribute> attrs;  // in the order first given; a name given again replaces its value
  // The listeners this op began with: it reports its tensors and its end to the same ones,
  // even when the options change meanwhile. Listener i keeps its state for this op in scratch[i].
  const struct listener_set* listeners = nullptr;
  uint64_t scratch[8] = {};
  bool wants_tensors = false;  // some listener looks at tensors (op::records_tensors)
  bool tracks_outputs = false;  // none does, but data flow is followed: outputs' ranges are kept
  uint64_t kept_bytes = 0;      // bytes of its tensors' `kept` copies (op_context::frame_kept_bytes)
  bool ended = false;           // atomic: op_end ran (the record lives on while ops inside it are open)
  bool open_reads = false;      // it has entries in op_context::open_reads, removed at its end
  std::string previous_op;   // name of the op that began just before this one (stale inputs)

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
  // Whether this listener looks at the tensors of this op (its name, type and step are set):
  // when no listener does, the op's tensors are neither read nor hashed, and only the byte
  // ranges its outputs write are kept (the producers a later, recorded op may read).
  virtual bool wants_tensors_of(const op_record&) const noexcept { return true; }
};

// The listeners of one set of options, in call order. Immutable once published, never freed:
// ops begun under it may still be running.
struct listener_set {
  static constexpr int k_capacity = 8;
  int count = 0;
  op_listener* list[k_capacity] = {};
  bool tensors = false;  // some listener looks at op tensors: op::records_tensors()
  // Only listeners look at tensors (no breakpoint frames, no trace shapes): an op none of them
  // wants (op_listener::wants_tensors_of) reads nothing.
  bool ask_listeners = false;
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

// An input of an open op whose bytes no op wrote (or whose writers' bytes changed since):
// where the ops nested in it find what part of it they read (recorded_tensor::within).
struct open_read {
  uintptr_t lo = 0, hi = 0;
  int device = -1;
  uint64_t seq = 0;                 // the reading op's
  const op_record* op = nullptr;    // open while this entry exists: its key is built on a hit only
  std::string slot;                 // short: no allocation for most slot names
  std::string stale_producer, stale_last_op;  // its recorded_tensor's
};

struct op_context {
  mutex m;  // guards occurrences, lane_occurrences, producers, open_reads, last_name and noted
  string_table occurrences;  // op name -> executions begun
  string_table lane_occurrences;  // op name '\0' lane -> executions begun in that lane
  producer_map producers;
  std::vector<open_read> open_reads;  // few: the unwritten inputs of the ops open now
  std::string last_name;  // the op that began last (with track_edges)
  uint64_t next_seq = 0;  // atomic
  bool track_edges = false;  // atomic
  uint64_t frame_kept_bytes = 0;  // atomic: copies held for breakpoint frames by open ops
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

// Records one tensor of the op and hands it to the listeners. Outputs: `check_rmw` looks for
// bytes an earlier op produced that the op did not declare as input (recorded as an implicit
// input first, see docs/dump.md).
PROBE_API void emit_tensor(op_record* r, io which, const char* slot, const tensor_view& v, bool inout = false,
                           bool check_rmw = true, bool implicit = false, bool unread = false) noexcept;

PROBE_API void op_tensor(op_record* r, io which, const char* slot, const tensor_view& v) noexcept;

PROBE_API void op_defer_output(op_record* r, const char* slot, const tensor_view& v) noexcept;

PROBE_API void op_link(op_record* r, const char* slot, const char* producer_key) noexcept;

PROBE_API void op_attr(op_record* r, const char* name, const attr_arg& a) noexcept;

PROBE_API void op_end(op_record* r) noexcept;

PROBE_API uint64_t op_sequence(const op_record* r) noexcept;

PROBE_API bool op_records_tensors(const op_record* r) noexcept;

PROBE_API op_record* op_begin_indexed(const char* name, const char* type, int64_t index) noexcept;

PROBE_API void op_inout(op_record* r, const char* slot, const tensor_view& v) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
