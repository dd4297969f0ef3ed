// Flags off in a real kernel: a marked conv layer (op with input, weights, output around a
// 3x3 convolution loop nest) against the same layer unmarked, in one run, with every flag
// off. Built twice: bench_flags_off_header_only and bench_flags_off_compiled. Target:
// marked <= 1.01x unmarked in both modes.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../harness.hpp"

struct conv_shape {
  int c_in, c_out, h, w;
};
void conv_marked(const conv_shape&, const std::vector<float>&, const std::vector<float>&, const std::vector<float>&,
                 std::vector<float>&);
void conv_unmarked(const conv_shape&, const std::vector<float>&, const std::vector<float>&,
                   const std::vector<float>&, std::vector<float>&);

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  unsetenv("PROBE_FLAGS");
  const conv_shape s{16, 16, 28, 28};
  std::vector<float> x(static_cast<size_t>(s.c_in) * s.h * s.w), wt(static_cast<size_t>(s.c_out) * s.c_in * 9),
      bias(static_cast<size_t>(s.c_out)), y(static_cast<size_t>(s.c_out) * s.h * s.w);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17) * 0.25f - 2;
  for (size_t i = 0; i < wt.size(); ++i) wt[i] = static_cast<float>(i % 7) * 0.125f - 0.4f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.01f * static_cast<float>(i);
  // Several rounds: the first warms caches and lets probe read its (empty) flags.
  std::printf("conv %dx%d, %d -> %d channels, 3x3, every probe flag off (%s)\n", s.h, s.w, s.c_in, s.c_out,
              PROBE_BENCH_MODE);
  for (int round = 0; round < (bench::quick() ? 1 : 3); ++round) {
    const auto r = bench::time_pair_ns([&] { conv_marked(s, x, wt, bias, y); },
                                       [&] { conv_unmarked(s, x, wt, bias, y); }, 200, 31);
    bench::print_pair("marked conv layer", r, "unmarked conv layer");
  }
  bench::do_not_optimize(y[0]);
  return 0;
}
