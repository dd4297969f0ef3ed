// timing_aggregate: definitions (see timing_aggregate.hpp).
#pragma once
#include "timing_aggregate.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API void timing_watch_fork() noexcept {
  static const bool hooked = pthread_atfork(nullptr, nullptr, [] {
    __atomic_store_n(&g_timing_forked, true, __ATOMIC_RELAXED);
  }) == 0;
  (void)hooked;
}

}  // namespace detail
PROBE_END_NAMESPACE
