// Choosing and calibrating the timing clock. Internal header.
#pragma once
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/sync.hpp"
#include "timing_clock.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline int64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct clock_state {
  mutex m;
  uint64_t origin_ticks = 0;  // a reading taken together with origin_ns
  int64_t origin_ns = 0;      // CLOCK_MONOTONIC at origin_ticks
  double ns_per_tick = 1.0;
  bool scale_fixed = false;   // atomic; set once
  const char* forced = nullptr;  // "tsc" / "monotonic" asked before the first reading
};
PROBE_API clock_state& clock_globals() noexcept;

#if defined(__x86_64__)
inline uint64_t read_tsc() noexcept { return __builtin_ia32_rdtsc(); }

// CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every P-, C- and T-state.
// The instruction itself rather than <cpuid.h>, which every including TU would parse.
inline void cpuid(unsigned leaf, unsigned regs[4]) noexcept {
  __asm__ volatile("cpuid" : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3]) : "a"(leaf), "c"(0u));
}
PROBE_API bool cpu_has_invariant_tsc() noexcept;

// Linux falls back from the TSC to hpet or acpi_pm when it finds the TSC unsynchronized
// between CPUs or unstable; then probe does not trust it either.
PROBE_API bool kernel_distrusts_tsc() noexcept;
#elif defined(__aarch64__)
inline uint64_t read_cntvct() noexcept {
  uint64_t v;
  __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
inline uint64_t read_cntfrq() noexcept {
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
  return v;
}
#endif

PROBE_API uint64_t read_clock(uint8_t kind) noexcept;

// A (ticks, CLOCK_MONOTONIC) pair read as close together as the machine allows: the
// monotonic reading is bracketed by two tick readings, and the tightest of a few tries wins.
PROBE_API void sample_clock_pair(uint8_t kind, uint64_t* ticks, int64_t* ns) noexcept;

PROBE_API uint8_t choose_clock(const char* forced) noexcept;

// Chooses the clock once; later calls return at once.
PROBE_API void clock_init() noexcept;

// Asks for a clock ("tsc", "monotonic", or "auto") before the first reading; later requests
// are ignored, since readings already taken are in the first clock's unit.
PROBE_API bool clock_request(const char* kind) noexcept;

PROBE_API uint64_t clock_now_slow() noexcept;

// Fixes the tick scale: the ticks and CLOCK_MONOTONIC nanoseconds elapsed since the origin,
// over at least a millisecond (waited for if the process is younger than that), so the
// pairing error of the two samples is below about 1e-4 of the scale.
PROBE_API void clock_fix_scale() noexcept;

PROBE_API double ticks_to_ns(double ticks) noexcept;

// CLOCK_MONOTONIC nanoseconds of a reading (the trace's time base: processes on one machine
// share it, so their traces line up).
PROBE_API int64_t ticks_to_monotonic_ns(uint64_t ticks) noexcept;

PROBE_API const char* clock_name() noexcept;

// Ticks per second of the chosen clock.
PROBE_API double clock_frequency() noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
