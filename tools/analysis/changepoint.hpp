// Change points of a series, E-Divisive-means style (the method of Apache Otava, formerly
// Hunter): candidate splits are where the energy distance between the two sides is largest;
// each is tested for significance; a merge pass drops the weakest until every change left is
// both significant and large enough. Deterministic: no random numbers anywhere.
//
// 1. Candidates, from two searches whose union covers short and long changes:
//    - local: windows of `window` points, overlapping by half. In each window, E-Divisive
//      proper: maximise the energy statistic Q(tau, kappa) between X = [start, tau) and
//      Y = [tau, kappa) over both ends, so a short dip inside the window is found as one
//      piece; recurse into the pieces while the split's t-test gives p <= candidate_pvalue.
//      The pairwise distances of a window go into a 2-D prefix sum, so each Q costs O(1)
//      and a window O(window^2): O(n * window) for the series.
//    - global: binary segmentation of the whole series with Q(tau) (Y runs to the end of the
//      segment). The sums of |x_i - x_j| within and between the sides are updated point by
//      point with Fenwick trees over value ranks, O(L log L) per split instead of O(L^2), so
//      long small shifts that no window can see are found too.
// 2. Candidates closer than `min_points` to a stronger one are dropped (strength: |t|).
// 3. Merge pass: each candidate is tested against its neighbours' segments with Welch's t,
//    each side's variance moderated toward the series' noise (estimated robustly from
//    successive differences, `prior_df` degrees of freedom) so that a short side is neither
//    powerless nor fooled by one outlier; the p-value is multiplied by the number of places a
//    change could have been put in the whole series (n - 2 min_points + 1: a Bonferroni
//    correction for the search, so that a series without change gets a false report with a
//    probability of about max_pvalue, however long it is). The weakest candidate (largest p)
//    goes while p > max_pvalue, then the smallest while its relative change is under
//    min_change; neighbours are retested after each removal.
// Segments shorter than `min_points` never count, so a single spike is never a change.
// Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <probe/util/config.hpp>
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct changepoint_options {
  double max_pvalue = 0.001;      // a change is kept only with (corrected) p <= this
  double min_change = 0.01;       // ... and a relative change of at least this (0.01 = 1%)
  size_t min_points = 3;          // fewest points on each side of a change (at least 2)
  size_t window = 50;             // local search window, in points (at most 1000)
  double prior_df = 10;           // weight of the series' noise level in each side's variance
  double candidate_pvalue = 0.05; // looser threshold for proposing candidates
};

struct segment_summary {
  size_t begin = 0, end = 0;  // [begin, end) in the series
  double mean = 0, sd = 0, min = 0, max = 0;
  size_t count() const { return end - begin; }
};

struct change_point {
  size_t index = 0;        // first point of the new level
  double p_value = 1;      // corrected for the search
  double rel_change = 0;   // (after - before) / |before|
  segment_summary before, after;
};

// A possible change in the last few points, too few to conclude.
struct tail_suspect {
  bool present = false;
  size_t begin = 0;  // first point of the tail
  double rel_change = 0, p_value = 1;
};

struct segmentation {
  std::vector<change_point> changes;
  std::vector<segment_summary> levels;  // changes.size() + 1 of them (none for an empty series)
  double noise = 0;                     // point-to-point noise (standard deviation)
  double prior_df = 0;                  // weight the noise level had in the tests
  bool enough_points = false;           // at least 2 * min_points points
  tail_suspect tail;
};

// (after - before) / |before|; infinite when before is 0 and after is not.
inline double relative_change(double before, double after) {
  if (before != 0) return (after - before) / std::fabs(before);
  if (after == before) return 0;
  return std::copysign(std::numeric_limits<double>::infinity(), after - before);
}

