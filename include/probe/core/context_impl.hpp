// context: definitions (see context.hpp).
#pragma once
#include <string.h>

#include "context.hpp"
#include "../util/hash.hpp"
#include "../util/int_text.hpp"
#include "../util/text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API op_context& context() {
  static op_context* c = [] {
    op_context* p = new op_context();  // never destroyed: ops may run during exit
    // A forked child numbers its ops afresh (its dump is a run of its own); the lock is
    // held across fork so that the child never inherits it taken.
    pthread_atfork([] { context().m.lock(); }, [] { context().m.unlock(); },
                   [] {
                     op_context& k = context();
                     k.next_seq = 0;
                     k.occurrences.clear();
                     k.lane_occurrences.clear();
                     k.producers.clear();
                     k.m.unlock();
                   });
    return p;
  }();
  return *c;
}

PROBE_API void set_op_listeners(const listener_set* set, bool track_edges) noexcept {
  op_context& c = context();
  lock_guard<mutex> g(c.m);
  __atomic_store_n(&c.track_edges, track_edges, __ATOMIC_RELAXED);
  __atomic_store_n(&c.listeners, set, __ATOMIC_RELEASE);
}

PROBE_API void reset_op_counters() noexcept {
  op_context& c = context();
  lock_guard<mutex> g(c.m);
  __atomic_store_n(&c.next_seq, 0, __ATOMIC_RELAXED);
  c.occurrences.clear();
  c.lane_occurrences.clear();
  c.producers.clear();
  c.open_reads.clear();
}

// Each thread keeps the records of its last ended ops for its next ones: an op recorded only
// for timing allocates nothing once its name fits the record's string. A few are kept, not
// one, so that the records of nested ops stay readable after they end: a C caller that ends
// an op twice finds it marked ended (and is told) instead of reading freed memory. The
// pointers are plain thread-local data (no TLS wrapper on the op path); an object with a
// destructor frees them when the thread exits, registered the first time a record is kept.
constexpr unsigned k_spare_records = 8;  // a power of two: the records form a ring
inline thread_local op_record* t_spares[k_spare_records] = {};
inline thread_local unsigned t_spare_head = 0, t_spare_count = 0;  // the oldest, and how many
inline thread_local bool t_spare_state = false;  // false: no cleanup registered yet; true: registered
inline thread_local bool t_spare_gone = false;   // the thread is exiting: records are freed, not kept
struct spare_cleanup {
  void touch() noexcept {}
  ~spare_cleanup() {
    for (; t_spare_count > 0; --t_spare_count) delete t_spares[t_spare_head++ % k_spare_records];
    t_spare_gone = true;
  }
};
// Local to a function: a namespace-scope thread_local with a destructor would be emitted,
// with its TLS init function, in every header-only TU that includes this file.
inline void register_spare_cleanup() noexcept {
  static thread_local spare_cleanup cleanup;
  cleanup.touch();  // constructs it, and so registers its destructor
}

// The oldest kept record is taken first: a record ended just now keeps its `ended` mark
// longest.
inline op_record* take_record() {
  if (t_spare_count == 0) return new op_record();
  op_record* r = t_spares[t_spare_head % k_spare_records];
  ++t_spare_head;
  --t_spare_count;
  return r;
}

inline void give_back_record(op_record* r) noexcept {
  if (t_spare_gone) {
    delete r;
    return;
  }
  if (PROBE_UNLIKELY(!t_spare_state)) {
    t_spare_state = true;
    register_spare_cleanup();
  }
  r->tensors.clear();
  r->deferred.clear();
  r->links.clear();
  r->attrs.clear();
  r->previous_op.clear();
  r->parent = nullptr;
  r->listeners = nullptr;
  for (uint64_t& w : r->scratch) w = 0;
  r->wants_tensors = false;
  r->tracks_outputs = false;
  r->kept_bytes = 0;
  r->occurrence = 0;
  r->lane_occurrence = 0;
  if (t_spare_count == k_spare_records) {
    delete t_spares[t_spare_head++ % k_spare_records];
    --t_spare_count;
  }
  t_spares[(t_spare_head + t_spare_count++) % k_spare_records] = r;  // marked ended until taken again
}

// Ops of this thread that ended while an op begun inside them was still open (a C caller's
// ends out of order) or that another thread ended: their records are freed once no open op
// of this thread is inside them.
inline void pop_ended_ops() noexcept {
  const uint32_t me = thread_index();
  while (t_current_op && __atomic_load_n(&t_current_op->ended, __ATOMIC_ACQUIRE) && t_current_op->thread == me) {
    op_record* r = t_current_op;
    t_current_op = r->parent;
    give_back_record(r);
  }
}

