// Change points of a series: candidates from E-Divisive means (the method of Apache Otava,
// formerly Hunter) and from jumps between neighbours, then a merge pass that keeps a change
// only where the evidence for it holds. Deterministic: no random numbers anywhere.
//
// 0. Noise and outliers. The noise sigma comes from successive differences (robust to a few
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
#include <queue>
#include <utility>
#include <vector>

#include <probe/util/config.hpp>
#include "energy_split.hpp"
#include "level_drift.hpp"
#include "outliers.hpp"
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct changepoint_options {
  double max_pvalue = 0.001;        // a change is kept only with (corrected) p <= this
  double min_change = 0.01;         // ... and a relative change of at least this (0.01 = 1%)
  size_t min_points = 0;            // fewest points in every level (at least 2); 0: by the evidence
  double short_level_sigmas = 6;    // min_points 0: shift a level of 1 or 2 points needs, in noise sd;
                                    // and the shift of an edge level (find_edge_runs), either way
  double outlier_sigmas = 8;        // a single run this far out is an outlier (outliers.hpp); 0: none
  size_t window = 50;               // local search window, in points (at most 1000)
  double prior_df = 10;             // weight of the series' noise level in each side's variance
  double candidate_pvalue = 0.05;   // looser threshold for proposing candidates
};

struct segment_summary {
  size_t begin = 0, end = 0;                  // [begin, end) in the series
  double mean = 0, sd = 0, min = 0, max = 0;  // of its points, outliers left out
  size_t outliers = 0;                        // points of [begin, end) that are outliers
  bool drifting = false;                      // its values follow a line rather than a level
  double drift = 0;                           // drifting: relative change along the line, first to last point
  double line_start = 0, line_end = 0;        // drifting: the line's values at its first and last point
  size_t count() const { return end - begin; }
};

struct change_point {
  size_t index = 0;        // first point of the new level
  size_t last_before = 0;  // last point of the level before that is not an outlier
  double p_value = 1;      // corrected for the search
  double rel_change = 0;   // (after - before) / |before|
  double sigmas = 0;       // (after - before) / noise
  segment_summary before, after;
};

// A possible change in the last few points, too few to conclude.
struct tail_suspect {
  bool present = false;
  size_t begin = 0;  // first point of the tail
  double rel_change = 0, p_value = 1;
};

// One or two points at an end of the series set aside as an edge level (they are among the
// outliers too): their mean against the level beside them.
struct edge_level {
  size_t begin = 0, end = 0;  // [begin, end) in the series; empty when there is none
  double rel_change = 0;      // (edge - level) / |level|
  double sigmas = 0;          // (edge - level) / noise
  size_t count() const { return end - begin; }
};

struct segmentation {
  std::vector<change_point> changes;
  std::vector<segment_summary> levels;  // changes.size() + 1 of them (none for an empty series)
  std::vector<size_t> outliers;         // points left out as single wild runs
  double noise = 0;                     // point-to-point noise (standard deviation)
  double prior_df = 0;                  // weight the noise level had in the tests
  size_t min_points = 0;                // points the first and last levels need
  bool enough_points = false;           // at least 2 * min_points points
  tail_suspect tail;                    // an edge level at the end is one, if large enough
  edge_level first_edge, last_edge;
};

// (after - before) / |before|; infinite when before is 0 and after is not.
inline double relative_change(double before, double after) {
  if (before != 0) return (after - before) / std::fabs(before);
  if (after == before) return 0;
  return std::copysign(std::numeric_limits<double>::infinity(), after - before);
}

