// Connects the parsed options to the effects: which listeners observe ops, what runs at
// flush and at exit. The only place that knows every effect, so core never includes
// effects. Implementation-only header.
#pragma once
#include <stdlib.h>

#include <new>

#include "../core/context_impl.hpp"
#include "../core/lifecycle.hpp"
#include "../core/options.hpp"
#include "../effects/breakpoint_impl.hpp"
#include "../effects/dump_impl.hpp"
#include "../effects/print_impl.hpp"
#include "../effects/timing_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_FUNC void at_exit_handler() noexcept;
inline bool g_exiting = false;  // the exit handler runs: effects finish for good

PROBE_FUNC dump_effect& dump_instance() noexcept {
  static dump_effect* d = new dump_effect();  // never destroyed: ops may run during exit
  return *d;
}

PROBE_FUNC_DEF void apply_options(const options& o) noexcept {
  static bool exit_hook = false;
  if (!exit_hook) exit_hook = atexit([] { at_exit_handler(); }) == 0;
  print_apply_options(o);

  // Listeners run in this order for every op event. A fresh set each time, never freed: ops
  // begun under the previous one keep using it (it is small and options change rarely).
  listener_set* set = new (std::nothrow) listener_set();
  if (!set) return;
  const int cap = listener_set::k_capacity;
  int n = 0;
  // Timing first, so op durations do not include other listeners' end-of-op work.
  n = timing_apply_options(o, set->list, n, cap);
  dump_instance().configure(o);
  if (o.dump && n < cap) set->list[n++] = &dump_instance();
  // After the dump, so a non-finite output is on disk before its breakpoint stops.
  n = breakpoint_apply_options(o, set->list, n, cap);
  set->count = n;
  reset_op_counters();
  set_op_listeners(set, o.dump);
}

}  // namespace detail

// Order matters: pending prints and callbacks first (they may still mark ops), then the
// dump, then timing (so the trace covers everything before it).
PROBE_FUNC_DEF void flush() noexcept {
  detail::effects_barrier_impl();
  const bool exiting = __atomic_load_n(&detail::g_exiting, __ATOMIC_ACQUIRE);
  if (exiting)
    detail::dump_instance().finish();  // graphs, the manifest's end record
  else
    detail::dump_instance().flush();   // graphs so far
  detail::timing_flush(exiting);
}

namespace detail {
PROBE_FUNC_DEF void at_exit_handler() noexcept {
  __atomic_store_n(&g_exiting, true, __ATOMIC_RELEASE);
  effects_exit_drain();  // on this thread: the worker may never run again
  ::probe::flush();
}
}  // namespace detail

PROBE_END_NAMESPACE
