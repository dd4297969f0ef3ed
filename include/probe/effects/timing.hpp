// Timing: PROBE_SCOPE, probe::timer, probe::metric, probe::write_timing_summary. Light header.
//
//   void step() {
//     PROBE_SCOPE("lbm_step");          // times the enclosing block
//     ...
//   }
//   probe::metric("MLUPS", mlups);      // prints "MLUPS: 577.3" and records it
//
// With timing off (the default) a scope costs one predictable branch; with PROBE_DISABLE it
// compiles to nothing. Flags: --probe_timing, --probe_timing_summary, --probe_trace_to=FILE.
#pragma once
#include <stdint.h>
#if defined(__has_include)
#if __has_include(<bits/types/FILE.h>)
#include <bits/types/FILE.h>  // glibc: just the FILE typedef, not all of <stdio.h>
#define PROBE_HAVE_FILE_TYPE 1
#endif
#endif
#if !defined(PROBE_HAVE_FILE_TYPE)
#include <stdio.h>
#endif
#if defined(PROBE_DISABLE)
#include <time.h>

#include "../util/metric_line.h"
#endif

#include "../core/gate.hpp"
#include "../core/op.hpp"
#include "../core/op_context.hpp"
#include "timing_buffer.hpp"
#include "timing_clock.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Where a PROBE_SCOPE is: one static object per call site, so recording passes one pointer.
struct alignas(8) scope_site {
  const char* name;
  const char* file;
  const char* function;
  int line;
  mutable uint32_t id;  // assigned by the aggregator, off the hot path (0 = not yet)
};

// An open PROBE_SCOPE on its thread's chain, for breakpoint frames; lives in the scope's guard.
struct scope_link {
  const scope_site* site;
  const scope_link* parent;  // the enclosing open scope on this thread
  const void* op;            // the op open on this thread when the scope began (nesting order)
};

// Range annotations for external profilers (NVTX under CUDA, backends/cuda_timing.hpp).
// Null unless a backend installed them; consulted only while timing is on.
struct range_hooks {
  void (*push)(const char* name) noexcept;
  void (*pop)() noexcept;
};
inline const range_hooks* g_range_hooks = nullptr;

#if defined(PROBE_DISABLE)
inline uint64_t timer_now() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}
inline double timer_ticks_to_ns(double ticks) noexcept { return ticks; }

class scope_guard {
 public:
  explicit scope_guard(const scope_site*) noexcept {}
};
#else
inline uint64_t timer_now() noexcept { return clock_now(); }
inline double timer_ticks_to_ns(double ticks) noexcept { return ticks_to_ns(ticks); }

// Records a named timer's interval; *interned caches the name's record across calls.
PROBE_API void timer_record(const char* name, const void** interned, uint64_t begin,
                             uint64_t end) noexcept;
// A named timer destroyed while running: reads the clock and records like stop().
PROBE_API void timer_end(const char* name, const void** interned, uint64_t begin) noexcept;

// The innermost open scope on the calling thread (linked only while gate_scopes is on).
inline thread_local const scope_link* t_scope = nullptr;
inline const scope_link* current_scope() noexcept { return t_scope; }
PROBE_ALWAYS_INLINE void scope_push(scope_link* link, const scope_site* site) noexcept {
  link->site = site;
  link->parent = t_scope;
  link->op = t_current_op;
  t_scope = link;
}
// A guard destroyed out of order (not a block) unlinks only itself.
PROBE_API void scope_unlink(const scope_link* link) noexcept;
PROBE_ALWAYS_INLINE void scope_pop(const scope_link* link) noexcept {
  if (PROBE_LIKELY(t_scope == link)) t_scope = link->parent;
  else scope_unlink(link);
}

// A scope's two halves, for PROBE_SCOPE's guard and for C (probe.h): enter returns whether
// timing took the scope, and its start tick.
PROBE_ALWAYS_INLINE bool scope_enter(const scope_site* site, uint64_t* begin) noexcept {
  if (!gate_on(gate_timing)) return false;
  const range_hooks* h = __atomic_load_n(&g_range_hooks, __ATOMIC_RELAXED);
  if (PROBE_UNLIKELY(h != nullptr)) h->push(site->name);
  *begin = clock_now();
  return true;
}
PROBE_ALWAYS_INLINE void scope_leave(const scope_site* site, uint64_t begin) noexcept {
  record_event(begin, clock_now(), site, event_scope);
  const range_hooks* h = __atomic_load_n(&g_range_hooks, __ATOMIC_RELAXED);
  if (PROBE_UNLIKELY(h != nullptr)) h->pop();
}

// The two ends of a timed scope when the clock or the range hooks need more than a counter
// read: enter returns k_scope_timed_slow when timing took the scope, else 0.
constexpr unsigned char k_scope_timed_slow = 4;
PROBE_API unsigned char scope_enter_slow(const scope_site* site, uint64_t* begin) noexcept;
PROBE_API void scope_leave_slow(const scope_site* site, uint64_t begin) noexcept;

// The RAII object behind PROBE_SCOPE. Off, one branch tests both of its effects: timing,
// and linking itself into the thread's chain of scopes for breakpoint frames. On, the gate is
// read once, and the common case (the hardware counter, no range hooks) is inline from end to
// end: two counter reads, the link (four stores, two thread-local loads) and the event's
// stores, with no call (benchmarks/README.md, "timing"; ctest scope_cost).
class scope_guard {
 public:
  // Forced inline: left to itself, g++ -O2 calls the constructor (enter makes it large), and
  // with everything off the call then costs more than the branch.
  PROBE_ALWAYS_INLINE explicit scope_guard(const scope_site* site) noexcept {
    unsigned g = gate_load();
    what_ = 0;
    if (PROBE_UNLIKELY((g & (gate_timing | gate_scopes)) != 0)) {
      if (PROBE_UNLIKELY(g == gate_unparsed)) g = gate_slow();
      enter(site, g);
    }
  }
  PROBE_ALWAYS_INLINE ~scope_guard() {
    if (PROBE_UNLIKELY(what_ != 0)) leave();
  }
  scope_guard(const scope_guard&) = delete;
  scope_guard& operator=(const scope_guard&) = delete;

