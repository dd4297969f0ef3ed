// The timing clock: one read is a handful of cycles. Light header.
//
// The clock is chosen once, at first use: the invariant TSC on x86-64 (rdtsc), the virtual
// counter on aarch64 (cntvct_el0), else CLOCK_MONOTONIC in nanoseconds. Readings are "ticks";
// ticks_to_ns converts them with a scale calibrated against CLOCK_MONOTONIC and fixed on its
// first use, so every converted timestamp of the process shares one scale.
#pragma once
#include <stdint.h>

#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum clock_kind : uint8_t { clock_unset = 0, clock_tsc, clock_cntvct, clock_monotonic };

#if !defined(PROBE_DISABLE)
inline uint8_t g_clock_kind = clock_unset;

// Chooses the clock when needed, then reads it (every clock but the hardware counters).
PROBE_API uint64_t clock_now_slow() noexcept;
// Ticks (a difference, or a reading minus clock_origin_ticks()) to nanoseconds.
PROBE_API double ticks_to_ns(double ticks) noexcept;

// The hardware counter when it is the chosen clock.
PROBE_ALWAYS_INLINE bool clock_fast(uint64_t* t) noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (PROBE_LIKELY(__atomic_load_n(&g_clock_kind, __ATOMIC_RELAXED) == clock_tsc)) {
    *t = __builtin_ia32_rdtsc();
    return true;
  }
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
  if (PROBE_LIKELY(__atomic_load_n(&g_clock_kind, __ATOMIC_RELAXED) == clock_cntvct)) {
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(*t));
    return true;
  }
#endif
  (void)t;
  return false;
}

// The hardware counter itself, for a reading whose start clock_fast already took (the clock
// kind never changes once chosen).
PROBE_ALWAYS_INLINE uint64_t clock_counter() noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_ia32_rdtsc();
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
  uint64_t t;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(t));
  return t;
#else
  return clock_now_slow();  // never reached: clock_fast is false here
#endif
}

PROBE_ALWAYS_INLINE uint64_t clock_now() noexcept {
  uint64_t t;
  if (clock_fast(&t)) return t;
  return clock_now_slow();
}

#endif  // !PROBE_DISABLE

}  // namespace detail
PROBE_END_NAMESPACE
