// The energy statistic of E-Divisive means (Matteson and James) and the searches built on
// it, for changepoint.hpp: moments of any stretch in O(1), the best split of a stretch in
// O(L log L) (Fenwick trees over value ranks) or by direct O(L^2) sums (the reference), and
// the windowed search that maximises Q(tau, kappa) over both ends. Standalone header: plain
// `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include <probe/util/config.hpp>
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
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

// E-Divisive inside the window [s, e): maximise Q(tau, kappa) with a 2-D prefix sum of
// distances, so each Q costs O(1) and a window O(w^2); recurse into the pieces while a split
// is significant. significant(a, c, b) -> {bool, strength} tests the split c of [a, b)
// (absolute indices); each significant split is appended to out as {index, strength}.
template <class Significant, class Candidate>
void window_energy_splits(const std::vector<double>& x, size_t s, size_t e, size_t m, Significant significant,
                          std::vector<Candidate>* out) {
  const size_t w = e - s;
  if (w < 2 * m) return;
  // P[i][j] = sum of |x_r - x_c| for r < i, c < j (window-relative indices)
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
  std::vector<std::pair<size_t, size_t>> todo{{0, w}};
  while (!todo.empty()) {
    const size_t a = todo.back().first, b = todo.back().second;
    todo.pop_back();
    if (b - a < 2 * m) continue;
    long double best_q = -std::numeric_limits<long double>::infinity();
    size_t best_tau = b, best_kappa = b;
    for (size_t tau = a + m; tau + m <= b; ++tau) {
      const long double wx = block(a, tau, a, tau) / 2;
      const long double mx = static_cast<long double>(tau - a);
      for (size_t kappa = tau + m; kappa <= b; ++kappa) {
        if (kappa < b && b - kappa < m) continue;
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
    const auto first = significant(s + a, s + best_tau, s + best_kappa);
    bool second = false;
    if (best_kappa < b) {
      const auto t2 = significant(s + best_tau, s + best_kappa, s + b);
      second = t2.first;
      if (second) out->push_back({s + best_kappa, t2.second});
    }
    if (first.first) out->push_back({s + best_tau, first.second});
    if (!first.first && !second) continue;
    todo.push_back({a, best_tau});
    todo.push_back({best_tau, best_kappa});
    if (best_kappa < b) todo.push_back({best_kappa, b});
  }
}

}  // namespace detail
}  // namespace analysis
PROBE_END_NAMESPACE