namespace detail {

constexpr size_t k_short_level = 3;       // by default, levels with fewer points need the sigma rule
constexpr double k_jump_sigmas = 4;       // a difference between neighbours that proposes a candidate
constexpr double k_spread_sigmas = 3;     // a level this much wider than the noise is searched again
constexpr double k_noise_shrink = 0.85;   // rerun when the within-level noise is below this share
constexpr int k_noise_rounds = 3, k_research_rounds = 3;

struct candidate {
  size_t index;
  double strength;  // |t| of the split that proposed it, or the jump in sigmas
};

// Shift between two means in noise sd (infinite for any shift in a noiseless series).
inline double shift_sigmas(double a, double b, double sigma) {
  const double d = std::fabs(b - a);
  if (sigma > 0) return d / sigma;
  return d > 0 ? std::numeric_limits<double>::infinity() : 0;
}

class change_finder {
 public:
  // set_aside: edge points left out of y, counted in the search's correction
  // short_head: the first level may have 2 points (an edge run before it, outliers.hpp)
  change_finder(const std::vector<double>& y, const changepoint_options& opt, double sigma, size_t set_aside = 0,
                bool short_head = false)
      : y_(y), opt_(opt), pm_(y), sigma_(sigma), fixed_(opt.min_points != 0), search_n_(y.size() + set_aside) {
    m_ = fixed_ ? std::max<size_t>(2, opt.min_points) : k_short_level;
    head_m_ = short_head && !fixed_ ? 2 : m_;
    // the global search looks at sides of 2 points, the fewest the energy statistic takes
    mc_ = fixed_ ? m_ : 2;
    // The noise level of a short series is itself uncertain (a median of a few differences
    // keeps about a third of their information): it weighs no more than that.
    prior_df_ = std::min(opt.prior_df, 0.3 * static_cast<double>(y.size() > 1 ? y.size() - 1 : 0));
  }

  double prior_df() const { return prior_df_; }
  moments stretch(size_t a, size_t b) const { return pm_.of(a, b); }

  t_test test(size_t a, size_t c, size_t b) const {
    return welch_t_test(pm_.of(a, c), pm_.of(c, b), sigma_ * sigma_, prior_df_);
  }
  // Number of admissible split positions in [a, b): the search's Bonferroni factor.
  double positions(size_t a, size_t b) const {
    return b - a >= 2 * m_ ? static_cast<double>(b - a - 2 * m_ + 1) : 1.0;
  }
  // ... in the whole series, edge points included
  double all_positions() const { return positions(0, search_n_); }
  // The change points, as the first index of each new level, and the drifting levels.
  // Evidence first (short levels, significance), so that a drift is seen in all its
  // pieces; then drifts; then size, measured against a drifting level where it ends.
  std::vector<size_t> search(std::vector<drift_range>* drifts) const {
    std::vector<candidate> cands;
    local_candidates(&cands);
    global_candidates(&cands);
    jump_candidates(&cands);
    std::vector<size_t> cps = select(cands);
    drifts->clear();
    merge(&cps, false, *drifts);
    for (int round = 0; round < k_research_rounds; ++round) {
      const std::vector<size_t> before = cps;
      if (!research_wide_levels(&cps)) break;
      merge(&cps, false, *drifts);
      if (cps == before) break;
    }
    *drifts = collapse_drifts(y_, pm_, sigma_, &cps);
    merge(&cps, true, *drifts);
    // a drift whose neighbouring change went is part of a longer level now
    std::vector<drift_range> kept;
    for (const drift_range& d : *drifts) {
      const bool starts = d.begin == 0 || std::binary_search(cps.begin(), cps.end(), d.begin);
      const bool ends = d.end == y_.size() || std::binary_search(cps.begin(), cps.end(), d.end);
      if (starts && ends) kept.push_back(d);
    }
    *drifts = kept;
    return cps;
  }

  // The values a change from [a, c) to [c, b) is measured between: the levels' means, or
  // for a drifting level its line's value at the change.
  std::pair<double, double> values_across(size_t a, size_t c, size_t b, const std::vector<drift_range>& drifts,
                                          bool* drifting = nullptr) const {
    std::pair<double, double> v{pm_.of(a, c).mean, pm_.of(c, b).mean};
    if (drifting) *drifting = false;
    for (const drift_range& d : drifts) {
      if (d.begin == a && d.end == c) v.first = d.line_end;
      else if (d.begin == c && d.end == b) v.second = d.line_start;
      else continue;
      if (drifting) *drifting = true;
    }
    return v;
  }

