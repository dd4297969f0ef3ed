// replay_kernel: definitions (see replay_kernel.hpp and the public replay.hpp).
#pragma once
#include <string.h>
#include <sys/mman.h>

#include "../util/log.hpp"
#include "replay_kernel.hpp"
#include "replay_report.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// The registry: a list pushed at the front with one compare-and-swap, so that static
// registrations work whatever order the program's initializers run in (the head is
// constant-initialized) and lookups need no lock. Entries are never removed.
inline kernel_entry*& kernel_head() noexcept {
  static kernel_entry* head = nullptr;
  return head;
}

PROBE_API void add_kernel(kernel_entry* k) noexcept {
  if (!k || !k->name || !k->fn) return;
  kernel_entry*& head = kernel_head();
  kernel_entry* old = __atomic_load_n(&head, __ATOMIC_ACQUIRE);
  do {
    k->next = old;
  } while (!__atomic_compare_exchange_n(&head, &old, k, true, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
}

PROBE_API void add_kernel_copy(const char* name, kernel_fn fn, kernel_fn reference) noexcept {
  if (!name || !fn) {
    log("register_kernel: a kernel needs a name and a function; ignored");
    return;
  }
  const size_t n = strlen(name);
  char* copy = static_cast<char*>(malloc(n + 1));
  kernel_entry* k = static_cast<kernel_entry*>(malloc(sizeof(kernel_entry)));
  if (!copy || !k) {
    free(copy);
    free(k);
    log("register_kernel(\"%s\"): out of memory; not registered", name);
    return;
  }
  memcpy(copy, name, n + 1);
  *k = kernel_entry{copy, fn, reference, nullptr};
  add_kernel(k);
}

PROBE_API const kernel_entry* find_kernel(const std::string& op, const std::string& type, std::string* matched) noexcept {
  const kernel_entry* head = __atomic_load_n(&kernel_head(), __ATOMIC_ACQUIRE);
  // The most recent registration of a name wins: it is the nearest the head.
  for (int pass = 0; pass < 2; ++pass) {
    const std::string& want = pass == 0 ? op : type;
    if (want.empty()) continue;
    for (const kernel_entry* k = head; k; k = k->next)
      if (want == k->name) {
        try {
          if (matched) *matched = want;
        } catch (...) {
        }
        return k;
      }
  }
  return nullptr;
}

PROBE_API int kernel_count() noexcept {
  int n = 0;
  for (const kernel_entry* k = __atomic_load_n(&kernel_head(), __ATOMIC_ACQUIRE); k; k = k->next) ++n;
  return n;
}

PROBE_API bool replay_buffer::allocate(size_t bytes) noexcept {
  release();
  n_ = bytes;
  if (bytes >= k_huge) {
    // Twice the alignment more than needed, then the unaligned ends unmapped.
    const size_t want = (bytes + k_huge - 1) / k_huge * k_huge;
    void* raw = mmap(nullptr, want + k_huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw != MAP_FAILED) {
      char* base = static_cast<char*>(raw);
      char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + k_huge - 1) & ~(uintptr_t{k_huge} - 1));
      if (aligned > base) munmap(base, static_cast<size_t>(aligned - base));
      const size_t tail = static_cast<size_t>(base + want + k_huge - (aligned + want));
      if (tail) munmap(aligned + want, tail);
#if defined(MADV_HUGEPAGE)
      madvise(aligned, want, MADV_HUGEPAGE);  // a hint: without huge pages it works the same
#endif
      p_ = aligned;
      mapped_ = want;
      return true;
    }
  }
  p_ = calloc(bytes ? bytes : 1, 1);
  return p_ != nullptr;
}

PROBE_API void replay_buffer::release() noexcept {
  if (mapped_) munmap(p_, mapped_);
  else free(p_);
  p_ = nullptr;
  n_ = mapped_ = 0;
}