// A recycled record usually held the same op last time (loops repeat their ops): comparing
// is cheaper than assigning.
inline void assign_if_changed(std::string& to, const char* from) {
  if (!from) from = "";
  const size_t n = strlen(from);
  if (to.size() == n && memcmp(to.data(), from, n) == 0) return;
  to.assign(from, n);
}

inline bool any_listener_wants_tensors(const op_record& r, const listener_set& set) noexcept {
  for (int i = 0; i < set.count; ++i)
    if (set.list[i]->wants_tensors_of(r)) return true;
  return false;
}

// An op no listener looks at: its output's byte range is recorded as produced by it, with
// no hash (its bytes are not read), so a later recorded op reading them names it.
inline void track_output(op_record* r, const char* slot, const tensor_view& v) noexcept {
  if (!v.where.is_host() || v.batch || !v.valid() || !v.data) return;
  op_context& c = context();
  try {
    const std::string key = r->key(io::out, slot ? slot : "");
    lock_guard<mutex> g(c.m);
    c.producers.record(v, key, r->seq, false, 0, r->step);
  } catch (...) {
  }
}

// Begins an op named `name`, or "L<index>.<name>" when index >= 0.
inline op_record* op_begin_named(const char* name, const char* type, int64_t index) noexcept {
  op_context& c = context();
  op_record* r = nullptr;
  const listener_set* set = __atomic_load_n(&c.listeners, __ATOMIC_ACQUIRE);
  try {
    r = take_record();
    if (index >= 0) {
      // "L<index>." built in a local buffer and assigned once, its length bounded for GCC's
      // -O3 range analysis (an append of a computed length trips -Wrestrict in libstdc++).
      char head[32];
      head[0] = 'L';
      char* e = put_int(head + 1, index);
      *e++ = '.';
      size_t len = static_cast<size_t>(e - head);
      if (len > sizeof head) len = sizeof head;
      r->name.assign(head, len);
      r->name += name ? name : "";
    } else {
      assign_if_changed(r->name, name);
    }
    assign_if_changed(r->type, type);
    r->seq = __atomic_add_fetch(&c.next_seq, 1, __ATOMIC_RELAXED);
    r->step = current_step();
    r->thread = thread_index();
    r->module = t_ir_running;
    if (t_current_op && __atomic_load_n(&t_current_op->ended, __ATOMIC_ACQUIRE)) pop_ended_ops();
    __atomic_store_n(&r->ended, false, __ATOMIC_RELAXED);
    r->parent = t_current_op;
    r->lane = r->parent ? r->parent->lane : r->thread;
    r->wants_tensors = set && set->tensors;
    // Occurrences make keys, which only effects that look at tensors use: timing alone
    // takes no lock.
    if (r->wants_tensors) {
      // Keys are written as JSON, where invalid UTF-8 reads as U+FFFD: a name is counted as
      // it will read, or two names differing only there would give two ops one key.
      if (!is_valid_utf8(r->name)) r->name = valid_utf8(r->name);
      const bool edges = __atomic_load_n(&c.track_edges, __ATOMIC_RELAXED);
      std::string in_lane = r->name;  // names hold no NUL: "<name>\0<lane>" is unambiguous
      in_lane += '\0';
      char digits[12];
      in_lane.append(digits, static_cast<size_t>(put_uint(digits, r->lane) - digits));
      lock_guard<mutex> g(c.m);
      r->occurrence = c.occurrences[r->name]++;
      r->lane_occurrence = c.lane_occurrences[in_lane]++;
      if (edges) {
        r->previous_op = c.last_name;
        c.last_name = r->name;
      }
    }
    if (r->wants_tensors && set->ask_listeners && !any_listener_wants_tensors(*r, *set)) {
      // Outside every filter (a step not dumped): nothing is read; the occurrence above keeps
      // keys the same as in a run that records this op, and the outputs' ranges keep the
      // producers of what a recorded op reads later.
      r->wants_tensors = false;
      r->tracks_outputs = __atomic_load_n(&c.track_edges, __ATOMIC_RELAXED);
    }
  } catch (...) {
    delete r;
    return nullptr;  // out of memory: this op goes unrecorded, the host goes on
  }
  t_current_op = r;
  r->listeners = set;
  for_each_listener(*r, [&](op_listener& l, uint64_t& state) { l.on_begin(*r, state); });
  return r;
}