  // Corrected p-value of the change c between [a, c) and [c, b): for a short or drifting
  // side, a z-test of the values across it against the noise level (a level of one or two
  // points has no spread of its own; a drifting one's spread is its slope).
  double change_p(size_t a, size_t c, size_t b, const std::vector<drift_range>& drifts) const {
    const double n = all_positions();
    bool drifting = false;
    const std::pair<double, double> v = values_across(a, c, b, drifts, &drifting);
    if (std::min(c - a, b - c) >= m_ && !drifting) return std::min(1.0, test(a, c, b).p * n);
    const double se = sigma_ * std::sqrt(1.0 / static_cast<double>(c - a) + 1.0 / static_cast<double>(b - c));
    return std::min(1.0, std::erfc(shift_sigmas(v.first, v.second, se) / std::sqrt(2.0)) * n);
  }

 private:
  void local_candidates(std::vector<candidate>* out) const {
    const size_t n = y_.size();
    // A window holds (w+1)^2 distance sums: at most 1000 points. When min_points needs more,
    // the global search alone looks for changes.
    const size_t w = std::max(std::min<size_t>(opt_.window, 1000), 2 * m_);
    if (w > 1000) return;
    auto significant = [&](size_t a, size_t c, size_t b) {
      const t_test t = test(a, c, b);
      return std::make_pair(t.p <= opt_.candidate_pvalue, std::fabs(t.t));
    };
    if (n <= w) {
      window_energy_splits(y_, 0, n, m_, significant, out);
      return;
    }
    const size_t step = std::max<size_t>(1, w / 2);
    for (size_t start = 0;; start += step) {
      const size_t s = std::min(start, n - w);
      window_energy_splits(y_, s, s + w, m_, significant, out);
      if (s + w >= n) break;
    }
  }

  void global_candidates(std::vector<candidate>* out) const {
    std::vector<std::pair<size_t, size_t>> todo{{0, y_.size()}};
    while (!todo.empty()) {
      const auto piece = todo.back();
      todo.pop_back();
      const size_t a = piece.first, b = piece.second;
      if (b - a < 2 * mc_) continue;
      const size_t tau = best_energy_split(y_, a, b, mc_);
      if (tau >= b) continue;
      const t_test t = test(a, tau, b);
      if (t.p * positions(a, b) > opt_.candidate_pvalue) continue;
      out->push_back({tau, std::fabs(t.t)});
      todo.push_back({a, tau});
      todo.push_back({tau, b});
    }
  }

  void jump_candidates(std::vector<candidate>* out) const {
    for (size_t i = 1; i < y_.size(); ++i) {
      const double z = shift_sigmas(y_[i - 1], y_[i], sigma_);
      if (z > k_jump_sigmas) out->push_back({i, std::min(z, 1e300)});
    }
  }

  // Candidates in order of position, strongest first where they collide. With a fixed
  // minimum, one within min_points of a stronger one is the same change.
  std::vector<size_t> select(std::vector<candidate> cands) const {
    const size_t n = y_.size();
    std::sort(cands.begin(), cands.end(), [](const candidate& a, const candidate& b) {
      return a.strength != b.strength ? a.strength > b.strength : a.index < b.index;
    });
    const size_t near = fixed_ ? m_ - 1 : 0;
    std::vector<char> taken(n + 1, 0);
    std::vector<size_t> cps;
    for (const candidate& c : cands) {
      if (c.index < head_m_ || n - c.index < m_ || taken[c.index]) continue;
      cps.push_back(c.index);
      for (size_t i = c.index >= near ? c.index - near : 0; i <= std::min(n, c.index + near); ++i) taken[i] = 1;
    }
    std::sort(cps.begin(), cps.end());
    return cps;
  }

  // tier 0: the change holds; else the tier it fails in (1 short level, 2 significance,
  // 3 size) and its place in the order of removal within that tier (smallest first).
  struct verdict {
    int tier = 0;
    double order = 0;
  };