namespace detail {

// Prefix sums of the (shifted) values and their squares: the moments of any stretch in O(1).
class prefix_moments {
 public:
  explicit prefix_moments(const std::vector<double>& x) : s_(x.size() + 1, 0), q_(x.size() + 1, 0) {
    shift_ = x.empty() ? 0 : x[x.size() / 2];
    for (size_t i = 0; i < x.size(); ++i) {
      const long double d = static_cast<long double>(x[i]) - shift_;
      s_[i + 1] = s_[i] + d;
      q_[i + 1] = q_[i] + d * d;
    }
  }
  moments of(size_t a, size_t b) const {
    moments m;
    m.n = static_cast<double>(b - a);
    if (b <= a) return m;
    const long double n = static_cast<long double>(b - a);
    const long double mean = (s_[b] - s_[a]) / n;
    m.mean = static_cast<double>(mean + shift_);
    if (b - a >= 2) {
      long double ss = (q_[b] - q_[a]) - n * mean * mean;
      m.var = ss > 0 ? static_cast<double>(ss / (n - 1)) : 0;
    }
    return m;
  }

 private:
  std::vector<long double> s_, q_;
  long double shift_ = 0;
};

struct candidate {
  size_t index;
  double strength;  // |t| of the split that proposed it
};

// Energy statistic of X (m points, pairwise distance sum within_x over unordered pairs) and
// Y (n points, within_y), with between = sum over X x Y: Q = mn/(m+n) * E, where
// E = 2/(mn) between - 2/(m(m-1)) within_x - 2/(n(n-1)) within_y.
inline long double energy_q(long double m, long double n, long double between, long double within_x,
                            long double within_y) {
  const long double e = 2 * between / (m * n) - 2 * within_x / (m * (m - 1)) - 2 * within_y / (n * (n - 1));
  return m * n / (m + n) * e;
}

// Sums over pairs for every split point of [a, b): within_left[k] is the sum of |x_i - x_j|
// over pairs among the first k points; within_right[k] over pairs among points k..L-1.
// Fenwick trees over the ranks of the values give each update in O(log L).
inline void pair_sums_incremental(const std::vector<double>& x, size_t a, size_t b,
                                  std::vector<long double>* within_left,
                                  std::vector<long double>* within_right) {
  const size_t len = b - a;
  std::vector<double> sorted(x.begin() + static_cast<std::ptrdiff_t>(a), x.begin() + static_cast<std::ptrdiff_t>(b));
  std::sort(sorted.begin(), sorted.end());
  const long double shift = sorted[len / 2];
  std::vector<size_t> rank(len);
  for (size_t i = 0; i < len; ++i)
    rank[i] = static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), x[a + i]) - sorted.begin()) + 1;
  std::vector<long double> cnt(len + 1), sum(len + 1);
  auto sweep = [&](bool forward, std::vector<long double>* within) {
    std::fill(cnt.begin(), cnt.end(), 0);
    std::fill(sum.begin(), sum.end(), 0);
    within->assign(len + 1, 0);
    long double total_cnt = 0, total_sum = 0, acc = 0;
    for (size_t step = 0; step < len; ++step) {
      const size_t i = forward ? step : len - 1 - step;
      const long double v = static_cast<long double>(x[a + i]) - shift;
      long double below_cnt = 0, below_sum = 0;  // values strictly below v
      for (size_t r = rank[i] - 1; r > 0; r -= r & (~r + 1)) {
        below_cnt += cnt[r];
        below_sum += sum[r];
      }
      acc += v * below_cnt - below_sum + (total_sum - below_sum) - v * (total_cnt - below_cnt);
      for (size_t r = rank[i]; r <= len; r += r & (~r + 1)) {
        cnt[r] += 1;
        sum[r] += v;
      }
      total_cnt += 1;
      total_sum += v;
      (*within)[forward ? step + 1 : len - 1 - step] = acc;
    }
  };
  sweep(true, within_left);
  sweep(false, within_right);
}