PROBE_API op_record* op_begin(const char* name, const char* type) noexcept { return op_begin_named(name, type, -1); }

PROBE_API op_record* op_begin_indexed(const char* name, const char* type, int64_t index) noexcept {
  return op_begin_named(name, type, index < 0 ? 0 : index);
}

// The producers of an input's bytes, checked against what each wrote (when its hash is known):
// a range whose bytes changed since is not an edge but a stale producer.
inline void find_producers(op_context& c, const op_record& r, recorded_tensor& t, bool check) {
  std::vector<producer_map::piece> pieces;
  {
    lock_guard<mutex> g(c.m);
    if (c.producers.empty()) return;
    pieces = c.producers.find(t.view);
    if (check) c.producers.mark_read(t.view);  // an implicit input is no read
  }
  uintptr_t lo = 0, hi = 0;
  if (pieces.empty() || !view_bytes(t.view, &lo, &hi)) return;
  const bool host = t.view.where.is_host();
  const producer_ref* best = nullptr;
  for (const producer_map::piece& p : pieces) {
    if (check && host && p.hashed) {
      // The whole input is the producer's range: the input's own hash says it.
      const uint64_t now = p.lo == lo && p.hi == hi && t.have_hash
                               ? t.hash
                               : content_hash::of(reinterpret_cast<const void*>(p.lo), p.hi - p.lo);
      if (now != p.hash) {
        if (t.stale_producer.empty()) {
          t.stale_producer = p.key;
          t.stale_last_op = r.previous_op;
        }
        continue;
      }
    }
    if (!t.producers.empty() && t.producers.back().key == p.key) {
      // Pieces of one output one after the other: adjacent, or the runs of a strided view
      // (no other writer's bytes between them, so the reference says the same in one entry).
      t.producers.back().bytes += p.bytes;
      t.producers.back().rows = t.producers.back().rows || p.period > 0;
    } else {
      t.producers.push_back(producer_ref{p.key, p.bytes, p.lo - lo, p.seq, p.lo - p.origin, p.period > 0});
    }
  }
  // The main producer: the one covering most bytes; among equals the latest.
  for (const producer_ref& p : t.producers)
    if (!best || p.bytes > best->bytes || (p.bytes == best->bytes && p.seq > best->seq)) best = &p;
  if (best) t.producer = best->key;
}

inline int device_index_of(const tensor_view& v) noexcept { return v.where.is_host() ? -1 : v.where.index; }

// Inputs no op wrote (none, or every writer's bytes changed since): an op's are kept while it
// is open, and an op nested in it (a worker over its rows) that reads part of them reads that
// input: writers older than the enclosing op are that input's (it found them missing or
// stale; a writer's hash covers its whole output, so a part of it could not show the bytes
// changed), and where it lies in it is recorded. Writers inside the enclosing op (a kernel of
// a block updating its input in place) stay this input's producers.
inline void place_in_enclosing_read(op_context& c, const op_record& r, recorded_tensor& t) {
  uintptr_t lo = 0, hi = 0;
  if (!r.parent || !view_bytes(t.view, &lo, &hi)) return;
  const int device = device_index_of(t.view);
  uint64_t enclosing[64];
  size_t depth = 0;
  for (const op_record* p = r.parent; p && depth < 64; p = p->parent) enclosing[depth++] = p->seq;
  uintptr_t outer_lo = 0;
  {
    lock_guard<mutex> g(c.m);
    const open_read* hit = nullptr;
    for (size_t i = c.open_reads.size(); i-- > 0 && !hit;) {
      const open_read& o = c.open_reads[i];
      bool encloses = false;
      for (size_t k = 0; k < depth && !encloses; ++k) encloses = enclosing[k] == o.seq;
      if (encloses && o.device == device && o.lo <= lo && hi <= o.hi) hit = &o;
    }
    if (!hit) return;
    for (const producer_ref& p : t.producers)
      if (p.seq > hit->seq) return;  // written inside the enclosing op: an edge of its own
    outer_lo = hit->lo;
    t.within = hit->op->key(io::in, hit->slot.c_str());  // its op is open while the entry is kept
    t.stale_producer = hit->stale_producer;
    t.stale_last_op = hit->stale_last_op;
  }
  t.producers.clear();
  t.producer.clear();
  t.within_at = lo - outer_lo;
}

