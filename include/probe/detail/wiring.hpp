// Connects the parsed options to the effects: which listeners observe ops, what runs at
// flush and at exit. The only place that knows every effect, so core never includes
// effects. Implementation-only header.
#pragma once
#include <stdlib.h>

#include "../core/context_impl.hpp"
#include "../core/lifecycle.hpp"
#include "../core/options.hpp"
#include "../effects/print_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_FUNC void at_exit_handler() noexcept;

PROBE_FUNC void apply_options(const options& o) noexcept {
  static bool exit_hook = false;
  if (!exit_hook) exit_hook = atexit([] { at_exit_handler(); }) == 0;
  print_apply_options(o);

  // Listeners run in this order for every op event.
  static op_listener* list[8];
  int n = 0;
  (void)list;
  set_op_listeners(list, n, o.dump);
}

}  // namespace detail

// Order matters: pending prints and callbacks first (they may still mark ops), then the
// dump, then timing (so the trace covers everything before it).
PROBE_FUNC void flush() noexcept { detail::effects_barrier_impl(); }

namespace detail {
PROBE_FUNC void at_exit_handler() noexcept {
  effects_exit_drain();  // on this thread: the worker may never run again
  ::probe::flush();
}
}  // namespace detail

PROBE_END_NAMESPACE
