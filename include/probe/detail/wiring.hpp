// Connects the parsed options to the effects: which listeners observe ops, what runs at
// flush and at exit. The only place that knows every effect, so core never includes
// effects. Implementation-only header.
#pragma once
#include <stdlib.h>

#include "../core/context_impl.hpp"
#include "../core/lifecycle.hpp"
#include "../core/options.hpp"
#include "../effects/timing_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_FUNC void at_exit_handler() noexcept;
inline bool g_exiting = false;  // the exit handler runs: effects finish for good

PROBE_FUNC void apply_options(const options& o) noexcept {
  static bool exit_hook = false;
  if (!exit_hook) exit_hook = atexit([] { at_exit_handler(); }) == 0;

  // Listeners run in this order for every op event.
  static op_listener* list[8];
  int n = 0;
  n = timing_apply_options(o, list, n, 8);
  set_op_listeners(list, n, o.dump);
}

}  // namespace detail

// Order matters: pending prints and callbacks first (they may still mark ops), then the
// dump, then timing (so the trace covers everything before it).
PROBE_FUNC void flush() noexcept {
  detail::timing_flush(__atomic_load_n(&detail::g_exiting, __ATOMIC_ACQUIRE));
}

namespace detail {
PROBE_FUNC void at_exit_handler() noexcept {
  __atomic_store_n(&g_exiting, true, __ATOMIC_RELEASE);
  ::probe::flush();
}
}  // namespace detail

PROBE_END_NAMESPACE
