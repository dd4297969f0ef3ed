// Health stats bandwidth: compute_health on a 256 MiB float32 tensor against memcpy of the
// same bytes, measured in the same run (target: stats at >= 0.5x memcpy bandwidth, i.e. a
// time ratio stats / memcpy <= 2). Also reports other dtypes and a strided view.
#include <probe/probe.hpp>
#include <probe/core/stats.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "harness.hpp"

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const size_t bytes = bench::quick() ? (size_t{8} << 20) : (size_t{256} << 20);
  const size_t n = bytes / sizeof(float);
  std::vector<float> x(n), dst(n);
  std::mt19937 rng(7);
  std::normal_distribution<float> g(3.0f, 2.0f);
  for (auto& v : x) v = g(rng);
  std::memset(dst.data(), 1, bytes);  // fault the pages in before timing

  const probe::tensor_view v = probe::view(x.data(), static_cast<int64_t>(n));
  double sink = 0;
  auto stats = [&] {
    const probe::health h = probe::compute_health(v);
    sink += h.std;
    bench::do_not_optimize(sink);
  };
  auto copy = [&] {
    std::memcpy(dst.data(), x.data(), bytes);
    bench::do_not_optimize(dst.data());  // the destination escapes: the copy must happen
  };
  const int samples = bench::quick() ? 3 : 15;
  const auto timed = bench::time_pair_ns(stats, copy, 1, samples);
  const bench::result s = timed.first, c = timed.second;
  std::printf("bench_stats: %zu MiB float32\n", bytes >> 20);
  bench::print_row("compute_health float32 (ms)", {s.median / 1e6, s.mad / 1e6, s.samples}, "ms");
  bench::print_row("memcpy same bytes (ms)", {c.median / 1e6, c.mad / 1e6, c.samples}, "ms");
  std::printf("%-48s %.2f GB/s\n", "compute_health bandwidth", static_cast<double>(bytes) / s.median);
  std::printf("%-48s %.2f GB/s\n", "memcpy bandwidth", static_cast<double>(bytes) / c.median);
  std::printf("%-48s %.3f  (target >= 0.5)\n", "stats bandwidth / memcpy bandwidth", c.median / s.median);

  // Other layouts, for the record (not part of the target).
  auto report = [&](const char* name, const probe::tensor_view& w) {
    auto r = bench::time_ns([&] { sink += probe::compute_health(w).mean; bench::do_not_optimize(sink); }, 1,
                            bench::quick() ? 3 : 7);
    std::printf("%-48s %.2f GB/s  (%.3f of memcpy)\n", name,
                static_cast<double>(w.nbytes()) / r.median,
                (static_cast<double>(w.nbytes()) / r.median) / (static_cast<double>(bytes) / c.median));
  };
  report("float32 transposed view", probe::view(x.data(), {static_cast<int64_t>(n / 4096), 4096},
                                                {1, static_cast<int64_t>(n / 4096)}));
  std::vector<double> d(n / 2);
  for (size_t i = 0; i < d.size(); ++i) d[i] = x[i];
  report("float64 contiguous", probe::view(d.data(), static_cast<int64_t>(d.size())));
  std::vector<probe::float16> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = probe::to_float16(x[i]);
  report("float16 contiguous", probe::view(h.data(), static_cast<int64_t>(n)));
  std::vector<int32_t> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = static_cast<int32_t>(x[i] * 100);
  report("int32 contiguous", probe::view(k.data(), static_cast<int64_t>(n)));
  std::vector<float> nan_mix(x);
  for (size_t i = 0; i < n; i += 1000) nan_mix[i] = NAN;
  report("float32, a NaN every 1000 values", probe::view(nan_mix.data(), static_cast<int64_t>(n)));
  return sink == 12345.678 ? 1 : 0;
}
