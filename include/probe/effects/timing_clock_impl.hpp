// Choosing and calibrating the timing clock. Implementation-only header.
#pragma once
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/sync.hpp"
#include "timing_clock.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_INLINE int64_t monotonic_ns() noexcept {
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
PROBE_FUNC clock_state& clock_globals() noexcept {
  static clock_state* s = new clock_state();  // never destroyed: used at exit
  return *s;
}

#if defined(__x86_64__)
PROBE_INLINE uint64_t read_tsc() noexcept { return __builtin_ia32_rdtsc(); }

// CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every P-, C- and T-state.
// The instruction itself rather than <cpuid.h>, which every including TU would parse.
PROBE_INLINE void cpuid(unsigned leaf, unsigned regs[4]) noexcept {
  __asm__ volatile("cpuid" : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3]) : "a"(leaf), "c"(0u));
}
PROBE_FUNC bool cpu_has_invariant_tsc() noexcept {
  unsigned regs[4] = {};  // eax, ebx, ecx, edx
  cpuid(0x80000000u, regs);  // eax: the highest extended leaf
  if (regs[0] < 0x80000007u) return false;
  cpuid(0x80000007u, regs);
  return (regs[3] & (1u << 8)) != 0;
}

// Linux falls back from the TSC to hpet or acpi_pm when it finds the TSC unsynchronized
// between CPUs or unstable; then probe does not trust it either.
PROBE_FUNC bool kernel_distrusts_tsc() noexcept {
  const int fd = ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY);
  if (fd < 0) return false;
  char buf[32] = {};
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  return strncmp(buf, "hpet", 4) == 0 || strncmp(buf, "acpi_pm", 7) == 0;
}
#elif defined(__aarch64__)
PROBE_INLINE uint64_t read_cntvct() noexcept {
  uint64_t v;
  __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
PROBE_INLINE uint64_t read_cntfrq() noexcept {
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
  return v;
}
#endif

PROBE_FUNC uint64_t read_clock(uint8_t kind) noexcept {
#if defined(__x86_64__)
  if (kind == clock_tsc) return read_tsc();
#elif defined(__aarch64__)
  if (kind == clock_cntvct) return read_cntvct();
#endif
  (void)kind;
  return static_cast<uint64_t>(monotonic_ns());
}

// A (ticks, CLOCK_MONOTONIC) pair read as close together as the machine allows: the
// monotonic reading is bracketed by two tick readings, and the tightest of a few tries wins.
PROBE_FUNC void sample_clock_pair(uint8_t kind, uint64_t* ticks, int64_t* ns) noexcept {
  uint64_t best_gap = ~0ull;
  for (int i = 0; i < 5; ++i) {
    const uint64_t a = read_clock(kind);
    const int64_t m = monotonic_ns();
    const uint64_t b = read_clock(kind);
    if (b - a < best_gap) {
      best_gap = b - a;
      *ticks = a + (b - a) / 2;
      *ns = m;
    }
  }
}

PROBE_FUNC uint8_t choose_clock(const char* forced) noexcept {
  if (forced && strcmp(forced, "monotonic") == 0) return clock_monotonic;
#if defined(__x86_64__)
  if (forced && strcmp(forced, "tsc") == 0) return clock_tsc;
  if (cpu_has_invariant_tsc() && !kernel_distrusts_tsc()) return clock_tsc;
#elif defined(__aarch64__)
  if (read_cntfrq() != 0) return clock_cntvct;
#endif
  return clock_monotonic;
}

// Chooses the clock once; later calls return at once.
PROBE_FUNC void clock_init() noexcept {
  if (__atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE) != clock_unset) return;
  clock_state& s = clock_globals();
  lock_guard<mutex> g(s.m);
  if (g_clock_kind != clock_unset) return;
  const uint8_t kind = choose_clock(s.forced);
  sample_clock_pair(kind, &s.origin_ticks, &s.origin_ns);
  if (kind == clock_monotonic) {
    s.ns_per_tick = 1.0;
    s.scale_fixed = true;
  }
#if defined(__aarch64__)
  if (kind == clock_cntvct) {
    s.ns_per_tick = 1e9 / static_cast<double>(read_cntfrq());
    s.scale_fixed = true;
  }
#endif
  __atomic_store_n(&g_clock_kind, kind, __ATOMIC_RELEASE);
}

// Asks for a clock ("tsc", "monotonic", or "auto") before the first reading; later requests
// are ignored, since readings already taken are in the first clock's unit.
PROBE_FUNC bool clock_request(const char* kind) noexcept {
  clock_state& s = clock_globals();
  lock_guard<mutex> g(s.m);
  if (g_clock_kind != clock_unset) return false;
  s.forced = kind && strcmp(kind, "auto") != 0 ? kind : nullptr;
  return true;
}

PROBE_FUNC_DEF uint64_t clock_now_slow() noexcept {
  if (__atomic_load_n(&g_clock_now_slow, __ATOMIC_RELAXED) != &PROBE_DEFERRED(clock_now_slow))
    __atomic_store_n(&g_clock_now_slow, &PROBE_DEFERRED(clock_now_slow), __ATOMIC_RELAXED);
  uint8_t kind = __atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE);
  if (kind == clock_unset) {
    clock_init();
    kind = __atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE);
  }
  return read_clock(kind);
}

// Fixes the tick scale: the ticks and CLOCK_MONOTONIC nanoseconds elapsed since the origin,
// over at least a millisecond (waited for if the process is younger than that), so the
// pairing error of the two samples is below about 1e-4 of the scale.
PROBE_FUNC void clock_fix_scale() noexcept {
  clock_init();
  clock_state& s = clock_globals();
  if (__atomic_load_n(&s.scale_fixed, __ATOMIC_ACQUIRE)) return;
  lock_guard<mutex> g(s.m);
  if (s.scale_fixed) return;
  uint64_t t = 0;
  int64_t ns = 0;
  for (;;) {
    sample_clock_pair(g_clock_kind, &t, &ns);
    if (ns - s.origin_ns >= 1000000 && t > s.origin_ticks) break;
  }
  s.ns_per_tick = static_cast<double>(ns - s.origin_ns) / static_cast<double>(t - s.origin_ticks);
  __atomic_store_n(&s.scale_fixed, true, __ATOMIC_RELEASE);
}

PROBE_FUNC_DEF double ticks_to_ns(double ticks) noexcept {
  clock_state& s = clock_globals();
  if (!__atomic_load_n(&s.scale_fixed, __ATOMIC_ACQUIRE)) clock_fix_scale();
  return ticks * s.ns_per_tick;
}

// CLOCK_MONOTONIC nanoseconds of a reading (the trace's time base: processes on one machine
// share it, so their traces line up).
PROBE_FUNC int64_t ticks_to_monotonic_ns(uint64_t ticks) noexcept {
  clock_state& s = clock_globals();
  const double d = static_cast<double>(static_cast<int64_t>(ticks - s.origin_ticks));
  const double ns = ticks_to_ns(d);
  return s.origin_ns + static_cast<int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5);
}

PROBE_FUNC const char* clock_name() noexcept {
  switch (__atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE)) {
    case clock_tsc: return "tsc";
    case clock_cntvct: return "cntvct";
    case clock_monotonic: return "monotonic";
    default: return "unset";
  }
}

// Ticks per second of the chosen clock.
PROBE_FUNC double clock_frequency() noexcept { return 1e9 / ticks_to_ns(1.0); }

}  // namespace detail
PROBE_END_NAMESPACE
