// Runs the steps of a stencil (4 ops on 64 Ki floats, as benchmarks/bench_dump_filter.cpp)
// with the flags given as argv[1] ("" for every flag off): check_filter_cost.py counts its
// instructions under callgrind, with a dump filter that leaves every step out and without.
#include <probe/probe.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  constexpr size_t n = 64 * 1024;
  probe::set_flags(argc > 1 ? argv[1] : "");
  std::vector<float> f(n, 1.0f), g(n, 0.0f), rho(n, 0.0f);
  for (int64_t step = 0; step < 12; ++step) {
    probe::set_step(step);
    {
      probe::op op("collide", "Collide");
      op.input("f", f);
      for (size_t i = 0; i < n; ++i) f[i] += 0.6f * (0.5f * (f[i] + f[(i + 1) % n]) - f[i]);
      op.output("f", f);
    }
    {
      probe::op op("stream", "Stream");
      op.input("f", f);
      for (size_t i = 0; i < n; ++i) g[(i + 1) % n] = f[i];
      op.output("g", g);
    }
    {
      probe::op op("bounce", "BounceBack");
      for (size_t i = 0; i < n; i += 256) g[i] = -g[i];
      op.output("g", g);
    }
    {
      probe::op op("macro", "Moments");
      op.input("g", g);
      for (size_t i = 0; i < n; ++i) rho[i] = g[i] * g[i] + 1.0f;
      op.output("rho", rho);
    }
    f.swap(g);
  }
  std::printf("rho %g\n", static_cast<double>(rho[7]));
  return 0;
}
