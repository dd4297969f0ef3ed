// The search of changepoint.hpp at one noise level: candidates from the local, global and
// jump searches, the merge pass on evidence, wide levels searched again, drifts, and the size
// rule; then one pass of outliers, edge levels and search over a series. The values it sees
// are on the search's scale (the logs of the values on a log scale; opt.scale is never
// automatic here). Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include <probe/util/config.hpp>
#include "changepoint_types.hpp"
#include "energy_split.hpp"
#include "level_drift.hpp"
#include "outliers.hpp"
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

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
      : y_(y), opt_(opt), pm_(y), sigma_(sigma), fixed_(opt.min_points != 0), log_(opt.scale == value_scale::log),
        search_n_(y.size() + set_aside) {
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
    const double rel = std::fabs(log_ ? std::expm1(v.second - v.first) : relative_change(v.first, v.second));
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
  bool log_ = false;       // y_ holds logs: a relative change is exp of a difference, less 1
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

}  // namespace analysis
PROBE_END_NAMESPACE
