// probe.h's replay kernels (c/replay.h): C kernels behind the C++ registry. Each C
// registration adds its name to the C++ registry with a trampoline; the trampoline finds the
// C kernel the same way the registry found it (op name, then op type) and runs it on a
// probe_replay. A request the C++ layer refuses throws replay_failure: caught here, kept as
// the replay's first failure, and thrown again from the trampoline once the C kernel has
// returned, so no exception crosses the kernel's C frames. Part of c_api_impl.hpp.
#pragma once
#include <stdlib.h>
#include <string.h>

#include <string>

#include "../effects/replay.hpp"
#include "../effects/replay_kernel.hpp"
#include "../probe.h"

struct probe_replay {
  probe::detail::replay_state* state;
  std::string failure;  // the first failed request; empty while none failed
  bool failed;
};

PROBE_BEGIN_NAMESPACE
namespace detail {

struct c_kernel_entry {
  const char* name;
  probe_kernel_fn fn;
  probe_kernel_fn reference;
  c_kernel_entry* next;
};

inline c_kernel_entry*& c_kernel_head() noexcept {
  static c_kernel_entry* head = nullptr;
  return head;
}

// The latest C registration of the op's name, else of its type: what find_kernel chose.
inline const c_kernel_entry* c_kernel_for(const char* op, const char* type) noexcept {
  const c_kernel_entry* head = __atomic_load_n(&c_kernel_head(), __ATOMIC_ACQUIRE);
  for (const char* want : {op, type}) {
    if (!want || !*want) continue;
    for (const c_kernel_entry* k = head; k; k = k->next)
      if (strcmp(k->name, want) == 0) return k;
  }
  return nullptr;
}

inline void c_fail(probe_replay* r, const std::string& why) noexcept {
  if (!r || r->failed) return;
  r->failed = true;
  try {
    r->failure = why;
  } catch (...) {
  }
}

// Runs a request of the C++ layer, turning what it throws into the replay's failure.
template <class F, class T>
T c_request(probe_replay* r, T none, F&& f) noexcept {
  if (!r || r->failed) return none;
  try {
    return f();
  } catch (const replay_failure& e) {
    c_fail(r, e.message);
  } catch (const std::exception& e) {
    c_fail(r, std::string("the C kernel's request failed: ") + e.what());
  } catch (...) {
    c_fail(r, "the C kernel's request failed");
  }
  return none;
}

inline void c_trampoline(replay_context& ctx, bool reference) {
  const c_kernel_entry* k = c_kernel_for(ctx.op_name(), ctx.op_type());
  probe_kernel_fn fn = k ? (reference && k->reference ? k->reference : k->fn) : nullptr;
  if (!fn) throw replay_failure{std::string("no C kernel for op ") + ctx.op_name()};
  probe_replay r{ctx.state(), std::string(), false};
  fn(&r);
  if (r.failed) throw replay_failure{r.failure.empty() ? std::string("the C kernel failed") : r.failure};
}
inline void c_trampoline_fn(replay_context& ctx) { c_trampoline(ctx, false); }
inline void c_trampoline_reference(replay_context& ctx) { c_trampoline(ctx, true); }

}  // namespace detail
PROBE_END_NAMESPACE

