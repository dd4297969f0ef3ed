// Detection quality of `find_change_points` (probe regress, default options) on synthetic
// nightly series whose true events are known (analysis/synthetic_series.hpp), against an
// Otava-style E-Divisive baseline (edivisive_baseline.hpp) on the same series in the same run.
// Prints markdown tables: recall, precision and date accuracy by level length and by noise.
//
// Two sets of series, every feature of the generator in both (dips, failed runs, outliers,
// drifts, bimodal runs):
// - clear: every step at least 10 noise sd and 1%, noise 0.01% to 1%: the targets
//   (recall and precision >= 0.98 for levels of 2 runs or more, dates exact) apply here;
// - mixed: steps of 0.5% to 15% whatever the noise, noise 0.01% to 3%.
// Steps under 1% (the default --min-change) are not asked for: finding one counts neither way.
#include <chrono>
#include <cstdio>
#include <string>

#include "analysis/changepoint.hpp"
#include "analysis/detection_score.hpp"
#include "analysis/synthetic_series.hpp"
#include "edivisive_baseline.hpp"
#include "harness.hpp"

namespace pa = probe::analysis;

namespace {

constexpr size_t k_classes = pa::level_length_classes;
constexpr double k_min_change = 0.01;  // find_change_points' default

struct tallies {
  pa::detection_tally by_length[k_classes];
  double seconds = 0;
  size_t outliers = 0, outliers_reported = 0;
  pa::detection_tally all() const {
    pa::detection_tally t;
    for (const auto& c : by_length) t.add(c);
    return t;
  }
};

struct detector_pair {
  tallies probe, baseline;
};

std::vector<size_t> probe_changes(const std::vector<double>& x, std::vector<size_t>* outliers) {
  const pa::segmentation seg = pa::find_change_points(x);
  std::vector<size_t> out;
  for (const auto& c : seg.changes) out.push_back(c.index);
  *outliers = seg.outliers;
  return out;
}

template <class Keep>
void run_one(const pa::synthetic_series& s, Keep keep, detector_pair* d) {
  const std::vector<double> x = pa::point_values(s);
  std::vector<size_t> outliers;
  auto t0 = std::chrono::steady_clock::now();
  const std::vector<size_t> mine = probe_changes(x, &outliers);
  auto t1 = std::chrono::steady_clock::now();
  const std::vector<size_t> theirs = edivisive_baseline::change_points(x);
  auto t2 = std::chrono::steady_clock::now();
  d->probe.seconds += std::chrono::duration<double>(t1 - t0).count();
  d->baseline.seconds += std::chrono::duration<double>(t2 - t1).count();
  const pa::detection_outcome a = pa::score_detections(s, mine, k_min_change, outliers);
  const pa::detection_outcome b = pa::score_detections(s, theirs, k_min_change);
  pa::add_by_length(s, a, keep, d->probe.by_length);
  pa::add_by_length(s, b, keep, d->baseline.by_length);
  for (size_t i = 0; i < s.outliers.size(); ++i)
    if (s.outliers[i].sigmas >= 10) {
      ++d->probe.outliers;
      d->probe.outliers_reported += a.outlier_reported[i];
    }
}

std::string cell(const pa::detection_tally& t) {
  char buf[64];
  if (t.changes == 0 && t.false_detections == 0) return "-";
  std::snprintf(buf, sizeof buf, "%.3f / %.3f", t.recall(), t.precision());
  return buf;
}

void print_row(const char* name, const pa::detection_tally& p, const pa::detection_tally& b) {
  std::printf("| %s | %zu | %.3f | %.3f | %.3f (%.2f) | %.3f | %.3f | %.3f (%.2f) |\n", name, p.changes, p.recall(),
              p.precision(), p.exact_share(), p.mean_error(), b.recall(), b.precision(), b.exact_share(),
              b.mean_error());
}

void print_header(const char* first) {
  std::printf("| %s | true changes | probe recall | probe precision | probe exact dates (mean error) | "
              "E-Divisive recall | E-Divisive precision | E-Divisive exact dates (mean error) |\n",
              first);
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
}

std::string noise_name(double noise) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", 100 * noise);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const size_t per_noise = bench::quick() ? 6 : 300;
  const std::vector<double> clear_noise{0.0001, 0.0003, 0.001, 0.003, 0.01};
  const std::vector<double> mixed_noise{0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03};
  auto every = [](const pa::true_change&) { return true; };
  size_t series = 0;

