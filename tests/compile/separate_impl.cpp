// The one TU that compiles probe's implementation in large-codebase mode.
#define PROBE_IMPLEMENTATION
#include <probe/probe.hpp>

#include <cstdio>
#include <string>

uint64_t mark_once(const float* x, int n);
std::string format_in_marking_tu(const float* x, int n);
double debug_effects_in_marking_tu(const float* x, int n);

int main() {
  float x[3] = {1, 2, 3};
  const uint64_t a = mark_once(x, 3), b = mark_once(x, 3);
  // PROBE_FLAGS enables dumping, so both ops are recorded with consecutive numbers.
  if (a == 0 || b != a + 1) {
    std::printf("FAIL: sequence %llu then %llu\n", (unsigned long long)a, (unsigned long long)b);
    return 1;
  }
  const std::string text = format_in_marking_tu(x, 3);
  if (text != "n=3 x=[1. 2. 3.] 0.50") {
    std::printf("FAIL: format gave '%s'\n", text.c_str());
    return 1;
  }
  const double sum = debug_effects_in_marking_tu(x, 3);
  if (sum != 6.0) {
    std::printf("FAIL: the callback saw a sum of %g\n", sum);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