// The same sums by direct scans, O(L^2): the reference the incremental version is tested and
// measured against.
inline void pair_sums_quadratic(const std::vector<double>& x, size_t a, size_t b,
                                std::vector<long double>* within_left,
                                std::vector<long double>* within_right) {
  const size_t len = b - a;
  within_left->assign(len + 1, 0);
  within_right->assign(len + 1, 0);
  for (size_t k = 1; k <= len; ++k) {
    long double add = 0;
    for (size_t i = 0; i + 1 < k; ++i) add += std::fabs(static_cast<long double>(x[a + k - 1]) - x[a + i]);
    (*within_left)[k] = (*within_left)[k - 1] + add;
  }
  for (size_t k = len; k-- > 0;) {
    long double add = 0;
    for (size_t j = k + 1; j < len; ++j) add += std::fabs(static_cast<long double>(x[a + k]) - x[a + j]);
    (*within_right)[k] = (*within_right)[k + 1] + add;
  }
}

// The split tau of [a, b) (each side >= m points) with the largest Q(tau); b when none.
inline size_t best_energy_split(const std::vector<double>& x, size_t a, size_t b, size_t m,
                                bool quadratic = false) {
  if (b - a < 2 * m) return b;
  std::vector<long double> wl, wr;
  if (quadratic)
    pair_sums_quadratic(x, a, b, &wl, &wr);
  else
    pair_sums_incremental(x, a, b, &wl, &wr);
  const size_t len = b - a;
  const long double total = wl[len];
  size_t best = b;
  long double best_q = -std::numeric_limits<long double>::infinity();
  for (size_t k = m; k + m <= len; ++k) {
    const long double between = total - wl[k] - wr[k];
    const long double q = energy_q(k, len - k, between, wl[k], wr[k]);
    if (q > best_q) {
      best_q = q;
      best = a + k;
    }
  }
  return best;
}

class change_finder {
 public:
  change_finder(const std::vector<double>& x, const changepoint_options& opt)
      : x_(x), opt_(opt), pm_(x), m_(std::max<size_t>(2, opt.min_points)) {
    noise_ = noise_from_differences(x);
    // The noise level of a short series is itself uncertain (a median of a few differences
    // keeps about a third of their information): it weighs no more than that.
    prior_df_ = std::min(opt.prior_df, 0.3 * static_cast<double>(x.size() > 1 ? x.size() - 1 : 0));
  }

  double noise() const { return noise_; }
  double prior_df() const { return prior_df_; }

  t_test test(size_t a, size_t c, size_t b) const {
    return welch_t_test(pm_.of(a, c), pm_.of(c, b), noise_ * noise_, prior_df_);
  }
  // Number of admissible split positions in [a, b): the search's Bonferroni factor.
  double positions(size_t a, size_t b) const {
    return b - a >= 2 * m_ ? static_cast<double>(b - a - 2 * m_ + 1) : 1.0;
  }
  moments stretch(size_t a, size_t b) const { return pm_.of(a, b); }
  size_t min_points() const { return m_; }

  void local_candidates(std::vector<candidate>* out) const {
    const size_t n = x_.size();
    // A window holds (w+1)^2 distance sums: at most 1000 points. When min_points needs more,
    // the global search alone looks for changes.
    const size_t w = std::max(std::min<size_t>(opt_.window, 1000), 2 * m_);
    if (w > 1000) return;
    if (n <= w) {
      window_candidates(0, n, out);
      return;
    }
    const size_t step = std::max<size_t>(1, w / 2);
    for (size_t start = 0;; start += step) {
      const size_t s = std::min(start, n - w);
      window_candidates(s, s + w, out);
      if (s + w >= n) break;
    }
  }

  void global_candidates(std::vector<candidate>* out) const {
    std::vector<std::pair<size_t, size_t>> todo{{0, x_.size()}};
    while (!todo.empty()) {
      const auto piece = todo.back();
      todo.pop_back();
      const size_t a = piece.first, b = piece.second;
      if (b - a < 2 * m_) continue;
      const size_t tau = best_energy_split(x_, a, b, m_);
      if (tau >= b) continue;
      const t_test t = test(a, tau, b);
      if (t.p * positions(a, b) > opt_.candidate_pvalue) continue;
      out->push_back({tau, std::fabs(t.t)});
      todo.push_back({a, tau});
      todo.push_back({tau, b});
    }
  }

