// The ends of a synthetic series (synthetic_series.hpp) made the way real nightly series start
// and stop: the level next to an end cut short (3 to 9 runs), then beyond it one or two runs
// at another level (a machine change before the first nights), a wild run (a crashed first or
// last run that still printed a number), and failed runs. For bench_detection and its test.
//
// The truth: a level of one or two runs at an end is too few runs to be a level, so its runs
// are outliers of the level beside them (true_outlier), and the change into it is none; the
// changes after it are what a detector must still find.
// Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <probe/util/config.hpp>
#include "synthetic_series.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

enum class edge_kind { none, short_level, wild_run };

struct edge_options {
  edge_kind kind = edge_kind::none;
  size_t failed = 0;         // failed runs beyond it, at the very end (0 to 3)
  bool cut_level = true;     // the level next to the end cut to 3-9 runs with a value
};

namespace detail {

// The same series backwards: the end becomes the start, with its truth.
inline synthetic_series reversed(const synthetic_series& s) {
  synthetic_series r = s;
  const size_t n = s.runs.size();
  std::reverse(r.runs.begin(), r.runs.end());
  auto flip = [n](run_range v) { return run_range{n - v.end, n - v.begin}; };
  r.levels.clear();
  for (size_t i = s.levels.size(); i-- > 0;) r.levels.push_back(flip(s.levels[i]));
  r.drifts.clear();
  for (size_t i = s.drifts.size(); i-- > 0;) r.drifts.push_back(flip(s.drifts[i]));
  r.outliers.clear();
  for (size_t i = s.outliers.size(); i-- > 0;) {
    true_outlier o = s.outliers[i];
    o.run = n - 1 - o.run;
    r.outliers.push_back(o);
  }
  r.changes.clear();
  for (size_t i = s.changes.size(); i-- > 0;) {
    true_change c = s.changes[i];
    c.run = n - c.run;
    c.rel = 1 / (1 + c.rel) - 1;
    c.sigmas = std::fabs(c.rel) / s.spread;
    if (c.kind == true_change_kind::dip_start) c.kind = true_change_kind::dip_end;
    else if (c.kind == true_change_kind::dip_end) c.kind = true_change_kind::dip_start;
    r.changes.push_back(c);
  }
  return r;
}

inline bool is_outlier_run(const synthetic_series& s, size_t run) {
  for (const true_outlier& o : s.outliers)
    if (o.run == run) return true;
  return false;
}

// The end of s as `e` says; `steps` draws the size of a short level's shift. Appends the
// runs of the edge (outliers of the last level) to *edge_runs.
inline void add_edge_at_end(synthetic_series* sp, const edge_options& e, const synthetic_options& steps, split_mix& g,
                            std::vector<size_t>* edge_runs) {
  synthetic_series& s = *sp;
  run_range& last = s.levels.back();
  if (e.cut_level && s.changes.size() > 0) {
    // keep `want` runs with a value that are not outliers, and no outlier in the last two runs
    const size_t want = g.between(3, 9);
    size_t end = last.begin, kept = 0;
    while (end < last.end && kept < want) {
      if (!std::isnan(s.runs[end]) && !is_outlier_run(s, end)) ++kept;
      ++end;
    }
    while (end < last.end && (is_outlier_run(s, end - 1) || (end >= 2 && is_outlier_run(s, end - 2)))) ++end;
    s.runs.resize(end);
    last.end = end;
    s.outliers.erase(std::remove_if(s.outliers.begin(), s.outliers.end(),
                                    [end](const true_outlier& o) { return o.run >= end; }),
                     s.outliers.end());
    for (run_range& d : s.drifts) d.end = std::min(d.end, end);
    s.drifts.erase(std::remove_if(s.drifts.begin(), s.drifts.end(), [](const run_range& d) { return d.end <= d.begin + 1; }),
                   s.drifts.end());
    const run_range& before = s.levels[s.levels.size() - 2];
    s.changes.back().shorter = std::min(before.end - before.begin, last.end - last.begin);
  }
  // the level's value: the median of its runs with a value that are not outliers
  std::vector<double> v;
  for (size_t r = last.begin; r < last.end; ++r)
    if (!std::isnan(s.runs[r]) && !is_outlier_run(s, r)) v.push_back(s.runs[r]);
  std::sort(v.begin(), v.end());
  const double level = v.empty() ? 1 : v[v.size() / 2];
  auto add_run = [&](double rel) {
    const size_t r = s.runs.size();
    s.runs.push_back(level * (1 + rel + s.noise * g.normal()));
    s.outliers.push_back({r, rel, std::fabs(rel) / s.spread});
    edge_runs->push_back(r);
    ++last.end;
  };
  if (e.kind == edge_kind::short_level) {
    const double rel = (g.chance(0.5) ? 1 : -1) * draw_step(g, steps);
    const size_t runs = g.between(1, 2);
    for (size_t i = 0; i < runs; ++i) add_run(rel);
  } else if (e.kind == edge_kind::wild_run) {  // as the wild runs inside levels
    const bool down = g.chance(0.7);
    double rel = down ? -g.uniform(0.15, 0.6) : g.uniform(0.1, 0.4);
    const double least = 12 * s.spread * g.uniform(1, 2);
    if (std::fabs(rel) < least) rel = down ? -std::min(least, 0.95) : least;
    add_run(rel);
  }
  for (size_t i = 0; i < e.failed; ++i) {
    s.runs.push_back(std::numeric_limits<double>::quiet_NaN());
    ++last.end;
  }
}

}  // namespace detail

// s with its start and its end made as `first` and `last` say; `steps`: the options s was
// generated with (a short level's shift is drawn as its steps are). The runs of the edges
// (outliers of the levels beside them) go to *edge_runs, in order.
inline synthetic_series with_edges(const synthetic_series& s, const edge_options& first, const edge_options& last,
                                   const synthetic_options& steps, uint64_t seed, std::vector<size_t>* edge_runs) {
  split_mix g(seed * 0x9e3779b97f4a7c15ull + 7);
  synthetic_options o = steps;
  o.noise = s.spread;
  std::vector<size_t> at_start, at_end;
  synthetic_series r = detail::reversed(s);
  detail::add_edge_at_end(&r, first, o, g, &at_start);
  r = detail::reversed(r);
  const size_t n = r.runs.size();
  for (size_t& run : at_start) run = n - 1 - run;
  detail::add_edge_at_end(&r, last, o, g, &at_end);
  std::sort(r.outliers.begin(), r.outliers.end(), [](const true_outlier& a, const true_outlier& b) { return a.run < b.run; });
  edge_runs->clear();
  edge_runs->insert(edge_runs->end(), at_start.rbegin(), at_start.rend());
  edge_runs->insert(edge_runs->end(), at_end.begin(), at_end.end());
  return r;
}

}  // namespace analysis
PROBE_END_NAMESPACE