  // The change c from [a, c) to [c, b); the levels around them start at a0 and end at b1.
  verdict judge(size_t a0, size_t a, size_t c, size_t b, size_t b1, bool with_size,
                const std::vector<drift_range>& drifts) const {
    bool drifting = false;
    const std::pair<double, double> v = values_across(a, c, b, drifts, &drifting);
    if (std::min(c - a, b - c) < m_) {
      const bool at_end = (a == 0 && c - a < head_m_) || (b == y_.size() && b - c < m_);
      const double z = shift_sigmas(v.first, v.second, sigma_);
      if (fixed_ || at_end || !(z >= opt_.short_level_sigmas)) return {1, z};
      // a level of one point is a step on a stair, between the levels around it; beyond both
      // it is a single wild run, which no threshold on its size can tell from a level. Of its
      // two changes the smaller goes first: the point joins the level nearer to it.
      auto between = [&](size_t p, double before, double after) { return (y_[p] - before) * (after - y_[p]) > 0; };
      if (c - a == 1 && !between(a, pm_.of(a0, a).mean, v.second)) return {1, z};
      if (b - c == 1 && !between(c, v.first, pm_.of(b, b1).mean)) return {1, z};
    } else if (!drifting) {  // a drifting side was judged in pieces, before it was one level
      const double weakness = test(a, c, b).p * all_positions();  // not clamped: orders ties
      if (weakness > opt_.max_pvalue) return {2, -weakness};
    }
    const double rel = std::fabs(relative_change(v.first, v.second));
    if (with_size && rel < opt_.min_change) return {3, rel};
    return {};
  }

  // Drops the weakest failing change (lowest tier, then lowest order, then first in the
  // series) until none fails. A heap of verdicts over a linked list of the changes: each drop
  // costs O(log k), and rejudges the two changes on each side whose levels it changed.
  void merge(std::vector<size_t>* cps, bool with_size, const std::vector<drift_range>& drifts) const {
    std::vector<size_t>& c = *cps;
    const size_t k = c.size(), n = y_.size(), none = static_cast<size_t>(-1);
    if (k == 0) return;
    std::vector<size_t> prev(k), next(k), version(k, 0);
    std::vector<char> alive(k, 1);
    for (size_t i = 0; i < k; ++i) {
      prev[i] = i == 0 ? none : i - 1;
      next[i] = i + 1 == k ? none : i + 1;
    }
    auto at = [&](size_t i, size_t end) { return i == none ? end : c[i]; };
    struct entry {
      int tier;
      double order;
      size_t index, id, version;
    };
    auto after = [](const entry& a, const entry& b) {  // the heap's top is the first to drop
      if (a.tier != b.tier) return a.tier > b.tier;
      if (a.order != b.order) return a.order > b.order;
      return a.index > b.index;
    };
    std::priority_queue<entry, std::vector<entry>, decltype(after)> heap(after);
    auto rejudge = [&](size_t i) {
      if (i == none) return;
      const size_t p1 = prev[i], n1 = next[i];
      const size_t p2 = p1 == none ? none : prev[p1], n2 = n1 == none ? none : next[n1];
      const verdict v = judge(at(p2, 0), at(p1, 0), c[i], at(n1, n), at(n2, n), with_size, drifts);
      ++version[i];  // an older verdict of this change no longer counts
      if (v.tier != 0) heap.push({v.tier, v.order, c[i], i, version[i]});
    };
    for (size_t i = 0; i < k; ++i) rejudge(i);
    while (!heap.empty()) {
      const entry e = heap.top();
      heap.pop();
      if (!alive[e.id] || e.version != version[e.id]) continue;
      alive[e.id] = 0;
      const size_t p1 = prev[e.id], n1 = next[e.id];
      if (p1 != none) next[p1] = n1;
      if (n1 != none) prev[n1] = p1;
      rejudge(p1);
      if (p1 != none) rejudge(prev[p1]);
      rejudge(n1);
      if (n1 != none) rejudge(next[n1]);
    }
    std::vector<size_t> kept;
    for (size_t i = 0; i < k; ++i)
      if (alive[i]) kept.push_back(c[i]);
    c = kept;
  }

