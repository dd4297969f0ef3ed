// Process-level control of every effect. Light header.
#pragma once
#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE

#if defined(PROBE_DISABLE)
inline void flush() noexcept {}
#else
// Writes out everything pending: queued prints and callbacks run, the dump manifest and graph,
// the trace file and summary so far. Also runs at normal exit (return from main, std::exit).
PROBE_API void flush() noexcept;
#endif

PROBE_END_NAMESPACE
