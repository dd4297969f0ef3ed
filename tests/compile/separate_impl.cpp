// The one TU that compiles probe's implementation in large-codebase mode.
#define PROBE_IMPLEMENTATION
#include <probe/probe.hpp>

#include <cstdio>

uint64_t mark_once(const float* x, int n);

int main() {
  float x[3] = {1, 2, 3};
  const uint64_t a = mark_once(x, 3), b = mark_once(x, 3);
  // PROBE_FLAGS enables dumping, so both ops are recorded with consecutive numbers.
  if (a == 0 || b != a + 1) {
    std::printf("FAIL: sequence %llu then %llu\n", (unsigned long long)a, (unsigned long long)b);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