  // Proposes the best split of every level much wider than the noise; true if any.
  bool research_wide_levels(std::vector<size_t>* cps) const {
    std::vector<size_t> bounds{0};
    bounds.insert(bounds.end(), cps->begin(), cps->end());
    bounds.push_back(y_.size());
    std::vector<size_t> added;
    for (size_t k = 0; k + 1 < bounds.size(); ++k) {
      const size_t a = bounds[k], b = bounds[k + 1];
      if (b - a < 4 || !(pm_.of(a, b).sd() > k_spread_sigmas * sigma_)) continue;
      // the split with the largest mean difference in standard errors
      const double mean = pm_.of(a, b).mean, len = static_cast<double>(b - a);
      double best = -1;
      size_t at = b;
      for (size_t c = a + 1; c < b; ++c) {
        const double left = static_cast<double>(c - a);
        const double score = std::fabs(pm_.of(a, c).mean - mean) * std::sqrt(left * len / (len - left));
        if (score > best) {
          best = score;
          at = c;
        }
      }
      if (at < b) added.push_back(at);
    }
    if (added.empty()) return false;
    cps->insert(cps->end(), added.begin(), added.end());
    std::sort(cps->begin(), cps->end());
    return true;
  }

  const std::vector<double>& y_;
  changepoint_options opt_;
  prefix_moments pm_;
  double sigma_ = 0, prior_df_ = 0;
  bool fixed_ = false;
  size_t search_n_ = 0;    // points of the series, edge points set aside included
  size_t m_ = 0, mc_ = 0;  // shortest level without extra evidence; shortest side the global search tries
  size_t head_m_ = 0;      // the fewest points of the first level
};

// One pass at a given noise level: outliers, the series without them, and its changes.
struct segmentation_pass {
  std::vector<char> outlier;         // per point of x
  std::vector<double> y;             // x without its outliers
  std::vector<size_t> at;            // the point of x of each value of y
  std::vector<size_t> cps;           // change points, in y
  std::vector<drift_range> drifts;   // in y
  edge_runs edges;                   // points of x set aside at its ends (outliers too)
};

// Points the first and last levels need.
inline size_t end_level_points(const changepoint_options& opt) {
  return opt.min_points != 0 ? std::max<size_t>(2, opt.min_points) : k_short_level;
}

// The most points an edge level has: fewer than the first and last levels need, at most 2.
inline size_t edge_points(const changepoint_options& opt) { return std::min(end_level_points(opt), k_short_level) - 1; }

inline segmentation_pass segment_at_noise(const std::vector<double>& x, const changepoint_options& opt,
                                          double sigma, bool enough) {
  segmentation_pass p;
  p.outlier = find_outliers(x, sigma, opt.outlier_sigmas);
  if (enough && opt.outlier_sigmas > 0) {
    p.edges = find_edge_runs(x, p.outlier, sigma, opt.short_level_sigmas, edge_points(opt), 2 * end_level_points(opt));
    for (size_t i = 0; i < p.edges.head; ++i) p.outlier[i] = 1;
    for (size_t i = x.size() - p.edges.tail; i < x.size(); ++i) p.outlier[i] = 1;
  }
  if (enough) restore_end_levels(x, &p.outlier, &p.edges, opt.short_level_sigmas * sigma, end_level_points(opt));
  for (size_t i = 0; i < x.size(); ++i)
    if (!p.outlier[i]) {
      p.y.push_back(x[i]);
      p.at.push_back(i);
    }
  if (!enough) return p;
  const change_finder finder(p.y, opt, sigma, p.edges.head + p.edges.tail, p.edges.short_head);
  p.cps = finder.search(&p.drifts);
  return p;
}

}  // namespace detail

