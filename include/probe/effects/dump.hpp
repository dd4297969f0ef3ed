// The dump effect as the wiring sees it: one listener for the whole process, configured from
// the options; flushed when asked, finished at exit. Everything else stays in the module
// (dump_impl.hpp and the files it includes).
#pragma once
#include <string>

#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE
struct options;
namespace detail {
class op_listener;

// The process's dump listener, configured with `o` (writes nothing when o.dump is false).
PROBE_API op_listener* dump_configure(const options& o) noexcept;
// Writes what the run has so far (the graphs); the run goes on.
PROBE_API void dump_flush() noexcept;
// Ends the run for good: graphs, the manifest's end record.
PROBE_API void dump_finish() noexcept;
// Whether the dump writes (configured, not stopped or failed).
PROBE_API bool dump_active() noexcept;
// Writes `name` (no '/') whole into the run folder, opening the run when no op did yet, then
// appends `line` to its manifest; an empty name appends the line only. False when the dump
// is off, stopped or failed.
PROBE_API bool dump_write_run_file(const std::string& name, const std::string& body, const std::string& line) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
