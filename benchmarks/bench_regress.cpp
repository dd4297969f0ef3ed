// probe regress on long series: the change-point search on 10,000 runs (target: well under
// 1 s), how it scales from 1,000 runs, the incremental energy split against the direct
// O(n^2) one, and the whole report (analysis + text + JSON + SVG) on 10,000 runs.
#include "analysis/regress_plot.hpp"
#include "analysis/regress_json.hpp"
#include "analysis/regress_report.hpp"
#include "analysis/regress_text.hpp"

#include <cmath>
#include <cstdint>

#include "harness.hpp"

namespace pa = probe::analysis;

namespace {

// Nightly-like series: steps, a short dip, and 1% gaussian noise (splitmix64 + Box-Muller).
std::vector<double> nightly(size_t n, uint64_t seed) {
  auto next = [&seed] {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (static_cast<double>((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
  };
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) {
    const double f = static_cast<double>(i) / static_cast<double>(n);
    double level = f < 0.3 ? 577 : f < 0.6 ? 540 : f < 0.8 ? 560 : 530;
    if (i >= n / 2 && i < n / 2 + 6) level = 480;  // a dip of six runs
    x[i] = level * (1 + 0.01 * std::sqrt(-2 * std::log(next())) * std::cos(6.283185307179586 * next()));
  }
  return x;
}

double ms(const bench::result& r) { return r.median / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const std::vector<double> x10k = nightly(10000, 1), x1k = nightly(1000, 2);
  size_t found = 0;

  auto [big, small] = bench::time_pair_ns([&] { found = pa::find_change_points(x10k).changes.size(); },
                                          [&] { bench::do_not_optimize(pa::find_change_points(x1k).changes.size()); },
                                          1, 7);
  std::printf("change points on 10,000 runs: %zu found\n", found);
  std::printf("%-48s %12.2f ms\n", "find_change_points, 10,000 runs", ms(big));
  std::printf("%-48s %12.2f ms\n", "find_change_points, 1,000 runs", ms(small));
  bench::print_ratio("10,000 runs / 1,000 runs (linear = 10)", big, small);

  const std::vector<double> seg(x10k.begin(), x10k.begin() + 4000);
  auto [incremental, quadratic] =
      bench::time_pair_ns([&] { bench::do_not_optimize(pa::detail::best_energy_split(seg, 0, seg.size(), 3)); },
                          [&] { bench::do_not_optimize(pa::detail::best_energy_split(seg, 0, seg.size(), 3, true)); },
                          1, 5);
  std::printf("%-48s %12.2f ms\n", "energy split of 4,000 points, incremental", ms(incremental));
  std::printf("%-48s %12.2f ms\n", "energy split of 4,000 points, direct O(n^2)", ms(quadratic));
  bench::print_ratio("incremental / direct", incremental, quadratic);

  std::vector<pa::run_record> runs(x10k.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].label = "nightly-" + std::to_string(i + 1);
    runs[i].values = {x10k[i]};
  }
  pa::regress_settings settings;
  settings.metric = "MLUPS";
  size_t bytes = 0;
  const bench::result whole = bench::time_ns(
      [&] {
        const pa::regress_report r = pa::analyze_regressions(runs, settings);
        bytes = pa::regress_text(r).size() + pa::regress_json(r).size() + pa::regress_svg(r).size();
      },
      1, 5);
  std::printf("%-48s %12.2f ms  (%zu bytes of output)\n", "report on 10,000 runs: analysis+text+JSON+SVG", ms(whole),
              bytes);
  return 0;
}