 private:
  // E-Divisive inside [s, e): maximise Q(tau, kappa) with a 2-D prefix sum of distances.
  void window_candidates(size_t s, size_t e, std::vector<candidate>* out) const {
    const size_t w = e - s;
    if (w < 2 * m_) return;
    // P[i][j] = sum of |x_r - x_c| for r < i, c < j (window-relative indices)
    std::vector<long double> P((w + 1) * (w + 1), 0);
    auto at = [&](size_t i, size_t j) -> long double& { return P[i * (w + 1) + j]; };
    for (size_t i = 0; i < w; ++i) {
      long double row = 0;
      for (size_t j = 0; j < w; ++j) {
        row += std::fabs(static_cast<long double>(x_[s + i]) - x_[s + j]);
        at(i + 1, j + 1) = at(i, j + 1) + row;
      }
    }
    auto block = [&](size_t r0, size_t r1, size_t c0, size_t c1) {
      return at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
    };
    std::vector<std::pair<size_t, size_t>> todo{{0, w}};
    while (!todo.empty()) {
      const size_t a = todo.back().first, b = todo.back().second;
      todo.pop_back();
      if (b - a < 2 * m_) continue;
      long double best_q = -std::numeric_limits<long double>::infinity();
      size_t best_tau = b, best_kappa = b;
      for (size_t tau = a + m_; tau + m_ <= b; ++tau) {
        const long double wx = block(a, tau, a, tau) / 2;
        const long double mx = static_cast<long double>(tau - a);
        for (size_t kappa = tau + m_; kappa <= b; ++kappa) {
          if (kappa < b && b - kappa < m_) continue;
          const long double ny = static_cast<long double>(kappa - tau);
          const long double q = energy_q(mx, ny, block(a, tau, tau, kappa), wx, block(tau, kappa, tau, kappa) / 2);
          if (q > best_q) {
            best_q = q;
            best_tau = tau;
            best_kappa = kappa;
          }
        }
      }
      if (best_tau >= b) continue;
      const t_test t1 = test(s + a, s + best_tau, s + best_kappa);
      const bool first = t1.p <= opt_.candidate_pvalue;
      bool second = false;
      if (best_kappa < b) {
        const t_test t2 = test(s + best_tau, s + best_kappa, s + b);
        second = t2.p <= opt_.candidate_pvalue;
        if (second) out->push_back({s + best_kappa, std::fabs(t2.t)});
      }
      if (first) out->push_back({s + best_tau, std::fabs(t1.t)});
      if (!first && !second) continue;
      todo.push_back({a, best_tau});
      todo.push_back({best_tau, best_kappa});
      if (best_kappa < b) todo.push_back({best_kappa, b});
    }
  }

  const std::vector<double>& x_;
  changepoint_options opt_;
  prefix_moments pm_;
  size_t m_;
  double noise_ = 0, prior_df_ = 0;
};

inline segment_summary summarize(const std::vector<double>& x, const change_finder& f, size_t a, size_t b) {
  segment_summary s;
  s.begin = a;
  s.end = b;
  if (b <= a) return s;
  const moments m = f.stretch(a, b);
  s.mean = m.mean;
  s.sd = m.sd();
  s.min = *std::min_element(x.begin() + static_cast<std::ptrdiff_t>(a), x.begin() + static_cast<std::ptrdiff_t>(b));
  s.max = *std::max_element(x.begin() + static_cast<std::ptrdiff_t>(a), x.begin() + static_cast<std::ptrdiff_t>(b));
  return s;
}

}  // namespace detail

