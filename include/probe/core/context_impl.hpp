// context: definitions (see context.hpp).
#pragma once
#include "context.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API op_context& context() {
  static op_context* c = new op_context();  // never destroyed: ops may run during exit
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
  c.producers.clear();
}

PROBE_API op_record* op_begin(const char* name, const char* type) noexcept {
  op_context& c = context();
  op_record* r = nullptr;
  try {
    r = new op_record();
    r->name = name ? name : "";
    r->type = type ? type : "";
    r->seq = __atomic_add_fetch(&c.next_seq, 1, __ATOMIC_RELAXED);
    r->step = current_step();
    r->thread = thread_index();
    r->parent = t_current_op;
    r->wall_ns = wall_ns();
    r->mono_begin_ns = mono_ns();
    {
      lock_guard<mutex> g(c.m);
      r->occurrence = c.occurrences[r->name]++;
    }
  } catch (...) {
    delete r;
    return nullptr;  // out of memory: this op goes unrecorded, the host goes on
  }
  t_current_op = r;
  r->listeners = __atomic_load_n(&c.listeners, __ATOMIC_ACQUIRE);
  for_each_listener(*r, [&](op_listener& l, uint64_t& state) { l.on_begin(*r, state); });
  return r;
}

PROBE_API void emit_tensor(op_record* r, io which, const char* slot, const tensor_view& v) noexcept {
  op_context& c = context();
  try {
    recorded_tensor t{which, slot ? slot : "", v, std::string(), tensor()};
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
    if (which == io::in) {
      for (const auto& l : r->links)
        if (l.slot == t.slot) t.producer = l.producer;
      if (t.producer.empty() && __atomic_load_n(&c.track_edges, __ATOMIC_RELAXED)) {
        lock_guard<mutex> g(c.m);
        t.producer = c.producers.find(v);
      }
    } else if (__atomic_load_n(&c.track_edges, __ATOMIC_RELAXED)) {
      lock_guard<mutex> g(c.m);
      c.producers.record(v, r->key(io::out, t.slot.c_str()), r->seq);
    }
    r->tensors.push_back(static_cast<recorded_tensor&&>(t));
    for_each_listener(*r, [&](op_listener& l, uint64_t& state) { l.on_tensor(*r, r->tensors.back(), state); });
  } catch (...) {
  }
}

PROBE_API void op_tensor(op_record* r, io which, const char* slot, const tensor_view& v) noexcept {
  emit_tensor(r, which, slot, v);
}

PROBE_API void op_defer_output(op_record* r, const char* slot, const tensor_view& v) noexcept {
  try {
    r->deferred.push_back(recorded_tensor{io::out, slot ? slot : "", v, std::string(), tensor()});
  } catch (...) {
  }
}

PROBE_API void op_link(op_record* r, const char* slot, const char* producer_key) noexcept {
  try {
    r->links.push_back(explicit_link{slot ? slot : "", producer_key ? producer_key : ""});
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
          case 4: { int32_t x; memcpy(&x, p, 4); v = a.elem_signed ? x : static_cast<uint32_t>(x); break; }
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
  for (const recorded_tensor& d : r->deferred) emit_tensor(r, io::out, d.slot.c_str(), d.view);
  r->mono_end_ns = mono_ns();
  for_each_listener(*r, [&](op_listener& l, uint64_t& state) { l.on_end(*r, state); });
  if (t_current_op == r) t_current_op = r->parent;
  delete r;
}

PROBE_API uint64_t op_sequence(const op_record* r) noexcept { return r->seq; }

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