  // clear set
  std::vector<detector_pair> clear(clear_noise.size());
  for (size_t k = 0; k < clear_noise.size(); ++k)
    for (size_t i = 0; i < per_noise; ++i) {
      pa::synthetic_options o;
      o.noise = clear_noise[k];
      o.min_step = k_min_change;
      o.min_step_sigmas = 10;
      run_one(pa::generate_series(o, 1000000 + 10000 * k + i), every, &clear[k]);
      ++series;
    }
  // mixed set
  std::vector<detector_pair> mixed(mixed_noise.size()), noisy_big(1);
  for (size_t k = 0; k < mixed_noise.size(); ++k)
    for (size_t i = 0; i < per_noise; ++i) {
      pa::synthetic_options o;
      o.noise = mixed_noise[k];
      const pa::synthetic_series s = pa::generate_series(o, 2000000 + 10000 * k + i);
      run_one(s, every, &mixed[k]);
      if (o.noise == 0.01) run_one(s, [](const pa::true_change& c) { return std::fabs(c.rel) >= 0.03; }, &noisy_big[0]);
      ++series;
    }

  std::printf("%zu series (%zu per noise level)\n\n", series, per_noise);
  std::printf("Clear set (every step >= 10 sd and >= 1%%), by level length (the shorter level of a change):\n\n");
  print_header("level length (runs)");
  detector_pair clear_all;
  for (const auto& d : clear)
    for (size_t c = 0; c < k_classes; ++c) {
      clear_all.probe.by_length[c].add(d.probe.by_length[c]);
      clear_all.baseline.by_length[c].add(d.baseline.by_length[c]);
    }
  for (size_t c = 0; c < k_classes; ++c)
    print_row(pa::level_length_class_name(c), clear_all.probe.by_length[c], clear_all.baseline.by_length[c]);
  print_row("all", clear_all.probe.all(), clear_all.baseline.all());

  std::printf("\nClear set by noise level:\n\n");
  print_header("noise");
  for (size_t k = 0; k < clear_noise.size(); ++k)
    print_row(noise_name(clear_noise[k]).c_str(), clear[k].probe.all(), clear[k].baseline.all());

  for (int which = 0; which < 2; ++which) {
    std::printf("\nMixed set (steps 0.5-15%%), recall / precision of %s by noise and level length:\n\n",
                which == 0 ? "probe" : "the E-Divisive baseline");
    std::printf("| noise |");
    for (size_t c = 0; c < k_classes; ++c) std::printf(" %s |", pa::level_length_class_name(c));
    std::printf(" all | exact dates (mean error) |\n| --- |");
    for (size_t c = 0; c <= k_classes + 1; ++c) std::printf(" --- |");
    std::printf("\n");
    for (size_t k = 0; k < mixed_noise.size(); ++k) {
      const tallies& t = which == 0 ? mixed[k].probe : mixed[k].baseline;
      std::printf("| %s |", noise_name(mixed_noise[k]).c_str());
      for (size_t c = 0; c < k_classes; ++c) std::printf(" %s |", cell(t.by_length[c]).c_str());
      const pa::detection_tally all = t.all();
      std::printf(" %s | %.3f (%.2f) |\n", cell(all).c_str(), all.exact_share(), all.mean_error());
    }
  }

  std::printf("\nNoisy series (mixed set, 1%% noise), steps >= 3%%:\n\n");
  print_header("set");
  print_row("1% noise, steps >= 3%", noisy_big[0].probe.all(), noisy_big[0].baseline.all());

  tallies total_probe, total_base;
  for (const auto* set : {&clear, &mixed})
    for (const auto& d : *set) {
      total_probe.seconds += d.probe.seconds;
      total_base.seconds += d.baseline.seconds;
      total_probe.outliers += d.probe.outliers;
      total_probe.outliers_reported += d.probe.outliers_reported;
    }
  std::printf("\nwild runs (>= 10 sd) reported as outliers by probe: %zu of %zu\n", total_probe.outliers_reported,
              total_probe.outliers);
  std::printf("time: probe %.2f s, E-Divisive baseline %.2f s (probe / baseline %.2f)\n", total_probe.seconds,
              total_base.seconds, total_probe.seconds / total_base.seconds);
  return 0;
}
