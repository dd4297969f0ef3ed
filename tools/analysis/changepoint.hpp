// Change points of a series: candidates from E-Divisive means (the method of Apache Otava,
// formerly Hunter) and from jumps between neighbours, then a merge pass that keeps a change
// only where the evidence for it holds. Deterministic: no random numbers anywhere.
//
// 0. Scale, noise and outliers. Rates and times vary in proportion to their size (a level at
//    7.4 and one at 1.2, 1% each): when every value is above zero the search runs on their
//    logs, where that noise is one figure, and a relative change is a difference
//    (changepoint_types.hpp: value_scale). Levels, changes and edges are reported in the
//    metric's units; the noise and sd counts on the search's scale. The noise sigma comes from successive differences (robust to a few
//    steps), then from the differences inside the levels found, and the search is run again
//    while that is much smaller (many short levels inflate the first estimate). Single wild
//    runs (outliers.hpp) are set aside before the search, so that they neither become changes
//    nor hide one, and are reported. So are edge levels: one or two runs at either end, far
//    from the level beside them (outliers.hpp: find_edge_runs), too few to be a level of their
//    own and, folded into the level beside them, enough to hide the change after it. What
//    would leave an end level too few runs is given back (restore_end_levels): a level
//    noisier than the series' one noise figure is a level, not a wild run beside a stub.
// 1. Candidates, from three searches whose union covers short and long changes:
//    - local: windows of `window` points overlapping by half; E-Divisive proper in each
//      (energy_split.hpp: the split tau and end kappa maximising Q(tau, kappa), 3 points a
//      side at least), recursing while the split's t-test gives p <= candidate_pvalue;
//    - global: binary segmentation of the whole series by the energy statistic, O(L log L)
//      per split, 2 points a side at least, for long small shifts that no window can see;
//    - jumps: every difference between neighbours above 4 sigma, so that a large step is
//      proposed at its exact run however short the levels around it (cheaper than windows
//      that look at pieces of 2 points).
// 2. Merge pass, on evidence: each candidate is judged on the stretches up to its neighbours;
//    the weakest failing one goes and its neighbours are judged again, until every change
//    left holds:
//    - a side shorter than 3 points (a short level) holds, between two other levels, when the
//      shift is at least `short_level_sigmas` (6) noise sd: evidence decides, not a fixed
//      minimum, so a level of one or two runs counts in a quiet series while a noisy series
//      needs longer levels (its shifts are fewer sigmas). 6 sigma is 8.5 standard errors for
//      a two-run mean, and leaves room for the error of a one- or two-run mean and of sigma
//      itself, so that shifts of 10 sigma are found. A level of one point must lie between
//      the levels around it (a stair): beyond both, it is a wild run that no size can tell
//      from a level. The first and last levels need 3 points (shorter ones far off are edge
//      levels, set aside in 0.). An explicit `min_points` is a fixed minimum for every level
//      instead.
//    - a longer side: Welch's t, each side's variance moderated toward sigma^2 (`prior_df`
//      degrees of freedom), with the p-value multiplied by the number of places a change could
//      have been put (n - 2 min_points + 1: a Bonferroni correction for the search), so that a
//      series without change gets a false report with a probability of about max_pvalue,
//      however long it is. n counts the edge runs set aside: leaving them out makes the test
//      of the rest no easier to pass than it was with them.
//    Short levels that fail go first (smallest shift), then insignificant changes (largest p).
// 3. A level whose spread is far above the noise (3 sigma) holds a change that was missed: its
//    best split is proposed and the merge pass runs again (at most 3 rounds).
// 4. Drifts (level_drift.hpp): three or more levels in a row that step the same way, which one
//    straight line fits about as well as the steps do, are one drifting level, not a staircase.
// 5. Size: the merge pass again, now also dropping the smallest change while its relative
//    size is under `min_change`; a drifting level is measured by its line's value where it
//    meets the change, not by its mean.
// The last one or two points, too few to judge, are reported as a possible change at the end;
// the first ones, set aside as an edge level, with their shift from the first level.
// Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include <probe/util/config.hpp>
#include "change_finder.hpp"
#include "changepoint_types.hpp"
#include "energy_split.hpp"
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace detail {

// Whether the search runs on logs: every value above zero (and finite: a log of infinity
// would make every sum infinite), and asked for, or automatic and the values not quantized
// (a quantum is the same at every level: in logs the equal steps would be unequal).
inline bool search_on_logs(const std::vector<double>& x, value_scale scale) {
  if (scale == value_scale::linear || x.empty()) return false;
  for (double v : x)
    if (!(v > 0) || !std::isfinite(v)) return false;
  return scale == value_scale::log || !quantized(x);
}

}  // namespace detail

