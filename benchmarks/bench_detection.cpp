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
// Then the clear set again with its ends made as real nightly series start and stop
// (synthetic_edges.hpp): the level next to each end cut to 3-9 runs, and beyond it a level of
// 1-2 runs, a wild run or failed runs; the same targets.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/changepoint.hpp"
#include "analysis/detection_score.hpp"
#include "analysis/synthetic_edges.hpp"
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

// The changes next to an edge, and the edge runs of 10 sd or more set aside as outliers.
struct edge_tally {
  pa::detection_tally next_by_length[k_classes];
  size_t edge_runs = 0, edge_runs_reported = 0;
  pa::detection_tally next_all() const {
    pa::detection_tally t;
    for (const auto& c : next_by_length) t.add(c);
    return t;
  }
};

template <class Keep>
pa::detection_outcome run_one(const pa::synthetic_series& s, Keep keep, detector_pair* d) {
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
  return a;
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

  // edges: the clear set's series with their ends remade
  using ek = pa::edge_kind;
  struct edge_case {
    const char* name;
    pa::edge_options first, last;
    bool failed;  // 1-3 failed runs at both ends
  };
  const edge_case cases[] = {
      {"levels next to the ends cut to 3-9 runs", {ek::none}, {ek::none}, false},
      {"+ 1-2 runs at another level at the start", {ek::short_level}, {ek::none}, false},
      {"+ 1-2 runs at another level at the end", {ek::none}, {ek::short_level}, false},
      {"+ 1-2 runs at another level at both ends", {ek::short_level}, {ek::short_level}, false},
      {"+ a wild run at both ends", {ek::wild_run}, {ek::wild_run}, false},
      {"+ failed runs at both ends", {ek::none}, {ek::none}, true},
      {"+ a short level, a wild run, failed runs beyond them", {ek::short_level}, {ek::wild_run}, true},
  };
  const size_t n_cases = sizeof cases / sizeof cases[0];
  std::vector<detector_pair> edges(n_cases);
  std::vector<edge_tally> edge_stats(n_cases);
  for (size_t e = 0; e < n_cases; ++e)
    for (size_t k = 0; k < clear_noise.size(); ++k)
      for (size_t i = 0; i < per_noise; ++i) {
        pa::synthetic_options o;
        o.noise = clear_noise[k];
        o.min_step = k_min_change;
        o.min_step_sigmas = 10;
        const uint64_t seed = 1000000 + 10000 * k + i;
        pa::edge_options first = cases[e].first, last = cases[e].last;
        pa::split_mix g(seed + 77 * e);
        if (cases[e].failed) {
          first.failed = g.between(1, 3);
          last.failed = g.between(1, 3);
        }
        std::vector<size_t> edge_runs;
        const pa::synthetic_series s = pa::with_edges(pa::generate_series(o, seed), first, last, o, seed + e, &edge_runs);
        if (s.changes.empty()) continue;
        const size_t first_change = s.changes.front().run, last_change = s.changes.back().run;
        const pa::detection_outcome a = run_one(s, [](const pa::true_change&) { return true; }, &edges[e]);
        pa::add_by_length(s, a, [&](const pa::true_change& c) { return c.run == first_change || c.run == last_change; },
                          edge_stats[e].next_by_length);
        for (size_t t = 0; t < s.outliers.size(); ++t)
          if (std::find(edge_runs.begin(), edge_runs.end(), s.outliers[t].run) != edge_runs.end() &&
              s.outliers[t].sigmas >= 10) {
            ++edge_stats[e].edge_runs;
            edge_stats[e].edge_runs_reported += a.outlier_reported[t];
          }
        ++series;
      }
  std::printf("\nEdges (the clear set, %zu series a row, its ends remade), all changes:\n\n",
              clear_noise.size() * per_noise);
  print_header("ends");
  for (size_t e = 0; e < n_cases; ++e) print_row(cases[e].name, edges[e].probe.all(), edges[e].baseline.all());
  std::printf("\nEdges, probe: the changes next to an edge, the worst level length of 2 runs or more, the edge "
              "runs (>= 10 sd) set aside:\n\n");
  std::printf("| ends | changes next to an edge: recall / exact | worst level length (2+ runs): recall / precision | "
              "edge runs set aside |\n| --- | --- | --- | --- |\n");
  for (size_t e = 0; e < n_cases; ++e) {
    double worst_recall = 1, worst_precision = 1;
    for (size_t c = 1; c < k_classes; ++c) {
      worst_recall = std::min(worst_recall, edges[e].probe.by_length[c].recall());
      worst_precision = std::min(worst_precision, edges[e].probe.by_length[c].precision());
    }
    const pa::detection_tally next = edge_stats[e].next_all();
    std::printf("| %s | %.3f / %.3f (%zu) | %.3f / %.3f | %zu of %zu |\n", cases[e].name, next.recall(),
                next.exact_share(), next.changes, worst_recall, worst_precision, edge_stats[e].edge_runs_reported,
                edge_stats[e].edge_runs);
  }

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
