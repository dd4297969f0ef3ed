// probe's own messages to stderr: one line each, prefixed "probe: ", written with a single
// write so lines from several threads never interleave. Implementation-only header.
#pragma once
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_FUNC void vlog(const char* fmt, va_list ap) noexcept {
  char buf[2048];
  int n = snprintf(buf, sizeof buf, "probe: ");
  int m = vsnprintf(buf + n, sizeof buf - static_cast<size_t>(n) - 1, fmt, ap);
  if (m < 0) m = 0;
  size_t len = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (len > sizeof buf - 2) len = sizeof buf - 2;
  if (len == 0 || buf[len - 1] != '\n') buf[len++] = '\n';
  fflush(stderr);
  ssize_t w = ::write(2, buf, len);
  (void)w;
}

// One message line on stderr.
PROBE_FUNC PROBE_PRINTF_LIKE(1, 2) void log(const char* fmt, ...) noexcept {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

// Logs only the first time `*flag` is seen false; for "report once, then turn off" errors.
PROBE_FUNC PROBE_PRINTF_LIKE(2, 3) void log_once(int* flag, const char* fmt, ...) noexcept {
  if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED)) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

}  // namespace detail
PROBE_END_NAMESPACE
