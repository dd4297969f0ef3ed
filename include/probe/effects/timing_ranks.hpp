// One trace file for every rank of an MPI job (--probe_trace_to=FILE under mpirun): each rank
// writes its own part (FILE.rank_0003.part) and a small clock file (FILE.rank_0003.clock),
// both named by the launcher's job too where it names one (FILE.job_<id>.rank_0003.part);
// the rank that finishes last, seeing every rank's clock file, merges the parts into FILE,
// each rank a process of its own ("rank 3"), its times moved onto rank 0's clock, and removes
// the parts. A rank that never finishes (killed) leaves the others' parts in place: each is a
// complete trace of its own. Internal header (timing_impl.hpp).
#pragma once
#include <stdint.h>

#include <string>

#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// A CLOCK_MONOTONIC instant every rank shares (probe::mpi takes it right after a barrier in
// MPI_Init); 0 when none was taken: then the ranks' clocks are aligned through the wall clock.
inline int64_t g_rank_sync_ns = 0;

// The file this rank's trace goes to: `path` alone, or its rank part under MPI (several ranks).
PROBE_API std::string rank_trace_part(const std::string& path);

// At exit, after the part is complete: writes the clock file; merges every rank's part into the
// trace file when they are all there.
PROBE_API void rank_trace_finish() noexcept;

// Merges the parts of ranks 0..world-1 of `path` (of the launcher's job `job`, "" for none)
// into `path` and removes them; false with *error when a part or clock file cannot be read
// (nothing is removed then).
PROBE_API bool merge_rank_traces(const std::string& path, const std::string& job, int world, std::string* error);

}  // namespace detail
PROBE_END_NAMESPACE
