// Synthetic nightly benchmark series whose true events are known, for measuring how well
// change points are found (benchmarks/bench_detection.cpp) and for property tests: levels of
// 1 to 60 runs, steps, dips that recover, failed runs, outliers, slow drifts, bimodal runs,
// over relative noise from 0.01% upward. Deterministic: its own random numbers (splitmix64,
// Box-Muller), so a seed gives the same series on every platform and standard library.
//
// Conventions the truth follows, so that it is not ambiguous:
// - A level of one run sits between its neighbours (a stair: the step after it goes the same
//   way); a single run beyond both neighbours looks like a one-off and is made an outlier.
// - A dip (or spike) of one run that comes back is an outlier, not two changes; longer dips
//   are two changes, and come back to the exact value before them.
// - Outliers are placed inside levels of 5 runs or more, two runs or more from their ends.
// Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

class split_mix {
 public:
  explicit split_mix(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; }  // (0, 1)
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  size_t between(size_t a, size_t b) { return a + static_cast<size_t>(next() % (b - a + 1)); }  // [a, b]
  bool chance(double p) { return uniform() < p; }
  double normal() {
    const double u = uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  uint64_t s_;
};

enum class true_change_kind { step, dip_start, dip_end };

struct true_change {
  size_t run = 0;      // first run of the new level
  double rel = 0;      // relative change of the level's value
  double sigmas = 0;   // |change| in run-to-run standard deviations (spread)
  size_t shorter = 0;  // runs of the shorter of the two levels it separates
  true_change_kind kind = true_change_kind::step;
};

struct true_outlier {
  size_t run = 0;
  double rel = 0;  // against its level
  double sigmas = 0;
};

struct run_range {
  size_t begin = 0, end = 0;  // [begin, end) in runs
};

struct synthetic_series {
  std::vector<double> runs;            // one value per run; NaN for a failed run
  std::vector<true_change> changes;    // in order
  std::vector<true_outlier> outliers;  // wild runs and one-run dips
  std::vector<run_range> levels;       // the true segmentation (a one-run dip stays inside its level)
  std::vector<run_range> drifts;       // levels whose value moves slowly from start to end
  double noise = 0;                    // relative standard deviation of the noise of each run
  bool bimodal = false;                // some runs land in a second mode 2 to 4 noise sd away
  double spread = 0;                   // relative sd from run to run, second mode included
};

struct synthetic_options {
  double noise = 0.01;                       // relative standard deviation of each run
  size_t min_runs = 120, max_runs = 240;     // length of the series
  double min_step = 0.005, max_step = 0.15;  // |relative step|, log-uniform between them
  double min_step_sigmas = 0;                // steps of at least this many run-to-run sd (max grows to fit)
  double dip_chance = 0.15;                  // after a level: a dip or spike that comes back
  size_t max_dip_runs = 6;
  double failed_chance = 0.02;           // each run of a level of 3 runs or more
  double failed_at_change_chance = 0.15;  // a run next to a change fails
  double outlier_chance = 0.01;           // each run where outliers may go
  double drift_chance = 0.3;              // the series holds one slowly drifting level
  double min_drift = 0.01, max_drift = 0.03;
  double bimodal_chance = 0.2;  // the series' runs are bimodal
};

// Lengths of levels: a class drawn with these weights, then a length within it uniformly.
// The same classes label the rows of the detection tables.
constexpr size_t level_length_classes = 5;
inline size_t level_length_class(size_t runs) { return runs <= 1 ? 0 : runs == 2 ? 1 : runs <= 5 ? 2 : runs <= 15 ? 3 : 4; }
inline const char* level_length_class_name(size_t c) {
  static const char* const names[level_length_classes] = {"1", "2", "3-5", "6-15", "16-60"};
  return c < level_length_classes ? names[c] : "?";
}

namespace detail {

struct planned_level {
  size_t runs = 0;
  double start = 0, end = 0;  // value at its first and last run (equal unless it drifts)
  bool one_run_dip = false;   // an excursion of one run: an outlier of the level around it
};

inline size_t draw_level_runs(split_mix& g) {
  static const double weights[level_length_classes] = {0.10, 0.15, 0.15, 0.20, 0.40};
  static const size_t lo[level_length_classes] = {1, 2, 3, 6, 16}, hi[level_length_classes] = {1, 2, 5, 15, 60};
  double u = g.uniform();
  size_t c = 0;
  while (c + 1 < level_length_classes && u >= weights[c]) u -= weights[c++];
  return g.between(lo[c], hi[c]);
}

inline double draw_step(split_mix& g, const synthetic_options& o) {
  const double lo = std::max(o.min_step, o.min_step_sigmas * o.noise);
  const double hi = std::max(o.max_step, 2 * lo);
  return std::exp(g.uniform(std::log(lo), std::log(hi)));
}

}  // namespace detail

inline synthetic_series generate_series(const synthetic_options& o, uint64_t seed) {
  split_mix g(seed * 0x2545f4914f6cdd1dull + 1);
  synthetic_series s;
  s.noise = o.noise;
  const size_t target = g.between(o.min_runs, o.max_runs);
  const bool want_drift = g.chance(o.drift_chance);
  s.bimodal = g.chance(o.bimodal_chance);
  const double bimodal_gap = (g.chance(0.5) ? 1 : -1) * g.uniform(2, 4);  // in noise sd
  const double bimodal_share = g.uniform(0.1, 0.4);
  // the run-to-run standard deviation, the second mode included: the unit of `sigmas`
  s.spread = o.noise * (s.bimodal ? std::sqrt(1 + bimodal_share * (1 - bimodal_share) * bimodal_gap * bimodal_gap) : 1);
  synthetic_options steps = o;
  steps.noise = s.spread;

  // 1. The plan: levels with their values.
  std::vector<detail::planned_level> plan;
  size_t total = 0;
  int last_sign = 1;
  bool drift_placed = false;
  auto add = [&](size_t runs, double start, bool one_run_dip) {
    detail::planned_level l;
    l.runs = runs;
    l.start = l.end = start;
    l.one_run_dip = one_run_dip;
    // a long level may drift (one per series), placed where one first fits with chance 1/2
    if (want_drift && !drift_placed && !one_run_dip && runs >= 30 && g.chance(0.5)) {
      l.end = start * (1 + (g.chance(0.5) ? 1 : -1) * g.uniform(o.min_drift, o.max_drift));
      drift_placed = true;
    }
    plan.push_back(l);
    total += runs;
  };
  add(g.between(10, 60), g.uniform(100, 1000), false);
  while (total < target) {
    const detail::planned_level prev = plan.back();
    if (!prev.one_run_dip && prev.runs >= 3 && g.chance(o.dip_chance)) {
      const size_t dip_runs = g.between(1, o.max_dip_runs);
      const double rel = (g.chance(0.7) ? -1 : 1) * detail::draw_step(g, steps);  // mostly dips
      add(dip_runs, prev.end * (1 + rel), dip_runs == 1);
      last_sign = rel < 0 ? 1 : -1;  // the way back: a one-run level after it stays between
      add(detail::draw_level_runs(g), prev.end, false);  // back to the value before the dip
      continue;
    }
    // after a level of one run the stair goes on the same way; a series strays no further
    // than about 30% from where it started (as benchmark results do), steps turn back there
    int sign = g.chance(0.5) ? 1 : -1;
    if (prev.end > 1.3 * plan.front().start) sign = -1;
    if (prev.end < plan.front().start / 1.3) sign = 1;
    if (prev.runs == 1) sign = last_sign;
    last_sign = sign;
    add(detail::draw_level_runs(g), prev.end * (1 + sign * detail::draw_step(g, steps)), false);
  }
  if (plan.back().runs < 10) {  // the last level long enough that its change is not a tail
    total += 10 - plan.back().runs;
    plan.back().runs = 10;
  }

  // 2. The runs, the truth's levels and changes.
  s.runs.reserve(total);
  std::vector<char> may_fail;  // per run: failing it keeps the truth well defined
  std::vector<double> clean;   // per run: the value without noise
  for (size_t k = 0; k < plan.size(); ++k) {
    const detail::planned_level& l = plan[k];
    const size_t begin = s.runs.size();
    for (size_t i = 0; i < l.runs; ++i) {
      const double level = l.runs > 1 ? l.start + (l.end - l.start) * static_cast<double>(i) / (l.runs - 1.0) : l.start;
      clean.push_back(level);
      double v = level * (1 + o.noise * g.normal());
      if (s.bimodal && g.chance(bimodal_share)) v += level * o.noise * bimodal_gap;
      s.runs.push_back(v);
      may_fail.push_back(l.runs >= 3 && !l.one_run_dip);
    }
    if (l.start != l.end) s.drifts.push_back({begin, begin + l.runs});
    if (l.one_run_dip) {
      const double base = plan[k - 1].end;
      s.outliers.push_back({begin, l.start / base - 1, std::fabs(l.start / base - 1) / s.spread});
    }
    // the true level: a one-run dip and the level after it continue the level before
    const bool continues = k > 0 && (l.one_run_dip || plan[k - 1].one_run_dip);
    if (continues)
      s.levels.back().end = begin + l.runs;
    else
      s.levels.push_back({begin, begin + l.runs});
    if (k == 0 || continues) continue;
    true_change c;
    c.run = begin;
    c.rel = l.start / plan[k - 1].end - 1;
    c.sigmas = std::fabs(c.rel) / s.spread;
    const bool dip_start = k + 1 < plan.size() && plan[k + 1].start == plan[k - 1].end;
    const bool dip_end = k >= 2 && l.start == plan[k - 2].end && !plan[k - 1].one_run_dip;
    c.kind = dip_start ? true_change_kind::dip_start : dip_end ? true_change_kind::dip_end : true_change_kind::step;
    s.changes.push_back(c);
  }
  for (size_t i = 0; i < s.changes.size(); ++i) {
    // the levels on both sides of change i are levels[i] and levels[i + 1]
    const run_range& a = s.levels[i];
    const run_range& b = s.levels[i + 1];
    s.changes[i].shorter = std::min(a.end - a.begin, b.end - b.begin);
  }

  // 3. Outliers: wild runs inside long levels, away from their ends.
  for (const run_range& lv : s.levels) {
    if (lv.end - lv.begin < 5) continue;
    for (size_t r = lv.begin + 2; r + 2 < lv.end; ++r) {
      if (!g.chance(o.outlier_chance)) continue;
      bool taken = false;
      for (const true_outlier& t : s.outliers) taken = taken || (t.run + 1 >= r && t.run <= r + 1);
      if (taken) continue;
      const bool down = g.chance(0.7);  // mostly crashed or throttled runs
      double rel = down ? -g.uniform(0.15, 0.6) : g.uniform(0.1, 0.4);
      const double least = 12 * s.spread * g.uniform(1, 2);
      if (std::fabs(rel) < least) rel = down ? -std::min(least, 0.95) : least;
      s.runs[r] = clean[r] * (1 + rel + o.noise * g.normal());
      may_fail[r] = 0;
      s.outliers.push_back({r, rel, std::fabs(rel) / s.spread});
    }
  }
  std::sort(s.outliers.begin(), s.outliers.end(), [](const true_outlier& a, const true_outlier& b) { return a.run < b.run; });

  // 4. Failed runs: some at random, some right next to a change (the last run before it or
  // the first after it). A level keeps at least two runs with a value.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto fail = [&](size_t r) {
    if (r >= s.runs.size() || !may_fail[r]) return;
    for (const run_range& lv : s.levels)
      if (r >= lv.begin && r < lv.end) {
        size_t valued = 0;
        for (size_t i = lv.begin; i < lv.end; ++i) valued += !std::isnan(s.runs[i]);
        if (valued <= 2) return;
      }
    s.runs[r] = nan;
  };
  for (const true_change& c : s.changes)
    if (g.chance(o.failed_at_change_chance)) fail(g.chance(0.5) ? c.run : c.run - 1);
  for (size_t r = 0; r < s.runs.size(); ++r)
    if (g.chance(o.failed_chance)) fail(r);
  return s;
}

}  // namespace analysis
PROBE_END_NAMESPACE