inline void keep_unwritten_read(op_context& c, op_record& r, const recorded_tensor& t) {
  constexpr size_t k_most_open_reads = 4096;  // ops a C caller never ended must not grow it
  uintptr_t lo = 0, hi = 0;
  if (!view_bytes(t.view, &lo, &hi)) return;
  open_read mine{lo, hi, device_index_of(t.view), r.seq, &r, t.slot, t.stale_producer, t.stale_last_op};
  lock_guard<mutex> g(c.m);
  if (c.open_reads.size() >= k_most_open_reads) return;
  c.open_reads.push_back(std::move(mine));
  r.open_reads = true;
}

// Whether an input already given to the op covers any byte of v.
inline bool declared_as_input(const op_record& r, const tensor_view& v) {
  uintptr_t lo, hi, a, b;
  if (!view_bytes(v, &lo, &hi)) return true;
  for (const recorded_tensor& t : r.tensors)
    if (t.which == io::in && view_bytes(t.view, &a, &b) && a < hi && lo < b &&
        device_index_of(t.view) == device_index_of(v))
      return true;
  return false;
}

// Whether output v updates in place bytes another op produced earlier in the same step,
// without the op declaring them as input. A buffer rewritten by the op that wrote it before
// (the same name), or reused across steps, is taken as overwritten, not updated. Bytes an op
// begun after this one produced (a kernel it encloses, a worker of it) are its own work:
// a block declaring as its output what its last kernel wrote updates nothing.
inline bool writes_in_place(op_context& c, const op_record& r, const tensor_view& v) {
  if (declared_as_input(r, v)) return false;
  std::vector<producer_map::piece> pieces;
  {
    lock_guard<mutex> g(c.m);
    if (c.producers.empty()) return false;
    pieces = c.producers.find(v);
  }
  for (const producer_map::piece& p : pieces) {
    const bool same_name = p.key.size() > r.name.size() && p.key.compare(0, r.name.size(), r.name) == 0 &&
                           p.key[r.name.size()] == '#';
    if (p.step == r.step && !same_name && !p.read && p.seq < r.seq) return true;
  }
  return false;
}

// A copy of t's view for breakpoint frames, within the process's budget for them; a stop
// inside the op shows it, whatever the program did to the view's memory since the call.
inline void keep_for_frames(op_context& c, op_record& r, recorded_tensor& t) noexcept {
  const tensor_view& v = t.view;
  if (!v.valid() || !v.data) return;  // nothing to read: frames say so as they would have
  const uint64_t n = v.nbytes();
  const uint64_t cap = options_ref().breakpoint_keep_bytes;
  const uint64_t before = __atomic_fetch_add(&c.frame_kept_bytes, n, __ATOMIC_RELAXED);
  try {
    if (before + n > cap || before + n < before) {
      __atomic_fetch_sub(&c.frame_kept_bytes, n, __ATOMIC_RELAXED);
      t.not_kept = "not kept: its " + std::to_string(n) + " bytes would pass --probe_breakpoint_keep_bytes=" +
                   std::to_string(cap) + " (copies held for breakpoint frames by the open ops)";
      return;
    }
    std::string why;
    if (read_tensor(v, &t.kept, &why)) {
      r.kept_bytes += n;
      return;
    }
    t.not_kept = "not kept: " + why;
  } catch (...) {
    t.kept = tensor();
    t.not_kept.clear();  // may itself be what ran out: frames then give the general reason
  }
  __atomic_fetch_sub(&c.frame_kept_bytes, n, __ATOMIC_RELAXED);
}

