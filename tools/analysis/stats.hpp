// Small statistics for the analysis tools: summaries, Student's t distribution, Welch's
// two-sample test (optionally with moderated variances), the one-sample t-test, and a
// robust noise estimate. Standalone header: plain `inline`, no global state.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

// Count, mean and sample variance (n - 1 in the denominator; 0 for fewer than two values).
struct moments {
  double n = 0;
  double mean = 0;
  double var = 0;
  double sd() const { return std::sqrt(var); }
};

inline moments moments_of(const double* x, size_t n) {
  moments m;
  m.n = static_cast<double>(n);
  if (n == 0) return m;
  // Two passes: exact enough for values far from zero with a small spread.
  long double s = 0;
  for (size_t i = 0; i < n; ++i) s += x[i];
  m.mean = static_cast<double>(s / static_cast<long double>(n));
  if (n < 2) return m;
  long double ss = 0;
  for (size_t i = 0; i < n; ++i) {
    long double d = static_cast<long double>(x[i]) - m.mean;
    ss += d * d;
  }
  m.var = static_cast<double>(ss / static_cast<long double>(n - 1));
  return m;
}
inline moments moments_of(const std::vector<double>& x) { return moments_of(x.data(), x.size()); }

// Regularized incomplete beta function I_x(a, b), by its continued fraction (modified
// Lentz), using the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly.
inline double incomplete_beta(double a, double b, double x) {
  if (!(x > 0)) return 0;
  if (!(x < 1)) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(b, a, 1 - x);
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= 400; ++m) {
    const double m2 = 2.0 * m;
    // even step
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    f *= c * d;
    // odd step
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + num / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1) < 1e-15) break;
  }
  return std::exp(log_front) * f / a;
}

// P(|T| >= |t|) for Student's t with `df` degrees of freedom (df may be fractional; an
// infinite df is the normal distribution).
inline double student_t_two_sided(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return 1;
  if (std::isinf(t)) return 0;
  if (df > 1e7) return std::erfc(std::fabs(t) / std::sqrt(2.0));
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

// Outcome of a t-test: the statistic, its degrees of freedom, the two-sided p-value.
struct t_test {
  double t = 0;
  double df = 0;
  double p = 1;
};

// Welch's two-sample t-test of a against b. With prior_df > 0 each side's variance is
// moderated: shrunk toward prior_var as if it had been estimated with prior_df more degrees
// of freedom (an empirical-Bayes t, as in Smyth's moderated t-statistic). That keeps the
// power of a short side whose own variance rests on two or three points, while a side
// holding an outlier keeps most of its inflated variance.
inline t_test welch_t_test(const moments& a, const moments& b, double prior_var = 0,
                           double prior_df = 0) {
  t_test r;
  auto side = [&](const moments& m, double* var, double* df) {
    double d = m.n - 1;
    if (d < 0) d = 0;
    *df = d + prior_df;
    *var = *df > 0 ? (d * m.var + prior_df * prior_var) / *df : 0;
  };
  if (a.n < 1 || b.n < 1) return r;
  double va, vb, dfa, dfb;
  side(a, &va, &dfa);
  side(b, &vb, &dfb);
  if (dfa <= 0 && dfb <= 0) return r;  // no variance estimate at all
  const double ea = va / a.n, eb = vb / b.n, se2 = ea + eb;
  const double diff = a.mean - b.mean;
  if (!(se2 > 0)) {
    r.t = diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), diff);
    r.df = dfa + dfb;
    r.p = diff == 0 ? 1 : 0;
    return r;
  }
  r.t = diff / std::sqrt(se2);
  double denom = 0;
  if (dfa > 0) denom += ea * ea / dfa;
  if (dfb > 0) denom += eb * eb / dfb;
  r.df = denom > 0 ? se2 * se2 / denom : dfa + dfb;
  r.p = student_t_two_sided(r.t, r.df);
  return r;
}

// One-sample t-test of the mean of m against mu (two-sided p). Needs two or more values;
// with identical values the statistic is infinite unless the mean equals mu.
inline t_test one_sample_t_test(const moments& m, double mu) {
  t_test r;
  if (m.n < 2) return r;
  r.df = m.n - 1;
  const double diff = m.mean - mu;
  const double se = std::sqrt(m.var / m.n);
  if (!(se > 0)) {
    r.t = diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), diff);
    r.p = diff == 0 ? 1 : 0;
    return r;
  }
  r.t = diff / se;
  r.p = student_t_two_sided(r.t, r.df);
  return r;
}

inline double median_in_place(std::vector<double>& v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) {
    double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    m = (m + lower) / 2;
  }
  return m;
}

// Noise standard deviation from successive differences d: the median absolute deviation of
// the differences (scaled to a normal standard deviation, divided by sqrt 2), which a few
// level shifts or wild values do not move. Falls back to the root mean square difference when
// more than half the differences are equal (quantized values, or a constant slope), leaving out
// the largest tenth (at least two: the way into and out of a dip, or around a wild value), so
// a series that is constant but for a dip still sees the dip; 0 for no or only zero
// differences.
inline double noise_of_differences(std::vector<double> d) {
  if (d.empty()) return 0;
  std::vector<double> work = d;
  const double med = median_in_place(work);
  for (size_t i = 0; i < d.size(); ++i) work[i] = std::fabs(d[i] - med);
  const double mad = median_in_place(work);
  // equal differences count as equal when they differ by rounding only
  if (mad > 1e-9 * std::fabs(med)) return 1.4826 * mad / std::sqrt(2.0);
  for (size_t i = 0; i < d.size(); ++i) work[i] = std::fabs(d[i]);
  std::sort(work.begin(), work.end());
  const size_t drop = d.size() >= 8 ? std::max<size_t>(2, d.size() / 10) : 0;
  const size_t keep = d.size() - drop;
  long double ss = 0;
  for (size_t i = 0; i < keep; ++i) ss += static_cast<long double>(work[i]) * work[i];
  return std::sqrt(static_cast<double>(ss / static_cast<long double>(keep)) / 2);
}

// Successive differences of x.
inline std::vector<double> differences(const std::vector<double>& x) {
  std::vector<double> d(x.size() > 1 ? x.size() - 1 : 0);
  for (size_t i = 0; i < d.size(); ++i) d[i] = x[i + 1] - x[i];
  return d;
}

// Whether x moves mostly by its quantum: more than half of its successive differences are 0 or
// the smallest step it takes (up to rounding), as times in whole ms or counts do, whatever the
// level. True for a constant series; not for values printed to a few digits whose noise spans
// many of their last digit.
inline bool quantized(const std::vector<double>& x) {
  if (x.size() < 3) return false;
  const std::vector<double> d = differences(x);
  double quantum = std::numeric_limits<double>::infinity();
  for (double v : d)
    if (v != 0) quantum = std::min(quantum, std::fabs(v));
  size_t small = 0;
  for (double v : d) small += std::fabs(v) <= quantum * (1 + 1e-6);
  return 2 * small > d.size();
}

// Point-to-point noise of a series, from its successive differences: level shifts touch only
// a few differences, so the median absolute deviation of the differences sees the noise and
// not the steps. 0 for a constant series or fewer than three points.
inline double noise_from_differences(const std::vector<double>& x) {
  if (x.size() < 3) return 0;
  return noise_of_differences(differences(x));
}

}  // namespace analysis
PROBE_END_NAMESPACE
