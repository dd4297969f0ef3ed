// Breakpoint scenarios for check_breakpoints.py, which runs them under different modes,
// inputs (pipes, a commands file, a pty) and gdb.
//   breakpoint_program SCENARIO     basic twice loop threads nonfinite_ops nonfinite_check
#include <probe/probe.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace {

__attribute__((noinline)) void run_basic() {
  std::vector<float> y{1, 2, 3, 4, 5, 6};
  int step = 7;
  probe::op outer("block", "Block");
  outer.input("x", probe::view(y.data(), {2, 3}));
  probe::op conv("conv1", "Conv");
  conv.output("out", y);
  PROBE_BREAKPOINT(probe::var("y", probe::view(y.data(), {2, 3})), probe::var("step", step));  // basic-line
  std::printf("after the breakpoint\n");
}

void run_twice() {
  int a = 1;
  double b = 2.5;
  PROBE_BREAKPOINT(probe::var("a", a));  // twice-a
  PROBE_BREAKPOINT(probe::var("b", b));  // twice-b
  std::printf("after both\n");
}

// One breakpoint reached three times, at steps 1, 2, 3, inside ops L1.mlp, L2.attn, L3.mlp.
void run_loop() {
  for (int i = 1; i <= 3; ++i) {
    probe::set_step(i);
    probe::op layer(i == 2 ? "L2.attn" : "L" + std::to_string(i) + ".mlp", "Block");
    PROBE_BREAKPOINT(probe::var("i", i));  // loop-line
  }
  std::printf("loop done\n");
}

void run_threads() {
  std::vector<std::thread> pool;
  for (int k = 0; k < 2; ++k)
    pool.emplace_back([k] {
      const int t = 100 + k;
      PROBE_BREAKPOINT(probe::var("t", t));
    });
  for (auto& t : pool) t.join();
  std::printf("threads done\n");
}

// Three ops; the second writes +Inf, the third NaN. Integer outputs are never checked.
void run_nonfinite_ops() {
  std::vector<float> x{1, 2}, y{0, 0}, z{0, 0};
  std::vector<int> n{1, 2};
  {
    probe::op op("op1", "Add");
    op.input("x", x);
    for (size_t i = 0; i < 2; ++i) x[i] += 1;
    op.output("y", x).output("n", n);
  }
  {
    probe::op op("op2", "Mul");
    op.input("x", x);
    y[0] = x[0] * 2;
    y[1] = std::numeric_limits<float>::infinity();
    op.output("y", y);
  }
  {
    probe::op op("op3", "Sub");
    op.input("y", y);
    z[0] = y[1] - y[1];
    z[1] = 1;
    op.output("z", z);
  }
  std::printf("ops done\n");
}

// Values growing step by step: op 'grow' outputs 5, then 150, then 1e6; then a print of -2e6.
void run_large() {
  std::vector<float> y{1, -1};
  for (int step = 1; step <= 3; ++step) {
    probe::set_step(step);
    probe::op op("grow", "Mul");
    op.input("x", y);
    const float f = step == 1 ? 5.f : step == 2 ? 150.f : 1e6f;
    y = {f, -f / 2};
    op.output("y", y);
  }
  std::vector<double> small{1, 2};
  probe::print("small {} and {}", small, 3.5);
  probe::print("big {} {}", 1, -2e6);
  probe::effects_barrier();
  std::printf("large done\n");
}

void run_nonfinite_check() {
  std::vector<double> ok{1, 2, 3}, bad{1, std::nan(""), -std::numeric_limits<double>::infinity()};
  probe::breakpoint_if_nonfinite("ok", ok);
  probe::breakpoint_if_nonfinite("bad", bad);  // nonfinite-line
  std::printf("checks done\n");
}

// NaN only at the third arrival: the stop is hit 3, as every arrival counts.
void run_nonfinite_loop() {
  for (int i = 0; i < 3; ++i) {
    std::vector<double> v{1, i == 2 ? std::nan("") : 2.0};
    probe::breakpoint_if_nonfinite("v", v);
  }
  std::printf("loop done\n");
}

// A print before each of two stops: off a terminal, each print comes before its stop's line.
void run_printed() {
  for (int i = 0; i < 2; ++i) {
    probe::print("print {}", i);
    PROBE_BREAKPOINT(probe::var("i", i));
  }
  std::printf("printed done\n");
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc < 2) return 2;
  const char* s = argv[1];
  if (!std::strcmp(s, "basic")) run_basic();
  else if (!std::strcmp(s, "twice")) run_twice();
  else if (!std::strcmp(s, "nonfinite_loop")) run_nonfinite_loop();
  else if (!std::strcmp(s, "threads")) run_threads();
  else if (!std::strcmp(s, "loop")) run_loop();
  else if (!std::strcmp(s, "large")) run_large();
  else if (!std::strcmp(s, "nonfinite_ops")) run_nonfinite_ops();
  else if (!std::strcmp(s, "nonfinite_check")) run_nonfinite_check();
  else if (!std::strcmp(s, "printed")) run_printed();
  else return 2;
  return 0;
}