extern "C" {

void probe_register_kernel(const char* name, probe_kernel_fn fn, probe_kernel_fn reference) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (!name || !fn) {
    log("probe_register_kernel: a kernel needs a name and a function; ignored");
    return;
  }
  const size_t n = strlen(name);
  char* copy = static_cast<char*>(malloc(n + 1));
  c_kernel_entry* k = static_cast<c_kernel_entry*>(malloc(sizeof(c_kernel_entry)));
  if (!copy || !k) {
    free(copy);
    free(k);
    log("probe_register_kernel(\"%s\"): out of memory; not registered", name);
    return;
  }
  memcpy(copy, name, n + 1);
  *k = c_kernel_entry{copy, fn, reference, nullptr};
  c_kernel_entry*& head = c_kernel_head();
  c_kernel_entry* old = __atomic_load_n(&head, __ATOMIC_ACQUIRE);
  do {
    k->next = old;
  } while (!__atomic_compare_exchange_n(&head, &old, k, true, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
  add_kernel_copy(name, c_trampoline_fn, reference ? c_trampoline_reference : nullptr);
}

const void* probe_replay_input(probe_replay* r, const char* slot, probe_dtype type, int* ndim, int64_t* shape) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  return c_request(r, static_cast<const void*>(nullptr), [&]() -> const void* {
    const probe::tensor_view v = replay_input(r->state, slot, static_cast<probe::dtype>(type), nullptr);
    if (ndim) *ndim = v.ndim;
    if (shape)
      for (int i = 0; i < v.ndim; ++i) shape[i] = v.shape[i];
    return v.data;
  });
}

void* probe_replay_output(probe_replay* r, const char* slot, probe_dtype type, int ndim, const int64_t* shape) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  return c_request(r, static_cast<void*>(nullptr), [&]() -> void* {
    if (ndim > probe::max_dims || (ndim > 0 && !shape)) c_fail(r, std::string("output '") + (slot ? slot : "") + "': bad shape");
    if (r->failed) return nullptr;
    const probe::dims d(shape, ndim > 0 ? static_cast<size_t>(ndim) : 0);
    const probe::tensor_view v = replay_output(r->state, slot, static_cast<probe::dtype>(type), ndim < 0 ? nullptr : &d);
    return const_cast<void*>(v.data);
  });
}

int64_t probe_replay_attr_int(probe_replay* r, const char* name) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  return c_request(r, int64_t{0}, [&] { return attr_as<int64_t>(r->state, name, replay_attr(r->state, name, true)); });
}
double probe_replay_attr_double(probe_replay* r, const char* name) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  return c_request(r, 0.0, [&] { return attr_as<double>(r->state, name, replay_attr(r->state, name, true)); });
}
const char* probe_replay_attr_string(probe_replay* r, const char* name) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  return c_request(r, static_cast<const char*>(""), [&]() -> const char* {
    const attr_value* a = replay_attr(r->state, name, true);
    if (a->kind != attr_kind::text) replay_attr_mismatch(r->state, name, "a string");
    return a->text;
  });
}
const int64_t* probe_replay_attr_ints(probe_replay* r, const char* name, size_t* count) PROBE_C_NOEXCEPT {
  using namespace probe::detail;
  if (count) *count = 0;
  return c_request(r, static_cast<const int64_t*>(nullptr), [&]() -> const int64_t* {
    const attr_value* a = replay_attr(r->state, name, true);
    if (a->kind != attr_kind::ints || !a->list_ok) replay_attr_mismatch(r->state, name, "a list of integers");
    if (count) *count = a->n;
    return a->ints;
  });
}
int probe_replay_has_attr(const probe_replay* r, const char* name) PROBE_C_NOEXCEPT {
  return r && probe::detail::replay_has(r->state, 0, name) ? 1 : 0;
}
int probe_replay_has_input(const probe_replay* r, const char* slot) PROBE_C_NOEXCEPT {
  return r && probe::detail::replay_has(r->state, 1, slot) ? 1 : 0;
}
int probe_replay_has_output(const probe_replay* r, const char* slot) PROBE_C_NOEXCEPT {
  return r && probe::detail::replay_has(r->state, 2, slot) ? 1 : 0;
}
const char* probe_replay_op_name(const probe_replay* r) PROBE_C_NOEXCEPT { return r ? probe::detail::replay_op(r->state, false) : ""; }
const char* probe_replay_op_type(const probe_replay* r) PROBE_C_NOEXCEPT { return r ? probe::detail::replay_op(r->state, true) : ""; }
void probe_replay_fail(probe_replay* r, const char* why) PROBE_C_NOEXCEPT {
  try {
    probe::detail::c_fail(r, std::string("the kernel: ") + (why ? why : "failed"));
  } catch (...) {
    if (r) r->failed = true;
  }
}
int probe_replay_failed(const probe_replay* r) PROBE_C_NOEXCEPT { return !r || r->failed ? 1 : 0; }

}  // extern "C"
