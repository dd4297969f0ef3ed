// probe's own messages (log.hpp): definitions.
#pragma once
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <new>

#include "io_signals.hpp"
#include "log.hpp"
#include "sync.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct log_target {
  log_sink sink;
  void* user;
  log_target* next;  // every target ever set (see g_log_targets)
};
// Read and replaced whole: a message in flight keeps the target it loaded.
inline log_target* g_log_target = nullptr;
// Targets are never freed (a message may be in flight through one) but stay reachable here,
// and setting the same sink again reuses its target.
inline log_target* g_log_targets = nullptr;

}  // namespace detail

PROBE_API void set_log_sink(log_sink sink, void* user) noexcept {
  // Never freed: another thread may be reporting through the previous target right now.
  static detail::static_mutex m;
  detail::lock_guard<detail::static_mutex> g(m);
  detail::log_target* t = nullptr;
  if (sink) {
    for (detail::log_target* k = detail::g_log_targets; k && !t; k = k->next)
      if (k->sink == sink && k->user == user) t = k;
    if (!t) {
      t = new (std::nothrow) detail::log_target{sink, user, detail::g_log_targets};
      if (!t) return;
      detail::g_log_targets = t;
    }
  }
  __atomic_store_n(&detail::g_log_target, t, __ATOMIC_RELEASE);
}

namespace detail {

PROBE_API void vlog(const char* fmt, va_list ap) noexcept {
  char stack_buf[2048];
  char* buf = stack_buf;
  size_t cap = sizeof stack_buf;
  static const char prefix[] = "probe: ";
  const size_t n = sizeof prefix - 1;
  memcpy(buf, prefix, n);
  va_list again;
  va_copy(again, ap);
  int m = vsnprintf(buf + n, cap - n - 1, fmt, ap);
  if (m < 0) m = 0;
  // A long message (a long op name in it) is written whole: its reason comes last.
  char* heap = nullptr;
  if (n + static_cast<size_t>(m) + 2 > cap && (heap = static_cast<char*>(malloc(n + static_cast<size_t>(m) + 2)))) {
    memcpy(heap, prefix, n);
    buf = heap;
    cap = n + static_cast<size_t>(m) + 2;
    m = vsnprintf(buf + n, cap - n - 1, fmt, again);
    if (m < 0) m = 0;
  }
  va_end(again);
  size_t len = n + static_cast<size_t>(m);
  if (len > cap - 2) len = cap - 2;
  while (len > n && buf[len - 1] == '\n') --len;
  if (const log_target* t = __atomic_load_n(&g_log_target, __ATOMIC_ACQUIRE)) {
    buf[len] = 0;
    t->sink(buf + n, t->user);
  } else {
    buf[len++] = '\n';
    // stderr may be a pipe whose reader is gone: the message is lost, the host goes on.
    io_signal_guard quiet;
    fflush(stderr);
    if (::write(2, buf, len) < 0) note_io_error(errno);
  }
  free(heap);
}

PROBE_API void log(const char* fmt, ...) noexcept {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

PROBE_API void log_once(int* flag, const char* fmt, ...) noexcept {
  if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED)) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

}  // namespace detail
PROBE_END_NAMESPACE
