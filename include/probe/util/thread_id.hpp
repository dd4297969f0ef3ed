// Thread identities: a small per-process index (stable for a thread's life, dense from 0)
// and the OS thread id (what profilers and debuggers show). Small inline functions.
#pragma once
#include <stdint.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline uint32_t g_next_thread_index = 0;
inline thread_local uint32_t t_thread_index = ~0u;

inline uint32_t thread_index() noexcept {
  if (PROBE_UNLIKELY(t_thread_index == ~0u))
    t_thread_index = __atomic_fetch_add(&g_next_thread_index, 1, __ATOMIC_RELAXED);
  return t_thread_index;
}

inline long os_thread_id() noexcept {
#if defined(__linux__)
  static thread_local long tid = static_cast<long>(syscall(SYS_gettid));
  return tid;
#else
  return static_cast<long>(thread_index());
#endif
}

}  // namespace detail
PROBE_END_NAMESPACE
