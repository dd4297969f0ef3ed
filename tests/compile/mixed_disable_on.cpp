// A program whose files disagree on PROBE_DISABLE (this one marks, mixed_disable_off.cpp is
// compiled with PROBE_DISABLE): each file's probe::op is its own class, so neither runs the
// other's constructor on its object. Built at -O0, where nothing is inlined to hide it.
#include <probe/probe.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

int run_disabled_op();

namespace {
int run_enabled_op() {
  volatile unsigned char canary[32];
  std::memset(const_cast<unsigned char*>(canary), 0xA5, sizeof canary);
  std::vector<float> y{1.f, 2.f, 3.f};
  {
    probe::op op("enabled_op", "Mark");
    op.output("y", y);
  }
  for (unsigned char c : canary)
    if (c != 0xA5) return 1;
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  probe::init(argc, argv);
  const int bad = run_enabled_op() + run_disabled_op() + run_enabled_op();
  std::printf("%s\n", bad ? "overwritten" : "ok");
  return bad;
}