PROBE_API void emit_tensor(op_record* r, io which, const char* slot, const tensor_view& v, bool inout, bool check_rmw,
                           bool implicit, bool unread) noexcept {
  if (!r->wants_tensors) {  // timing alone, or an op outside the filters
    if (r->tracks_outputs && which == io::out) track_output(r, slot, v);
    return;
  }
  op_context& c = context();
  try {
    const bool edges = __atomic_load_n(&c.track_edges, __ATOMIC_RELAXED);
    recorded_tensor t;
    t.which = which;
    t.slot = slot ? slot : "";
    t.view = v;
    t.inout = inout;
    t.implicit = implicit;
    t.unread = unread;
    if (v.batch) {
      // Listeners see one contiguous host tensor [count, ...]; the samples are read now.
      std::string why;
      if (read_tensor(v, &t.gathered, &why)) {
        t.view = t.gathered.view();
      } else {
        static int said = 0;
        log_once(&said, "op %s: %s '%s': %s; recorded without data", r->name.c_str(), which == io::in ? "input" : "output",
                 t.slot.c_str(), why.c_str());
        t.view.batch = nullptr;  // shape and dtype stay; no data
      }
    }
    if (edges && !unread && t.view.where.is_host() && t.view.valid() && t.view.data && t.view.is_contiguous()) {
      t.hash = content_hash::of(t.view.data, t.view.nbytes());
      t.have_hash = true;
    }
    if (!unread && t.gathered.empty() && options_ref().frame_values) keep_for_frames(c, *r, t);
    if (which == io::in) {
      for (const auto& l : r->links)
        if (l.slot == t.slot) {
          t.producer = l.producer;
          t.producers.push_back(producer_ref{l.producer, v.valid() ? v.nbytes() : 0, 0, 0});
        }
      // An implicit input is not checked against its producers: its producers are its value.
      const bool linked = !t.producer.empty();  // op.link named its producer
      if (!linked && edges) find_producers(c, *r, t, !implicit);
      if (!linked && edges && !implicit) place_in_enclosing_read(c, *r, t);
      if (edges && !implicit && t.within.empty() && t.producers.empty() && t.view.valid() && t.view.data)
        keep_unwritten_read(c, *r, t);
      // Found after the kernel: the bytes are the op's result, and no listener may read them.
      if (unread) t.view.data = nullptr;
    } else if (edges) {
      // Read-modify-write the op did not declare: its prior state becomes an input. output()
      // is called after the kernel, so that state is what the producers recorded, not memory.
      if (check_rmw && !inout && writes_in_place(c, *r, v)) emit_tensor(r, io::in, slot, v, false, false, true, true);
      lock_guard<mutex> g(c.m);
      c.producers.record(v, r->key(io::out, t.slot.c_str()), r->seq, t.have_hash, t.hash, r->step);
    }
    r->tensors.push_back(std::move(t));
    for_each_listener(*r, [&](op_listener& l, uint64_t& state) { l.on_tensor(*r, r->tensors.back(), state); });
  } catch (...) {
  }
}

PROBE_API void op_tensor(op_record* r, io which, const char* slot, const tensor_view& v) noexcept {
  emit_tensor(r, which, slot, v);
}

// An output read when the op ends (output_at_end, and inout's second half).
inline void defer_output(op_record* r, const char* slot, const tensor_view& v, bool inout) {
  recorded_tensor d;
  d.which = io::out;
  d.slot = slot ? slot : "";
  d.view = v;
  d.inout = inout;
  if (v.batch && v.ndim > 0 && v.shape[0] > 0) {
    // Adapters build the pointer array for the call: kept here, so that only the samples
    // must live until the op ends.
    d.batch_pointers.assign(v.batch, v.batch + v.shape[0]);
    d.view.batch = d.batch_pointers.data();
  }
  r->deferred.push_back(std::move(d));
}

PROBE_API void op_inout(op_record* r, const char* slot, const tensor_view& v) noexcept {
  if (!r->wants_tensors) {
    if (r->tracks_outputs) track_output(r, slot, v);
    return;
  }
  emit_tensor(r, io::in, slot, v, true);
  try {
    defer_output(r, slot, v, true);
  } catch (...) {
  }
}

PROBE_API void op_defer_output(op_record* r, const char* slot, const tensor_view& v) noexcept {
  if (!r->wants_tensors) {
    if (r->tracks_outputs) track_output(r, slot, v);
    return;
  }
  try {
    op_context& c = context();
    // The view is given before the computation: its bytes now are the prior state.
    if (__atomic_load_n(&c.track_edges, __ATOMIC_RELAXED) && writes_in_place(c, *r, v))
      emit_tensor(r, io::in, slot, v, false, false, true);
    defer_output(r, slot, v, false);
  } catch (...) {
  }
}

PROBE_API void op_link(op_record* r, const char* slot, const char* producer_key) noexcept {
  try {
    const char* s = slot ? slot : "";
    for (const recorded_tensor& t : r->tensors)
      if (t.which == io::in && !t.implicit && t.slot == s) {
        // The input's record is out already: the link would be silently lost.
        static int said = 0;
        log_once(&said, "op %s: link('%s', '%s') comes after input('%s'): give links before the inputs they describe; this one is ignored",
                 r->name.c_str(), s, producer_key ? producer_key : "", s);
        return;
      }
    r->links.push_back(explicit_link{s, producer_key ? producer_key : ""});
  } catch (...) {
  }
}

