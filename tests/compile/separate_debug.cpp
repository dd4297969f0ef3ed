// Debug effects from a marking TU in large-codebase mode: print, callback and breakpoints
// need no <string> or <vector>; the work links to the implementation TU.
#include <probe/probe.hpp>

#ifdef _GLIBCXX_STRING
#error "PROBE_SEPARATE_IMPLEMENTATION must not pull <string> into marking TUs"
#endif
#ifdef _GLIBCXX_VECTOR
#error "PROBE_SEPARATE_IMPLEMENTATION must not pull <vector> into marking TUs"
#endif

namespace {
double g_sum = 0;
}

// The sum of x as a callback saw it, after a barrier.
double debug_effects_in_marking_tu(const float* x, int n) {
  probe::print("marking TU: n={} x={}", n, probe::view(x, n));
  probe::callback(
      [](probe::tensor_view t) {
        double s = 0;
        for (int64_t i = 0; i < t.numel(); ++i) s += static_cast<const float*>(t.data)[i];
        g_sum = s;
      },
      probe::view(x, n));
  probe::effects_barrier();
  probe::breakpoint_if_nonfinite("x", probe::view(x, n));
  if (n < 0) PROBE_BREAKPOINT(probe::var("x", probe::view(x, n)));
  return g_sum;
}
