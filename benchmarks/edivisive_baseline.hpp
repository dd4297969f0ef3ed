// The comparison point for the detection benchmark: change points found the way Apache Otava
// (formerly Hunter) describes its method, with its published defaults (windows of 50 runs,
// p <= 0.001). Written from the method's description for this benchmark only:
// 1. Split: the series is cut into windows of `window` points overlapping by half. In each,
//    E-Divisive: over every piece between the change points found so far, the split tau and
//    the end kappa maximising the energy statistic Q(X = [a, tau), Y = [tau, kappa)) (distance
//    |x - y|, power 1); the best piece's split is tested with Welch's t-test between the two
//    sides of its piece and kept when p <= 10 x max_pvalue (the looser first pass), else the
//    window is done.
// 2. Merge: while the change with the largest p-value (Welch's t-test between the stretches
//    to its neighbouring changes) has p > max_pvalue, it is removed.
// No magnitude threshold, no outlier handling, no noise model: what the method does.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "analysis/stats.hpp"

namespace edivisive_baseline {

struct options {
  size_t window = 50;
  double max_pvalue = 0.001;
  size_t min_side = 2;  // Welch's test needs two points on a side
};

namespace detail {

inline double welch_p(const std::vector<double>& x, size_t a, size_t c, size_t b) {
  const probe::analysis::moments l = probe::analysis::moments_of(x.data() + a, c - a);
  const probe::analysis::moments r = probe::analysis::moments_of(x.data() + c, b - c);
  return probe::analysis::welch_t_test(l, r).p;
}

// E-Divisive inside x[s, e): change points (absolute indices) in the order found.
inline void window_changes(const std::vector<double>& x, size_t s, size_t e, const options& o, double pvalue,
                           std::vector<size_t>* out) {
  const size_t w = e - s, m = o.min_side;
  // P[i][j]: sum of |x_r - x_c| over r < i, c < j (window-relative), so any block sum is O(1)
  std::vector<long double> P((w + 1) * (w + 1), 0);
  auto at = [&](size_t i, size_t j) -> long double& { return P[i * (w + 1) + j]; };
  for (size_t i = 0; i < w; ++i) {
    long double row = 0;
    for (size_t j = 0; j < w; ++j) {
      row += std::fabs(static_cast<long double>(x[s + i]) - x[s + j]);
      at(i + 1, j + 1) = at(i, j + 1) + row;
    }
  }
  auto block = [&](size_t r0, size_t r1, size_t c0, size_t c1) {
    return at(r1, c1) - at(r0, c1) - at(r1, c0) + at(r0, c0);
  };
  std::vector<size_t> cuts{0, w};
  for (;;) {
    long double best_q = -std::numeric_limits<long double>::infinity();
    size_t best_tau = 0, best_a = 0, best_b = 0;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
      const size_t a = cuts[k], b = cuts[k + 1];
      if (b - a < 2 * m) continue;
      for (size_t tau = a + m; tau + m <= b; ++tau) {
        const long double mx = static_cast<long double>(tau - a);
        const long double within_x = block(a, tau, a, tau) / 2;
        for (size_t kappa = tau + m; kappa <= b; ++kappa) {
          const long double ny = static_cast<long double>(kappa - tau);
          const long double between = block(a, tau, tau, kappa), within_y = block(tau, kappa, tau, kappa) / 2;
          const long double energy = 2 * between / (mx * ny) - 2 * within_x / (mx * (mx - 1)) -
                                     2 * within_y / (ny * (ny - 1));
          const long double q = mx * ny / (mx + ny) * energy;
          if (q > best_q) {
            best_q = q;
            best_tau = tau;
            best_a = a;
            best_b = b;
          }
        }
      }
    }
    if (best_tau == 0) return;
    if (!(welch_p(x, s + best_a, s + best_tau, s + best_b) <= pvalue)) return;
    out->push_back(s + best_tau);
    cuts.insert(std::upper_bound(cuts.begin(), cuts.end(), best_tau), best_tau);
  }
}

}  // namespace detail

// Change points of x: the first point of each new level, in order.
inline std::vector<size_t> change_points(const std::vector<double>& x, const options& o = {}) {
  const size_t n = x.size();
  std::vector<size_t> found;
  if (n < 2 * o.min_side) return found;
  const size_t w = std::min(o.window, n), step = std::max<size_t>(1, o.window / 2);
  for (size_t start = 0;; start += step) {
    const size_t s = std::min(start, n - w);
    detail::window_changes(x, s, s + w, o, 10 * o.max_pvalue, &found);
    if (s + w >= n) break;
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  for (;;) {
    size_t worst = found.size();
    double worst_p = o.max_pvalue;
    for (size_t i = 0; i < found.size(); ++i) {
      const size_t a = i == 0 ? 0 : found[i - 1], b = i + 1 == found.size() ? n : found[i + 1];
      double p = 1;
      if (found[i] - a >= o.min_side && b - found[i] >= o.min_side) p = detail::welch_p(x, a, found[i], b);
      if (!(p <= worst_p)) {  // NaN (no variance on either side) counts as not significant
        worst_p = std::isnan(p) ? 2 : p;
        worst = i;
      }
    }
    if (worst == found.size()) break;
    found.erase(found.begin() + static_cast<std::ptrdiff_t>(worst));
  }
  return found;
}

}  // namespace edivisive_baseline
