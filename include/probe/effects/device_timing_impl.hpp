// gpu_timing: definitions (see gpu_timing.hpp).
#pragma once
#include "../util/immortal.hpp"
#include "device_timing.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API gpu_timing_state& gpu_state() noexcept {
  static immortal<gpu_timing_state> s;  // never destroyed: used at exit
  return s.get();
}

PROBE_API void gpu_resolve_at_exit() noexcept {
  gpu_timing_state& s = gpu_state();
  lock_guard<mutex> g(s.m);
  for (gpu_event_pool* p : s.pools)
    if (p && !p->failed()) p->resolve(true);
  s.exit_resolved = true;
}

PROBE_API void gpu_collect(bool final_flush, std::vector<gpu_op_timing>& out) noexcept {
  gpu_timing_state& s = gpu_state();
  try {
    lock_guard<mutex> g(s.m);
    size_t unresolved = 0;
    uint64_t dropped = 0, lost = 0;
    for (gpu_event_pool* p : s.pools) {
      if (!p) continue;
      if (!s.exit_resolved && !p->failed()) p->resolve(false);
      p->collect(out);
      unresolved += p->pending();
      dropped += p->dropped();
      lost += p->lost();
    }
    if (final_flush && (unresolved || lost))
      log_once(&s.told_failed, "%zu device op timing(s) still pending at exit and %llu unreadable: "
               "left out of the trace and summary", unresolved, static_cast<unsigned long long>(lost));
    if (dropped)
      log_once(&s.told_dropped, "more than %zu device ops in flight: some device op timings were "
               "dropped (they resume as earlier ones complete)", k_gpu_max_pairs);
  } catch (...) {
  }
}

PROBE_API void set_gpu_backend(gpu_event_api* events, const range_hooks* ranges) noexcept {
  static immortal<gpu_device_timing> timing_storage;  // never destroyed: used at exit
  gpu_device_timing* const timing = &timing_storage.get();
  gpu_timing_state& s = gpu_state();
  {
    lock_guard<mutex> g(s.m);
    s.api = events;
    // A previous backend's pools go; their events are left alone (that runtime may be gone).
    for (gpu_event_pool*& p : s.pools) {
      delete p;
      p = nullptr;
    }
  }
  __atomic_store_n(&g_range_hooks, ranges, __ATOMIC_RELEASE);
  __atomic_store_n(&g_device_timing, static_cast<device_timing*>(timing), __ATOMIC_RELEASE);
  // Installed after the flags were read (static initialization order): listen to ops now.
  flag_state& f = flags();
  if (__atomic_load_n(&f.parsed, __ATOMIC_ACQUIRE)) apply_options(options_ref());
}

}  // namespace detail
PROBE_END_NAMESPACE
