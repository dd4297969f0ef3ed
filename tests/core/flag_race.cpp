// First use of probe from many threads at once: the flags are parsed exactly once and every
// thread sees the same options. Exit code 0 on success.
#include <probe/probe.hpp>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

int main() {
  std::atomic<int> go{0};
  std::vector<std::thread> ts;
  const probe::options* seen[16] = {};
  bool on[16] = {};
  for (int i = 0; i < 16; ++i)
    ts.emplace_back([&, i] {
      while (!go.load()) {
      }
      probe::op op("race");  // the gate's slow path parses
      on[i] = op.active();
      seen[i] = &probe::options_ref();
    });
  go = 1;
  for (auto& t : ts) t.join();
  int bad = 0;
  for (int i = 0; i < 16; ++i) {
    if (seen[i] != seen[0] || !on[i]) ++bad;
    if (!seen[i]->reference) ++bad;
  }
  std::printf("%s\n", bad ? "FAIL" : "ok");
  return bad ? 1 : 0;
}
