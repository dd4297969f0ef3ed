// timing_clock: definitions (see timing_clock_source.hpp).
#pragma once
#include "../util/immortal.hpp"
#include "../core/flags.hpp"
#include "timing_clock_source.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API clock_state& clock_globals() noexcept {
  static immortal<clock_state> s;  // never destroyed: used at exit
  return s.get();
}

PROBE_API bool cpu_has_invariant_tsc() noexcept {
  unsigned regs[4] = {};  // eax, ebx, ecx, edx
  cpuid(0x80000000u, regs);  // eax: the highest extended leaf
  if (regs[0] < 0x80000007u) return false;
  cpuid(0x80000007u, regs);
  return (regs[3] & (1u << 8)) != 0;
}

PROBE_API bool kernel_distrusts_tsc() noexcept {
  const int fd = ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY);
  if (fd < 0) return false;
  char buf[32] = {};
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  return strncmp(buf, "hpet", 4) == 0 || strncmp(buf, "acpi_pm", 7) == 0;
}

PROBE_API uint64_t read_clock(uint8_t kind) noexcept {
#if defined(__x86_64__)
  if (kind == clock_tsc) return read_tsc();
#elif defined(__aarch64__)
  if (kind == clock_cntvct) return read_cntvct();
#endif
  (void)kind;
  return static_cast<uint64_t>(monotonic_ns());
}

PROBE_API void sample_clock_pair(uint8_t kind, uint64_t* ticks, int64_t* ns) noexcept {
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

PROBE_API uint8_t choose_clock(const char* forced) noexcept {
  if (forced && strcmp(forced, "monotonic") == 0) return clock_monotonic;
#if defined(__x86_64__)
  if (forced && strcmp(forced, "tsc") == 0) return clock_tsc;
  if (cpu_has_invariant_tsc() && !kernel_distrusts_tsc()) return clock_tsc;
#elif defined(__aarch64__)
  if (read_cntfrq() != 0) return clock_cntvct;
#endif
  return clock_monotonic;
}

PROBE_API void clock_init() noexcept {
  if (__atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE) != clock_unset) return;
  // The first reading may come before any mark (a probe::timer made first thing in main):
  // the flags are read first, so that --probe_timing_clock chooses this clock. Reentrant:
  // while the flags are being applied on this thread it returns at once.
  ensure_parsed();
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

PROBE_API bool clock_request(const char* kind) noexcept {
  clock_state& s = clock_globals();
  lock_guard<mutex> g(s.m);
  if (g_clock_kind != clock_unset) return false;
  s.forced = kind && strcmp(kind, "auto") != 0 ? kind : nullptr;
  return true;
}

PROBE_API uint64_t clock_now_slow() noexcept {
  uint8_t kind = __atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE);
  if (kind == clock_unset) {
    clock_init();
    kind = __atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE);
  }
  return read_clock(kind);
}

PROBE_API void clock_fix_scale() noexcept {
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

PROBE_API double ticks_to_ns(double ticks) noexcept {
  clock_state& s = clock_globals();
  if (!__atomic_load_n(&s.scale_fixed, __ATOMIC_ACQUIRE)) clock_fix_scale();
  return ticks * s.ns_per_tick;
}

PROBE_API int64_t ticks_to_monotonic_ns(uint64_t ticks) noexcept {
  clock_state& s = clock_globals();
  const double d = static_cast<double>(static_cast<int64_t>(ticks - s.origin_ticks));
  const double ns = ticks_to_ns(d);
  return s.origin_ns + static_cast<int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5);
}

PROBE_API const char* clock_name() noexcept {
  switch (__atomic_load_n(&g_clock_kind, __ATOMIC_ACQUIRE)) {
    case clock_tsc: return "tsc";
    case clock_cntvct: return "cntvct";
    case clock_monotonic: return "monotonic";
    default: return "unset";
  }
}

PROBE_API double clock_frequency() noexcept { return 1e9 / ticks_to_ns(1.0); }

}  // namespace detail
PROBE_END_NAMESPACE
