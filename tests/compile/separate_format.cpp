// probe::format from a marking TU in large-codebase mode: probe.hpp alone must not bring
// <string>; the caller includes it, and the formatting itself links to the implementation TU.
#include <probe/probe.hpp>

#ifdef _GLIBCXX_STRING
#error "PROBE_SEPARATE_IMPLEMENTATION must not pull <string> into marking TUs"
#endif

#include <string>

std::string format_in_marking_tu(const float* x, int n) {
  std::string s = probe::format("n={} x={}", n, probe::view(x, n));
  probe::format_to(s, " {:.2f}", 0.5);
  return s;
}