inline segmentation find_change_points(const std::vector<double>& values, const changepoint_options& asked = {}) {
  segmentation out;
  const size_t n = values.size();
  changepoint_options opt = asked;
  out.log_scale = detail::search_on_logs(values, asked.scale);
  opt.scale = out.log_scale ? value_scale::log : value_scale::linear;
  std::vector<double> logs;
  if (out.log_scale)
    for (double v : values) logs.push_back(std::log(v));
  const std::vector<double>& x = out.log_scale ? logs : values;  // what the search sees
  const size_t m = detail::end_level_points(opt);
  out.min_points = m;
  out.enough_points = n >= 2 * m;

  // The first estimate is inflated only by the steps among the differences, by less than
  // twice unless most of them are steps: the refined one stays above half of it, so that a
  // series that some levels happen to fit exactly cannot talk its noise down to nothing.
  const double first_sigma = noise_from_differences(x);
  double sigma = first_sigma;
  detail::segmentation_pass pass;
  for (int round = 0;; ++round) {
    pass = detail::segment_at_noise(x, opt, sigma, out.enough_points);
    const double within = noise_within_levels(detail::without_drifts(pass.y, pass.drifts), pass.cps, sigma);
    const double next = std::max(within, first_sigma / 2);
    if (round + 1 >= detail::k_noise_rounds || !(next < detail::k_noise_shrink * sigma)) break;
    sigma = next;
  }
  const std::vector<double>& y = pass.y;
  const std::vector<size_t>& cps = pass.cps;
  const detail::change_finder finder(y, opt, sigma, pass.edges.head + pass.edges.tail, pass.edges.short_head);
  out.noise = sigma;
  out.prior_df = finder.prior_df();
  for (size_t i = 0; i < n; ++i)
    if (pass.outlier[i]) out.outliers.push_back(i);
  // the values of y in the metric's units, for the figures a report shows
  std::vector<double> y_values;
  for (size_t i : pass.at) y_values.push_back(values[i]);
  const detail::prefix_moments value_moments(y_values);
  auto unscale = [&](double v) { return out.log_scale ? std::exp(v) : v; };

  // levels and changes, in points of x; statistics from y (outliers left out)
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cps.begin(), cps.end());
  bounds.push_back(y.size());
  for (size_t k = 0; n > 0 && k + 1 < bounds.size(); ++k) {
    const size_t a = bounds[k], b = bounds[k + 1];
    segment_summary s;
    s.begin = k == 0 ? 0 : pass.at[a];
    s.end = b == y.size() ? n : pass.at[b];
    const moments mo = value_moments.of(a, b), so = finder.stretch(a, b);
    s.mean = mo.mean;
    s.sd = mo.sd();
    s.search_mean = so.mean;
    s.search_sd = so.sd();
    const auto first = y_values.begin() + static_cast<std::ptrdiff_t>(a);
    s.min = *std::min_element(first, y_values.begin() + static_cast<std::ptrdiff_t>(b));
    s.max = *std::max_element(first, y_values.begin() + static_cast<std::ptrdiff_t>(b));
    s.outliers = s.count() - (b - a);
    for (const detail::drift_range& d : pass.drifts)
      if (d.begin == a && d.end == b) {
        s.drifting = true;
        s.line_start = unscale(d.line_start);
        s.line_end = unscale(d.line_end);
        s.drift = relative_change(s.line_start, s.line_end);
      }
    out.levels.push_back(s);
  }
  for (size_t i = 0; i < cps.size(); ++i) {
    change_point c;
    c.index = pass.at[cps[i]];
    c.last_before = pass.at[cps[i] - 1];
    c.before = out.levels[i];
    c.after = out.levels[i + 1];
    c.p_value = finder.change_p(bounds[i], bounds[i + 1], bounds[i + 2], pass.drifts);
    // measured between the levels' means, or a drifting level's line where it meets the change
    c.rel_change = relative_change(c.before.drifting ? c.before.line_end : c.before.mean,
                                   c.after.drifting ? c.after.line_start : c.after.mean);
    const std::pair<double, double> v = finder.values_across(bounds[i], bounds[i + 1], bounds[i + 2], pass.drifts);
    const double shift = v.second - v.first;
    c.sigmas = sigma > 0 ? shift / sigma : shift == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), shift);
    out.changes.push_back(c);
  }

  // Edge levels, against the level beside them.
  auto edge = [&](size_t begin, size_t end, const segment_summary& level) {
    edge_level e;
    e.begin = begin;
    e.end = end;
    double sum = 0, search_sum = 0;
    for (size_t i = begin; i < end; ++i) {
      sum += values[i];
      search_sum += x[i];
    }
    const double count = static_cast<double>(end - begin);
    e.rel_change = relative_change(level.mean, sum / count);
    const double shift = search_sum / count - level.search_mean;
    e.sigmas = detail::shift_sigmas(0, shift, sigma) * (shift < 0 ? -1 : 1);
    return e;
  };
  if (pass.edges.head) out.first_edge = edge(0, pass.edges.head, out.levels.front());
  if (pass.edges.tail) out.last_edge = edge(n - pass.edges.tail, n, out.levels.back());

  // The last few points may have moved, with too few of them to conclude: say so. Of the
  // tail lengths of y that test significant, the one with the largest |t| (the clearest
  // split). An edge level at the end is such a move, set aside already: a z-test of its mean
  // against the level before it; but a single wild last run after runs that moved (a step two
  // runs before the end, then a crashed last night) is an outlier, and the move is theirs.
  const size_t ny = y.size();
  auto y_tail = [&] {
    const size_t start = cps.empty() ? 0 : cps.back();
    double best_t = 0;
    for (size_t r = 1; r < m; ++r) {
      if (ny - r < start + 2) break;
      const size_t tb = ny - r;
      const t_test t = finder.test(start, tb, ny);
      const double p = std::min(1.0, t.p * static_cast<double>(m - 1));
      const double rel = relative_change(value_moments.of(start, tb).mean, value_moments.of(tb, ny).mean);
      if (p <= opt.max_pvalue && std::fabs(rel) >= opt.min_change && std::fabs(t.t) > best_t) {
        best_t = std::fabs(t.t);
        out.tail.present = true;
        out.tail.begin = pass.at[tb];
        out.tail.end = pass.at[ny - 1] + 1;
        out.tail.rel_change = rel;
        out.tail.p_value = p;
      }
    }
  };
  if (out.last_edge.count() == 1 && ny >= m + 1) y_tail();
  if (!out.tail.present && out.last_edge.count()) {
    const segment_summary& last = out.levels.back();
    const double k = static_cast<double>(out.last_edge.count());
    const double z = std::fabs(out.last_edge.sigmas) / std::sqrt(1 / k + 1 / static_cast<double>(last.count() - last.outliers));
    const double p = std::min(1.0, std::erfc(z / std::sqrt(2.0)) * static_cast<double>(m - 1));
    if (p <= opt.max_pvalue && std::fabs(out.last_edge.rel_change) >= opt.min_change) {
      out.tail.present = true;
      out.tail.begin = out.last_edge.begin;
      out.tail.end = n;
      out.tail.rel_change = out.last_edge.rel_change;
      out.tail.p_value = p;
    }
  } else if (!out.last_edge.count() && ny >= m + 1) {
    y_tail();
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE

