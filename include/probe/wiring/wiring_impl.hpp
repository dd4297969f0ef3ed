// Connects the parsed options to the effects: which listeners observe ops, what runs at
// flush and at exit. The only place that knows every effect, so core never includes
// effects: core declares apply_options (core/flags.hpp) and flush (core/lifecycle.hpp), and
// this file, at the top of the house, defines them.
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <new>

#include "../core/context.hpp"
#include "../core/flags.hpp"
#include "../core/lifecycle.hpp"
#include "../core/options.hpp"
#include "../util/fs.hpp"
#include "../effects/breakpoint_stop.hpp"
#include "../effects/breakpoint_values.hpp"
#include "../effects/dump.hpp"
#include "../effects/print_sink.hpp"
#include "../effects/replay_run.hpp"
#include "../effects/timing_control.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline bool g_exiting = false;  // the exit handler runs: effects finish for good

inline void at_exit_handler() noexcept {
  __atomic_store_n(&g_exiting, true, __ATOMIC_RELEASE);
  effects_exit_drain();  // on this thread: the worker may never run again
  ::probe::flush();
}

// Published listener sets are never freed (ops begun under one keep using it) and stay
// reachable from this list; an equal set published before is reused, so setting flags again
// and again does not grow the process.
struct kept_listener_set {
  listener_set set;
  kept_listener_set* next = nullptr;
};
inline kept_listener_set* g_listener_sets = nullptr;

inline const listener_set* keep_listener_set(const listener_set& s) noexcept {
  static fork_safe_mutex m;
  lock_guard<fork_safe_mutex> g(m);
  for (kept_listener_set* k = g_listener_sets; k; k = k->next) {
    bool same = k->set.count == s.count && k->set.tensors == s.tensors && k->set.ask_listeners == s.ask_listeners;
    for (int i = 0; same && i < s.count; ++i) same = k->set.list[i] == s.list[i];
    if (same) return &k->set;
  }
  kept_listener_set* k = new (std::nothrow) kept_listener_set();
  if (!k) return nullptr;
  k->set = s;
  k->next = g_listener_sets;
  g_listener_sets = k;
  return &k->set;
}

PROBE_API void apply_options(const options& o) noexcept {
  static bool exit_hook = false;
  if (!exit_hook) exit_hook = atexit([] { at_exit_handler(); }) == 0;
  if (o.replay[0]) {
    // Replay mode runs no effect: the first mark (or probe::init) replays and exits.
    static const listener_set none;
    set_op_listeners(&none, false);
    return;
  }
  print_apply_options(o);

  // Listeners run in this order for every op event.
  listener_set next;
  const int cap = listener_set::k_capacity;
  int n = 0;
  // Timing first, so op durations do not include other listeners' end-of-op work.
  n = timing_apply_options(o, next.list, n, cap);
  op_listener* dump = dump_configure(o);
  if (o.dump && n < cap) next.list[n++] = dump;
  // After the dump, so a non-finite output is on disk before its breakpoint stops.
  const int before_breakpoints = n;
  n = breakpoint_apply_options(o, next.list, n, cap);
  n = abs_above_apply_options(o, next.list, n, cap);
  next.count = n;
  // Timing alone looks at no tensor (a trace names their shapes).
  next.tensors = o.dump || o.trace_to[0] != '\0' || o.frames || n > before_breakpoints;
  next.ask_listeners = o.trace_to[0] == '\0' && !o.frames;
  reset_op_counters();
  if (const listener_set* set = keep_listener_set(next)) set_op_listeners(set, o.dump);
}

PROBE_API void replay_if_asked() noexcept {
  const options& o = options_ref();
  if (!o.replay[0]) return;
  // Once: marks made by the kernels (or by other threads meanwhile) return at once.
  static int started = 0;
  if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL)) return;
  __atomic_store_n(&g_gate, 0u, __ATOMIC_RELEASE);
  const int code = replay_main(o);
  // `probe replay` learns that the engine replayed (and did not just exit 0) through this.
  if (const char* fd_text = getenv("PROBE_REPLAY_STATUS_FD")) {
    const int fd = atoi(fd_text);
    char line[40];
    const int n = snprintf(line, sizeof line, "probe-replay-exit %d\n", code);
    if (fd > 2 && n > 0) write_all(fd, line, static_cast<size_t>(n));
  }
  fflush(nullptr);
  _exit(code);  // the host's own exit handlers would run on a program that never got going
}

}  // namespace detail

// Order matters: pending prints and callbacks first (they may still mark ops), then the
// dump, then timing (so the trace covers everything before it).
PROBE_API void flush() noexcept {
  detail::effects_barrier_impl();
  const bool exiting = __atomic_load_n(&detail::g_exiting, __ATOMIC_ACQUIRE);
  if (exiting)
    detail::dump_finish();  // graphs, the manifest's end record
  else
    detail::dump_flush();   // graphs so far
  detail::timing_flush(exiting);
}

PROBE_END_NAMESPACE
