// What each of probe's own threads does first: block every signal, so that signals meant for
// the program reach the program's threads, and take a name that shows in debuggers and top.
// Internal header.
#pragma once
#include <pthread.h>
#include <signal.h>

#include "config.hpp"
#include "io_signals.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline void become_background_thread(const char* name) noexcept {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  io_signals_blocked_for_good();
#if defined(__linux__)
  pthread_setname_np(pthread_self(), name);
#else
  (void)name;
#endif
}

}  // namespace detail
PROBE_END_NAMESPACE