namespace replay_names {
inline std::string shape(const int64_t* s, int n) {
  std::string t = "[";
  for (int i = 0; i < n; ++i) {
    if (i) t += ',';
    t += std::to_string(s[i]);  // appended alone: a literal + to_string trips GCC's -O3 -Wrestrict
  }
  return t + "]";
}
inline std::string of(dtype t, const int64_t* s, int n) { return dtype_name(t) + shape(s, n); }
inline std::string dims_text(const dims& d) {
  std::string t = "[";
  for (int i = 0; i < d.size(); ++i) {
    if (i) t += ',';
    t += d[i] < 0 ? std::string("*") : std::to_string(d[i]);  // appended: GCC 12 -O3 -Wrestrict
  }
  return t + "]";
}
inline bool same_shape(const int64_t* s, int n, const dims& d, bool wildcards) {
  if (d.too_many() || d.size() != n) return false;
  for (int i = 0; i < n; ++i)
    if (s[i] != d[i] && !(wildcards && d[i] < 0)) return false;
  return true;
}
}  // namespace replay_names

PROBE_API void replay_state::fail(const std::string& what) const {
  throw replay_failure{what};
}

PROBE_API void replay_state::load_attrs() {
  attrs.clear();
  const json::value& a = snap->attrs;
  attrs.reserve(a.size());  // attr_value points into its own slot: no reallocation after
  for (size_t i = 0; i < a.size(); ++i) {
    const json::value& v = a[i];
    replay_attr_slot s;
    s.name = a.key(i);
    attr_value& out = s.value;
    switch (v.type()) {
      case json::value::kind::boolean:
        out.kind = attr_kind::boolean;
        out.i = v.as_bool() ? 1 : 0;
        break;
      case json::value::kind::number:
        out.kind = v.is_integer() ? attr_kind::integer : attr_kind::real;
        out.i = v.as_int();
        out.d = v.as_double();
        break;
      case json::value::kind::string:
        out.kind = attr_kind::text;
        s.text = v.as_string();
        break;
      case json::value::kind::array:
        out.kind = attr_kind::ints;
        for (size_t k = 0; k < v.size(); ++k) {
          out.list_ok = out.list_ok && v[k].is_integer();
          s.ints.push_back(v[k].as_int());
        }
        break;
      default:
        out.kind = attr_kind::text;  // null or an object: no kernel type reads it
        out.list_ok = false;
        s.text = "";
        break;
    }
    attrs.push_back(std::move(s));
    replay_attr_slot& kept = attrs.back();
    kept.value.text = kept.text.c_str();
    kept.value.n = kept.value.kind == attr_kind::ints ? kept.ints.size() : kept.text.size();
    kept.value.ints = kept.ints.data();
  }
}

PROBE_API tensor_view replay_input(replay_state* s, const char* slot, dtype want, const dims* expect) {
  const std::string name = slot ? slot : "";
  const snapshot::info& snap = *s->snap;
  for (size_t i = 0; i < snap.inputs.size(); ++i) {
    const snapshot::tensor_entry& t = snap.inputs[i];
    if (t.slot != name) continue;
    if (want != dtype::invalid && want != t.type)
      s->fail("input '" + name + "' is " + snapshot::describe(t) + "; the kernel reads it as " +
              (want == dtype::invalid ? "an unknown type" : dtype_name(want)));
    if (expect && !replay_names::same_shape(t.shape, t.ndim, *expect, true))
      s->fail("input '" + name + "' is " + snapshot::describe(t) + "; the kernel expects shape " +
              replay_names::dims_text(*expect));
    return s->inputs[i].view();
  }
  std::string have;
  for (const snapshot::tensor_entry& t : snap.inputs) have += (have.empty() ? "" : ", ") + t.slot;
  s->fail("the kernel asks for input '" + name + "'; the snapshot has " + (have.empty() ? "no inputs" : have));
}

