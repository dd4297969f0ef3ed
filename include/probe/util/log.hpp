// probe's own messages ("cannot write DIR/x.npy: No space left on device; dumping stops").
// Each is one line. By default it goes to stderr prefixed "probe: ", written with a single
// write so lines from several threads never interleave; an engine that routes its logs sets
// a sink and receives every message instead.
#pragma once
#include <stdarg.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE

// Receives one message (no "probe: " prefix, no newline) and the pointer given with the
// sink. Called on the thread that reports, possibly from several threads at once, and
// possibly during exit; it must not call back into probe.
using log_sink = void (*)(const char* message, void* user);

#if defined(PROBE_DISABLE)
inline void set_log_sink(log_sink, void* = nullptr) noexcept {}
#else
// Sends every later message to `sink` (nullptr: back to stderr).
PROBE_API void set_log_sink(log_sink sink, void* user = nullptr) noexcept;
#endif

namespace detail {

PROBE_API void vlog(const char* fmt, va_list ap) noexcept;

// One message.
PROBE_API PROBE_PRINTF_LIKE(1, 2) void log(const char* fmt, ...) noexcept;

// Logs only the first time `*flag` is seen false; for "report once, then turn off" errors.
PROBE_API PROBE_PRINTF_LIKE(2, 3) void log_once(int* flag, const char* fmt, ...) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