 private:
  PROBE_ALWAYS_INLINE void enter(const scope_site* site, unsigned g) noexcept {
    unsigned char w = 0;
    link_.site = site;
    if (g & gate_scopes) {
      scope_push(&link_, site);
      w = linked;
    }
    if (g & gate_timing) {
      if (PROBE_LIKELY(__atomic_load_n(&g_range_hooks, __ATOMIC_RELAXED) == nullptr) && clock_fast(&begin_))
        w |= timed;
      else
        w |= scope_enter_slow(site, &begin_);
    }
    what_ = w;
  }
  PROBE_ALWAYS_INLINE void leave() noexcept {
    const unsigned char w = what_;
    if (PROBE_LIKELY(w & timed))
      record_event(begin_, clock_counter(), link_.site, event_scope);  // the counter that enter read
    else if (w & timed_slow)
      scope_leave_slow(link_.site, begin_);
    if (w & linked) scope_pop(&link_);
  }
  enum : unsigned char { timed = 1, linked = 2, timed_slow = k_scope_timed_slow };
  unsigned char what_;
  // Written only on the way in (off, a scope stores nothing but what_).
  scope_link link_;
  uint64_t begin_;
};
#endif  // PROBE_DISABLE

}  // namespace detail

// A stopwatch. It measures in every build mode (elapsed() is always meaningful, so programs
// can compute their own rates from it); a named timer also records each interval, like a
// scope, while timing is on. The name must outlive the timer (a literal is best).
class timer {
 public:
  timer() noexcept : name_(nullptr) { start(); }
  explicit timer(const char* name) noexcept : name_(name) {
    start();
  }
  timer(const timer&) = delete;
  timer& operator=(const timer&) = delete;
  // A named timer still running when destroyed records its last interval.
  ~timer() {
#if defined(PROBE_DISABLE)
    if (running_ && name_) stop();
#else
    if (running_ && name_) detail::timer_end(name_, &interned_, begin_);
#endif
  }

  // Starts a new interval (ends the running one first without adding it).
  void start() noexcept {
    running_ = true;
    begin_ = detail::timer_now();
  }
  // Ends the running interval and adds it to elapsed().
  void stop() noexcept {
    if (!running_) return;
    const uint64_t end = detail::timer_now();
    running_ = false;
    total_ += end - begin_;
#if !defined(PROBE_DISABLE)
    if (name_ && detail::gate_on(detail::gate_timing))
      detail::timer_record(name_, &interned_, begin_, end);
#endif
  }
  // Forgets every interval and stops.
  void reset() noexcept {
    running_ = false;
    total_ = 0;
  }
  bool running() const noexcept { return running_; }
  // Sum of the stopped intervals plus the running one, in nanoseconds / seconds.
  int64_t elapsed_ns() const noexcept {
    uint64_t t = total_;
    if (running_) t += detail::timer_now() - begin_;
    return static_cast<int64_t>(detail::timer_ticks_to_ns(static_cast<double>(t)) + 0.5);
  }
  double elapsed() const noexcept { return static_cast<double>(elapsed_ns()) * 1e-9; }

 private:
  const char* name_;
#if !defined(PROBE_DISABLE)
  const void* interned_ = nullptr;
#endif
  uint64_t begin_ = 0, total_ = 0;
  bool running_ = false;
};

#if defined(PROBE_DISABLE)
// The metric line is the program's result: it prints in every build, PROBE_DISABLE too.
inline void metric(const char* name, double value) noexcept { probe_metric_line(name, value); }
template <class S, class = typename detail::enable_if<detail::has_c_str<S>::value>::type>
void metric(const S& name, double value) noexcept {
  probe_metric_line(name.c_str(), value);
}
inline void write_timing_summary(FILE*) noexcept {}
#else
// Prints "<name>: <value>" on stdout (printf's %g with the fewest digits that read back as the
// same double), in every build, PROBE_DISABLE included, whether timing is on or not; while
// timing is on the value is also recorded (summary row, trace counter). Control characters in
// the name print as '?'.
PROBE_API void metric(const char* name, double value) noexcept;
template <class S, class = typename detail::enable_if<detail::has_c_str<S>::value>::type>
void metric(const S& name, double value) noexcept {
  metric(name.c_str(), value);
}

// Writes the timing summary so far (every scope, op, timer and metric) to `out`.
PROBE_API void write_timing_summary(FILE* out) noexcept;
#endif

PROBE_END_NAMESPACE

// Times the rest of the enclosing block under `name` (a string literal).
#define PROBE_SCOPE(name) PROBE_SCOPE_AT_(name, __COUNTER__)
#if defined(PROBE_DISABLE)
#define PROBE_SCOPE_AT_(name, id) static_assert(sizeof("" name "") > 0, "PROBE_SCOPE takes a literal")
#else
#define PROBE_SCOPE_AT_(name, id)                                                     \
  static const ::probe::detail::scope_site PROBE_CONCAT(probe_scope_site_, id){    \
      "" name "" /* PROBE_SCOPE takes a string literal */, __FILE__, __func__, __LINE__, 0}; \
  ::probe::detail::scope_guard PROBE_CONCAT(probe_scope_, id)(&PROBE_CONCAT(probe_scope_site_, id))
#endif