PROBE_API tensor_view replay_output(replay_state* s, const char* slot, dtype want, const dims* shape) {
  const std::string name = slot ? slot : "";
  if (want == dtype::invalid) s->fail("output '" + name + "': the kernel's element type has no probe dtype");
  for (replay_output_buffer& o : s->outputs)
    if (o.slot == name) {
      // Asked again (iterations, or twice in one run): the same memory, if it is the same.
      if (o.view.type != want || (shape && !replay_names::same_shape(o.view.shape, o.view.ndim, *shape, false)))
        s->fail("output '" + name + "' asked for again as another type or shape");
      return o.view;
    }
  const snapshot::tensor_entry* rec = s->snap->output(name);
  int ndim = 0;
  int64_t dims_[max_dims] = {};
  if (rec) {
    if (rec->type != want)
      s->fail("output '" + name + "' was recorded as " + snapshot::describe(*rec) + "; the kernel writes " + dtype_name(want));
    if (shape && !replay_names::same_shape(rec->shape, rec->ndim, *shape, false))
      s->fail("output '" + name + "' was recorded as " + snapshot::describe(*rec) + "; the kernel gives shape " +
              replay_names::dims_text(*shape));
    ndim = rec->ndim;
    for (int i = 0; i < ndim; ++i) dims_[i] = rec->shape[i];
  } else if (shape) {
    if (shape->too_many()) s->fail("output '" + name + "': more than 8 dimensions");
    ndim = shape->size();
    for (int i = 0; i < ndim; ++i) {
      if ((*shape)[i] < 0) s->fail("output '" + name + "': negative size in its shape");
      dims_[i] = (*shape)[i];
    }
  } else {
    s->fail(s->snap->status == "complete"
                ? "the snapshot has no output '" + name + "'; give its shape (ctx.output<T>(\"" + name + "\", shape))"
                : "output '" + name + "' was not recorded (the op did not finish); give its shape (ctx.output<T>(\"" +
                      name + "\", shape))");
  }
  replay_output_buffer o;
  o.slot = name;
  o.recorded = rec;
  o.view = view_raw(nullptr, want, dims(dims_, static_cast<size_t>(ndim)));
  if (!o.memory.allocate(o.view.nbytes())) s->fail("out of memory for output '" + name + "'");
  o.view.data = o.memory.data();
  // An output that is also an input (op.inout, or an implicit read-modify-write) starts from
  // its prior state: a kernel that writes only part of it (the fluid cells) leaves the rest
  // as it was, and one that writes nothing leaves the prior state, not the recorded result.
  for (size_t i = 0; i < s->snap->inputs.size() && i < s->inputs.size(); ++i) {
    const snapshot::tensor_entry& in = s->snap->inputs[i];
    if (in.slot != name || !(in.inout || in.implicit)) continue;
    const tensor& prior = s->inputs[i];
    if (prior.type() == want && prior.nbytes() == o.view.nbytes() && prior.nbytes())
      memcpy(o.memory.data(), prior.data(), prior.nbytes());
    break;
  }
  s->outputs.push_back(std::move(o));
  return s->outputs.back().view;
}

PROBE_API const attr_value* replay_attr(replay_state* s, const char* name, bool required) {
  const std::string n = name ? name : "";
  for (const replay_attr_slot& a : s->attrs)
    if (a.name == n) return &a.value;
  if (!required) return nullptr;
  std::string have;
  for (const replay_attr_slot& a : s->attrs) have += (have.empty() ? "" : ", ") + a.name;
  s->fail("the kernel asks for attribute '" + n + "'; the snapshot has " + (have.empty() ? "none (op.attr records them)" : have));
}

[[noreturn]] PROBE_API void replay_attr_mismatch(replay_state* s, const char* name, const char* wanted) {
  const attr_value* a = replay_attr(s, name, true);
  std::string was;
  switch (a->kind) {
    case attr_kind::boolean: was = a->i ? "true" : "false"; break;
    case attr_kind::integer: was = std::to_string(a->i); break;
    case attr_kind::real: was = shortest_text(a->d); break;
    case attr_kind::text: was = "\"" + std::string(a->text, a->n) + "\""; break;
    case attr_kind::ints: was = a->list_ok ? "a list of " + std::to_string(a->n) + " integers" : "a list"; break;
  }
  s->fail(std::string("attribute '") + (name ? name : "") + "' is " + was + "; the kernel reads it as " + wanted);
}

PROBE_API bool replay_has(const replay_state* s, int what, const char* name) noexcept {
  if (!s || !name) return false;
  if (what == 1) return s->snap->input(name) != nullptr;
  if (what == 2) return s->snap->output(name) != nullptr;
  for (const replay_attr_slot& a : s->attrs)
    if (a.name == name) return true;
  return false;
}

PROBE_API const char* replay_op(const replay_state* s, bool type) noexcept {
  if (!s) return "";
  return type ? s->snap->type.c_str() : s->snap->op.c_str();
}

}  // namespace detail
PROBE_END_NAMESPACE
