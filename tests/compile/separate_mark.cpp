// A marking TU in large-codebase mode: sees declarations and inline fast paths only.
#include <probe/probe.hpp>

#ifdef _GLIBCXX_STRING
#error "PROBE_SEPARATE_IMPLEMENTATION must not pull <string> into marking TUs"
#endif
#ifdef _GLIBCXX_VECTOR
#error "PROBE_SEPARATE_IMPLEMENTATION must not pull <vector> into marking TUs"
#endif

uint64_t mark_once(const float* x, int n) {
  PROBE_SCOPE("mark_once");
  probe::op op("scale", "Mul");
  op.input("x", probe::view(x, n));
  return op.sequence();
}
