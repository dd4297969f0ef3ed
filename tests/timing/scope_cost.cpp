// A loop of N iterations whose body is one timed PROBE_SCOPE, or two raw reads of the TSC
// (the baseline a scope's cost is stated against). check_scope_cost.py runs it under
// valgrind's callgrind, which counts instructions whatever the machine's load, and bounds
// what a scope adds to its two clock reads.
//
//   scope_cost scopes|recorded|reads|off|empty N      (PROBE_FLAGS gives the timing flags)
//
// `off` runs the scopes' loop with every flag off (nothing recorded) and `empty` the same loop
// without the scope: what a scope costs when off, which should be its one branch.
// `recorded` is `scopes` ended with _exit once every event is aggregated: a trace's JSON,
// made when the trace is published at exit, is left out, so what it counts is what
// recording a traced scope costs the program while it runs.
#include <probe/probe.hpp>
#include <probe/effects/timing_control.hpp>  // timing_lookup

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace {

template <class T>
inline void keep(const T& v) {
  asm volatile("" : : "r,m"(v) : "memory");
}

// Named and not inlined: callgrind's --toggle-collect counts only what runs inside them.
__attribute__((noinline)) void scope_loop(long n) {
  for (long i = 0; i < n; ++i) {
    PROBE_SCOPE("scope_cost");
    keep(i);
  }
}

__attribute__((noinline)) void empty_loop(long n) {
  for (long i = 0; i < n; ++i) keep(i);
}

__attribute__((noinline)) void reads_loop(long n) {
  for (long i = 0; i < n; ++i) {
#if defined(__x86_64__)
    const unsigned long long a = __builtin_ia32_rdtsc();
    const unsigned long long b = __builtin_ia32_rdtsc();
    keep(b - a);
#else
    keep(i);
#endif
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: scope_cost scopes|recorded|reads|off|empty N\n");
    return 2;
  }
  const long n = atol(argv[2]);
  if (strcmp(argv[1], "off") == 0) {
    { PROBE_SCOPE("warm_up"); }  // flags parsed once, not counted per scope
    scope_loop(n);
    return 0;
  }
  if (strcmp(argv[1], "empty") == 0) {
    empty_loop(n);
    return 0;
  }
  const bool recorded = strcmp(argv[1], "recorded") == 0;
  if (strcmp(argv[1], "scopes") == 0 || recorded) {
    { PROBE_SCOPE("warm_up"); }  // flags parsed, clock chosen, thread registered: not counted per scope
    scope_loop(n);
    uint64_t count = 0;
    double total = 0;
    // Everything recorded is aggregated (and written, with a trace) before the count is read.
    if (!probe::detail::timing_lookup("scope_cost", 's', &count, &total) || count != static_cast<uint64_t>(n)) {
      fprintf(stderr, "scope_cost: the summary counted %llu scopes, not %ld\n", static_cast<unsigned long long>(count), n);
      return 1;
    }
    if (recorded) _exit(0);
  } else {
    reads_loop(n);
  }
  return 0;
}
