// Chrome trace files as probe show reads them (one process's trace or an MPI job's merged
// one, written by probe or by another tool): events of any shape, process names, durations
// and the trace's own notes, then the table printed from them.
#include <probe/probe.hpp>

#include <string>

#include "analysis/trace_ranks.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(probe_fuzz::as_text(data, size));
  (void)probe::analysis::looks_like_trace(text);
  probe::analysis::trace_ranks t;
  std::string error;
  if (!probe::analysis::read_trace_ranks(text, &t, &error)) {
    if (error.empty()) __builtin_trap();  // a refusal says why
    return 0;
  }
  const std::string table = probe::analysis::trace_ranks_text(t, size % 10);
  if (table.compare(0, 7, "trace: ") != 0) __builtin_trap();
  return 0;
}
