// The PROBE_DISABLE half of mixed_disable_on.cpp.
#include <probe/probe.hpp>

#include <cstring>
#include <vector>

#if !defined(PROBE_DISABLE)
#error "compile this file with PROBE_DISABLE"
#endif

int run_disabled_op() {
  volatile unsigned char canary[32];
  std::memset(const_cast<unsigned char*>(canary), 0x5A, sizeof canary);
  std::vector<float> y{4.f, 5.f};
  {
    probe::op op("disabled_op", "Mark");
    op.output("y", y);
  }
  for (unsigned char c : canary)
    if (c != 0x5A) return 1;
  return 0;
}