PROBE_API void op_attr(op_record* r, const char* name, const attr_arg& a) noexcept {
  try {
    op_attribute at;
    at.name = name ? name : "";
    at.kind = a.kind;
    at.i = a.i;
    at.d = a.d;
    if (a.kind == attr_kind::text) {
      if (a.n > k_attr_text_cap) {
        log("op %s: attribute '%s' is %zu bytes; attributes hold at most %zu (pass data as an input); not recorded",
            r->name.c_str(), at.name.c_str(), a.n, k_attr_text_cap);
        return;
      }
      at.text.assign(a.s, a.n);
    } else if (a.kind == attr_kind::ints) {
      if (a.n > k_attr_list_cap) {
        log("op %s: attribute '%s' has %zu elements; attributes hold at most %zu (pass data as an input); not recorded",
            r->name.c_str(), at.name.c_str(), a.n, k_attr_list_cap);
        return;
      }
      at.ints.resize(a.n);
      const unsigned char* p = static_cast<const unsigned char*>(a.list);
      for (size_t k = 0; k < a.n; ++k, p += a.elem_size) {
        int64_t v = 0;
        switch (a.elem_size) {
          case 1: { int8_t x; memcpy(&x, p, 1); v = a.elem_signed ? x : static_cast<uint8_t>(x); break; }
          case 2: { int16_t x; memcpy(&x, p, 2); v = a.elem_signed ? x : static_cast<uint16_t>(x); break; }
          case 4: { int32_t x; memcpy(&x, p, 4); v = a.elem_signed ? int64_t{x} : int64_t{static_cast<uint32_t>(x)}; break; }
          default: memcpy(&v, p, 8); break;
        }
        at.ints[k] = v;
      }
    }
    for (op_attribute& old : r->attrs)
      if (old.name == at.name) {
        old = std::move(at);
        return;
      }
    r->attrs.push_back(std::move(at));
  } catch (...) {
  }
}

PROBE_API void op_end(op_record* r) noexcept {
  // A load and a store, not an atomic exchange: only a program that ends one op twice at once
  // on two threads could slip past, and the common path stays free of a locked instruction.
  if (__atomic_load_n(&r->ended, __ATOMIC_ACQUIRE)) {
    static int said = 0;
    log_once(&said, "op %s ended twice; the second end is ignored (an op is ended once)", r->name.c_str());
    return;
  }
  for (const recorded_tensor& d : r->deferred) emit_tensor(r, io::out, d.slot.c_str(), d.view, d.inout, false);
  for_each_listener(*r, [&](op_listener& l, uint64_t& state) { l.on_end(*r, state); });
  if (r->open_reads) {
    op_context& c = context();
    lock_guard<mutex> g(c.m);
    size_t kept = 0;
    for (size_t i = 0; i < c.open_reads.size(); ++i)
      if (c.open_reads[i].seq != r->seq) {
        if (kept != i) c.open_reads[kept] = std::move(c.open_reads[i]);
        ++kept;
      }
    c.open_reads.resize(kept);
    r->open_reads = false;
  }
  if (r->kept_bytes) __atomic_fetch_sub(&context().frame_kept_bytes, r->kept_bytes, __ATOMIC_RELAXED);
  r->kept_bytes = 0;
  __atomic_store_n(&r->ended, true, __ATOMIC_RELEASE);
  if (t_current_op == r) {
    t_current_op = r->parent;
    give_back_record(r);
    if (t_current_op && __atomic_load_n(&t_current_op->ended, __ATOMIC_ACQUIRE)) pop_ended_ops();
    return;
  }
  // An op begun inside it is still open, or it belongs to another thread: its record stays
  // (that op's parent) until its own thread's ops close past it. Its effects are done.
  static int said = 0;
  log_once(&said, "op %s ended while %s; ops end in the reverse order they began, on the thread that began them",
           r->name.c_str(), r->thread == thread_index() ? "an op begun inside it was still open" : "on another thread than began it");
}

PROBE_API uint64_t op_sequence(const op_record* r) noexcept { return r->seq; }

// An op outside the filters takes its outputs' views too (their ranges only).
PROBE_API bool op_records_tensors(const op_record* r) noexcept { return r->wants_tensors || r->tracks_outputs; }

// probe::adopt_op_context (core/op_context.hpp).
PROBE_API op_record* op_current() noexcept { return t_current_op; }
PROBE_API bool op_adopt(op_record* r) noexcept {
  if (t_current_op) return false;
  t_current_op = r;
  return true;
}
PROBE_API void op_unadopt(op_record* r) noexcept {
  if (t_current_op == r) t_current_op = nullptr;
}

}  // namespace detail
PROBE_END_NAMESPACE