inline segmentation find_change_points(const std::vector<double>& x, const changepoint_options& opt = {}) {
  segmentation out;
  const size_t n = x.size();
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

  // levels and changes, in points of x; statistics from y (outliers left out)
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cps.begin(), cps.end());
  bounds.push_back(y.size());
  for (size_t k = 0; n > 0 && k + 1 < bounds.size(); ++k) {
    const size_t a = bounds[k], b = bounds[k + 1];
    segment_summary s;
    s.begin = k == 0 ? 0 : pass.at[a];
    s.end = b == y.size() ? n : pass.at[b];
    const moments mo = finder.stretch(a, b);
    s.mean = mo.mean;
    s.sd = mo.sd();
    s.min = *std::min_element(y.begin() + static_cast<std::ptrdiff_t>(a), y.begin() + static_cast<std::ptrdiff_t>(b));
    s.max = *std::max_element(y.begin() + static_cast<std::ptrdiff_t>(a), y.begin() + static_cast<std::ptrdiff_t>(b));
    s.outliers = s.count() - (b - a);
    for (const detail::drift_range& d : pass.drifts)
      if (d.begin == a && d.end == b) {
        s.drifting = true;
        s.drift = relative_change(d.line_start, d.line_end);
        s.line_start = d.line_start;
        s.line_end = d.line_end;
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
    const std::pair<double, double> v = finder.values_across(bounds[i], bounds[i + 1], bounds[i + 2], pass.drifts);
    c.rel_change = relative_change(v.first, v.second);
    const double shift = v.second - v.first;
    c.sigmas = sigma > 0 ? shift / sigma : shift == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), shift);
    out.changes.push_back(c);
  }

  // Edge levels, against the level beside them.
  auto edge = [&](size_t begin, size_t end, const segment_summary& level) {
    edge_level e;
    e.begin = begin;
    e.end = end;
    double sum = 0;
    for (size_t i = begin; i < end; ++i) sum += x[i];
    const double shift = sum / static_cast<double>(end - begin) - level.mean;
    e.rel_change = relative_change(level.mean, level.mean + shift);
    e.sigmas = detail::shift_sigmas(0, shift, sigma) * (shift < 0 ? -1 : 1);
    return e;
  };
  if (pass.edges.head) out.first_edge = edge(0, pass.edges.head, out.levels.front());
  if (pass.edges.tail) out.last_edge = edge(n - pass.edges.tail, n, out.levels.back());

  // The last few points may have moved, with too few of them to conclude: say so. An edge
  // level at the end is such a move, set aside already: a z-test of its mean against the
  // level before it. Else, of the tail lengths that test significant, the one with the
  // largest |t| (the clearest split).
  const size_t ny = y.size();
  if (out.last_edge.count()) {
    const segment_summary& last = out.levels.back();
    const double k = static_cast<double>(out.last_edge.count());
    const double z = std::fabs(out.last_edge.sigmas) / std::sqrt(1 / k + 1 / static_cast<double>(last.count() - last.outliers));
    const double p = std::min(1.0, std::erfc(z / std::sqrt(2.0)) * static_cast<double>(m - 1));
    if (p <= opt.max_pvalue && std::fabs(out.last_edge.rel_change) >= opt.min_change) {
      out.tail.present = true;
      out.tail.begin = out.last_edge.begin;
      out.tail.rel_change = out.last_edge.rel_change;
      out.tail.p_value = p;
    }
  } else if (ny >= m + 1) {
    const size_t start = cps.empty() ? 0 : cps.back();
    double best_t = 0;
    for (size_t r = 1; r < m; ++r) {
      if (ny - r < start + 2) break;
      const size_t tb = ny - r;
      const t_test t = finder.test(start, tb, ny);
      const double p = std::min(1.0, t.p * static_cast<double>(m - 1));
      const double rel = relative_change(finder.stretch(start, tb).mean, finder.stretch(tb, ny).mean);
      if (p <= opt.max_pvalue && std::fabs(rel) >= opt.min_change && std::fabs(t.t) > best_t) {
        best_t = std::fabs(t.t);
        out.tail.present = true;
        out.tail.begin = pass.at[tb];
        out.tail.rel_change = rel;
        out.tail.p_value = p;
      }
    }
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