inline segmentation find_change_points(const std::vector<double>& x, const changepoint_options& opt = {}) {
  segmentation out;
  const size_t n = x.size();
  detail::change_finder finder(x, opt);
  const size_t m = finder.min_points();
  out.noise = finder.noise();
  out.prior_df = finder.prior_df();
  out.enough_points = n >= 2 * m;

  std::vector<size_t> cps;
  if (out.enough_points) {
    std::vector<detail::candidate> cands;
    finder.local_candidates(&cands);
    finder.global_candidates(&cands);
    // strongest first; a candidate within m points of a kept one is the same change
    std::sort(cands.begin(), cands.end(), [](const detail::candidate& a, const detail::candidate& b) {
      return a.strength != b.strength ? a.strength > b.strength : a.index < b.index;
    });
    std::vector<char> taken(n + 1, 0);
    for (const detail::candidate& c : cands) {
      if (c.index < m || n - c.index < m || taken[c.index]) continue;
      cps.push_back(c.index);
      for (size_t i = c.index >= m - 1 ? c.index - (m - 1) : 0; i <= std::min(n, c.index + m - 1); ++i) taken[i] = 1;
    }
    std::sort(cps.begin(), cps.end());

    // merge pass
    struct scored {
      double weakness;  // uncorrected p times the search factor (not clamped: orders ties)
      double magnitude;
    };
    auto score = [&](size_t i) {
      const size_t a = i == 0 ? 0 : cps[i - 1], c = cps[i], b = i + 1 == cps.size() ? n : cps[i + 1];
      const t_test t = finder.test(a, c, b);
      const double rel = relative_change(finder.stretch(a, c).mean, finder.stretch(c, b).mean);
      return scored{t.p * finder.positions(0, n), std::fabs(rel)};
    };
    std::vector<scored> scores(cps.size());
    for (size_t i = 0; i < cps.size(); ++i) scores[i] = score(i);
    for (;;) {
      size_t drop = cps.size();
      for (size_t i = 0; i < cps.size(); ++i)
        if (scores[i].weakness > opt.max_pvalue && (drop == cps.size() || scores[i].weakness > scores[drop].weakness))
          drop = i;
      if (drop == cps.size())
        for (size_t i = 0; i < cps.size(); ++i)
          if (scores[i].magnitude < opt.min_change &&
              (drop == cps.size() || scores[i].magnitude < scores[drop].magnitude))
            drop = i;
      if (drop == cps.size()) break;
      cps.erase(cps.begin() + static_cast<std::ptrdiff_t>(drop));
      scores.erase(scores.begin() + static_cast<std::ptrdiff_t>(drop));
      if (drop > 0) scores[drop - 1] = score(drop - 1);
      if (drop < cps.size()) scores[drop] = score(drop);
    }
  }

  // levels and changes
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cps.begin(), cps.end());
  bounds.push_back(n);
  if (n > 0)
    for (size_t i = 0; i + 1 < bounds.size(); ++i)
      out.levels.push_back(detail::summarize(x, finder, bounds[i], bounds[i + 1]));
  for (size_t i = 0; i < cps.size(); ++i) {
    change_point c;
    c.index = cps[i];
    c.before = out.levels[i];
    c.after = out.levels[i + 1];
    const t_test t = finder.test(bounds[i], bounds[i + 1], bounds[i + 2]);
    c.p_value = std::min(1.0, t.p * finder.positions(0, n));
    c.rel_change = relative_change(c.before.mean, c.after.mean);
    out.changes.push_back(c);
  }

  // The last few points may have moved, with too few of them to conclude: say so. Of the
  // tail lengths that test significant, the one with the largest |t| (the clearest split).
  if (n >= m + 1) {
    const size_t start = cps.empty() ? 0 : cps.back();
    double best_t = 0;
    for (size_t r = 1; r < m; ++r) {
      if (n - r < start + 2) break;
      const size_t tb = n - r;
      const t_test t = finder.test(start, tb, n);
      const double p = std::min(1.0, t.p * static_cast<double>(m - 1));
      const double rel = relative_change(finder.stretch(start, tb).mean, finder.stretch(tb, n).mean);
      if (p <= opt.max_pvalue && std::fabs(rel) >= opt.min_change && std::fabs(t.t) > best_t) {
        best_t = std::fabs(t.t);
        out.tail.present = true;
        out.tail.begin = tb;
        out.tail.rel_change = rel;
        out.tail.p_value = p;
      }
    }
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
