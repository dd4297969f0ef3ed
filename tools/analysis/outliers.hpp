// Wild single runs and the noise within levels, for changepoint.hpp.
//
// A wild run (a crashed or throttled run that still printed a number) must neither become a
// change nor hide one: it inflates the spread of whatever level holds it, and with it every
// test across that level. So such runs are found first and left out of the search, like
// failed runs, and reported. A run is an outlier when it is beyond both of its neighbourhoods
// (the medians of up to three runs on each side) by more than k noise standard deviations, on
// the same side, and is that far from both adjacent runs: one run alone. Two adjacent runs
// out together are a short level, not outliers; a run between its neighbourhoods is a step
// in progress. The first and last runs are never outliers (one side only: the last one is a
// possible start of a new level).
// Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include <probe/util/config.hpp>
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// 1 for each outlier of x; k <= 0 finds none.
inline std::vector<char> find_outliers(const std::vector<double>& x, double sigma, double k) {
  const size_t n = x.size();
  std::vector<char> flag(n, 0);
  if (!(k > 0) || n < 5) return flag;
  const double limit = k * sigma;
  std::vector<double> side;
  auto median_of = [&](size_t a, size_t b) {
    side.assign(x.begin() + static_cast<std::ptrdiff_t>(a), x.begin() + static_cast<std::ptrdiff_t>(b));
    return median_in_place(side);
  };
  std::vector<signed char> sign(n, 0);
  for (size_t i = 1; i + 1 < n; ++i) {
    const double dl = x[i] - median_of(i >= 3 ? i - 3 : 0, i), dr = x[i] - median_of(i + 1, std::min(n, i + 4));
    if ((dl > 0) != (dr > 0)) continue;
    if (!(std::fabs(dl) > limit && std::fabs(dr) > limit)) continue;
    if (!(std::fabs(x[i] - x[i - 1]) > limit && std::fabs(x[i] - x[i + 1]) > limit)) continue;
    flag[i] = 1;
    sign[i] = dl > 0 ? 1 : -1;
  }
  // two adjacent runs out on the same side: a two-run excursion, for the change search
  for (size_t i = 1; i + 1 < n; ++i)
    if (flag[i] && flag[i + 1] && sign[i] == sign[i + 1]) flag[i] = flag[i + 1] = 0;
  return flag;
}

// Noise standard deviation from the successive differences inside levels (bounds: the first
// point of each level after the first), so that steps do not count as noise however many
// there are. `fallback` when fewer than 8 differences remain.
inline double noise_within_levels(const std::vector<double>& y, const std::vector<size_t>& bounds, double fallback) {
  std::vector<double> d;
  d.reserve(y.size());
  size_t next = 0;
  for (size_t i = 1; i < y.size(); ++i) {
    while (next < bounds.size() && bounds[next] < i) ++next;
    if (next < bounds.size() && bounds[next] == i) continue;  // y[i - 1] and y[i] are on two levels
    d.push_back(y[i] - y[i - 1]);
  }
  return d.size() < 8 ? fallback : noise_of_differences(std::move(d));
}

}  // namespace analysis
PROBE_END_NAMESPACE
