// Slow drifts, for changepoint.hpp: a level whose value creeps along a line (a cache that
// fills up, a data set that grows night after night) is cut by a search for steps into a
// staircase of significant pieces. Three or more levels in a row that step the same way, and
// that one straight line fits about as well as the steps do, are one drifting level instead.
// Standalone header: plain `inline`.
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

#include <probe/util/config.hpp>
#include "energy_split.hpp"
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace detail {

struct drift_range {
  size_t begin, end;            // points [begin, end)
  double line_start, line_end;  // the fitted line at its first and last point
};

// Whether levels k..l (bounds[k] to bounds[l + 1]) of y are one line: the line's squared
// error exceeds that of the separate levels by no more than noise explains for the l - k - 1
// parameters the levels have in excess (the mean of that chi-square plus four of its sd,
// plus four). Sets *line to the fitted line.
inline bool follows_line(const std::vector<double>& y, const prefix_moments& pm, double sigma,
                         const std::vector<size_t>& bounds, size_t k, size_t l, drift_range* line) {
  const size_t s = bounds[k], e = bounds[l + 1];
  long double steps_sse = 0;
  for (size_t j = k; j <= l; ++j) {
    const moments m = pm.of(bounds[j], bounds[j + 1]);
    steps_sse += (m.n - 1) * m.var;
  }
  const long double n = static_cast<long double>(e - s), shift = y[s];
  long double st = 0, sy = 0, stt = 0, sty = 0, syy = 0;
  for (size_t i = s; i < e; ++i) {
    const long double t = static_cast<long double>(i - s), v = y[i] - shift;
    st += t;
    sy += v;
    stt += t * t;
    sty += t * v;
    syy += v * v;
  }
  const long double vt = stt - st * st / n, cty = sty - st * sy / n, vy = syy - sy * sy / n;
  if (!(vt > 0)) return false;
  const long double slope = cty / vt, line_sse = vy - slope * cty;
  const long double at0 = sy / n - slope * st / n + shift, at1 = at0 + slope * (n - 1);
  *line = {s, e, static_cast<double>(at0), static_cast<double>(at1)};
  const double q = static_cast<double>(l - k - 1);
  const double allowance = (q + 4 * std::sqrt(2 * q) + 4) * sigma * sigma;
  return static_cast<double>(line_sse - steps_sse) <= allowance;
}

// Removes the change points inside each run of levels that follows a line; returns those runs.
inline std::vector<drift_range> collapse_drifts(const std::vector<double>& y, const prefix_moments& pm, double sigma,
                                                std::vector<size_t>* cps) {
  std::vector<size_t> bounds{0};
  bounds.insert(bounds.end(), cps->begin(), cps->end());
  bounds.push_back(y.size());
  const size_t levels = bounds.size() - 1;
  std::vector<drift_range> drifts;
  std::vector<size_t> kept;
  size_t k = 0;
  while (k < levels) {
    size_t last = k;
    drift_range line{};
    int way = 0;
    for (size_t l = k + 1; l < levels; ++l) {
      const double step = pm.of(bounds[l], bounds[l + 1]).mean - pm.of(bounds[l - 1], bounds[l]).mean;
      const int s = step > 0 ? 1 : -1;
      if (way != 0 && s != way) break;
      way = s;
      if (l - k < 2) continue;
      drift_range d{};
      if (!follows_line(y, pm, sigma, bounds, k, l, &d)) break;
      last = l;
      line = d;
    }
    if (k > 0) kept.push_back(bounds[k]);
    if (last >= k + 2) drifts.push_back(line);
    k = last + 1;
  }
  *cps = kept;
  return drifts;
}

// y with the slope of each drifting level taken out: its differences are noise again.
inline std::vector<double> without_drifts(std::vector<double> y, const std::vector<drift_range>& drifts) {
  for (const drift_range& d : drifts) {
    const double slope =
        d.end - d.begin > 1 ? (d.line_end - d.line_start) / static_cast<double>(d.end - d.begin - 1) : 0;
    for (size_t i = d.begin; i < d.end; ++i) y[i] -= slope * static_cast<double>(i - d.begin);
  }
  return y;
}

}  // namespace detail
}  // namespace analysis
PROBE_END_NAMESPACE
