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

// Runs at the ends of a series set aside as an edge level: 1 or 2 runs before the first level
// (or after the last) that are too few to be a level of their own (the first and last levels
// need 3 runs) and, folded into the level beside them, would inflate its spread and hide the
// change after it (a machine change before the first nightly runs, a crashed last run). Their
// mean is more than k noise sd from the level beside them (the median of the next three
// runs), each of them more than k/2 on the same side, and each of those three runs is nearer
// to the level than half the edge's distance from it: so a first level of 3 runs, whose third
// run is still at its value, is never cut, and three runs that reach across a change are no
// level to cut anything from. They are set aside like outliers; the rest of the series keeps
// `min_rest` runs. `outlier` (the wild runs found already) are skipped in the reference runs.
struct edge_runs {
  size_t head = 0, tail = 0;  // points set aside at the start and at the end
  bool short_head = false;    // the head is one wild run before a first level of two runs
};

inline edge_runs find_edge_runs(const std::vector<double>& x, const std::vector<char>& outlier, double sigma, double k,
                                size_t max_len, size_t min_rest) {
  edge_runs e;
  if (!(k > 0)) return e;
  std::vector<size_t> pts;  // the runs that are not outliers, in order
  for (size_t i = 0; i < x.size(); ++i)
    if (!outlier[i]) pts.push_back(i);
  const double limit = k * sigma;
  std::vector<double> ref;
  // whether points pts[first .. first + r) stand apart from pts[next], pts[next + step], ...
  auto apart = [&](size_t first, size_t r, size_t next, long step) {
    double beside[3];
    for (long j = 0; j < 3; ++j) beside[j] = x[pts[static_cast<size_t>(static_cast<long>(next) + step * j)]];
    ref.assign(beside, beside + 3);
    const double level = median_in_place(ref);
    double mean = 0;
    for (size_t i = first; i < first + r; ++i) mean += x[pts[i]] / static_cast<double>(r);
    const double apart_by = std::fabs(mean - level);
    if (!(apart_by > limit)) return false;
    // The runs beside the edge must be a level, nearer to each other than the edge is to them:
    // three runs that reach across a change (a first level of two runs) have no level to set
    // the edge apart from, and setting it aside would leave a first level too short to stand.
    for (double v : beside)
      if (!(std::fabs(v - level) < apart_by / 2)) return false;
    for (size_t i = first; i < first + r; ++i) {
      const double d = x[pts[i]] - level;
      if (!((d > 0) == (mean > level) && std::fabs(d) > limit / 2)) return false;
    }
    return true;
  };
  const size_t n = pts.size();
  // A wild first run, then a first level of only two runs, then a step (a crashed first night,
  // and a change on the fourth): the two runs stay together within a quarter of how far the
  // first run and the step are from them, the run after the step is at its level, and the
  // first run is not at that level (else the two runs are a dip). The two runs are then a
  // level as a short level between two others is (the change search judges it by its size in
  // noise sd), rather than too few for a first level, which hid the step. Looked for first: a
  // run that far off would also pass for an edge before a "level" of the two and the step.
  if (max_len >= 1 && n >= std::max<size_t>(5, 1 + min_rest) && pts[0] == 0) {
    const double w = x[pts[0]], a0 = x[pts[1]], a1 = x[pts[2]], b = x[pts[3]], b1 = x[pts[4]];
    const double level = (a0 + a1) / 2, spread = std::fabs(a0 - a1);
    const double off = std::fabs(w - level), jump = std::fabs(b - level);
    if (off > limit && jump > limit && spread < off / 4 && spread < jump / 4 && std::fabs(b1 - b) < jump / 4 &&
        std::fabs(w - b) > std::max(limit, jump / 4)) {
      e.head = 1;
      e.short_head = true;
    }
  }
  // the edges are the first and last runs themselves, not runs beyond an outlier
  for (size_t r = max_len; r >= 1 && e.head == 0; --r)
    if (n >= r + std::max<size_t>(min_rest, 3) && pts[r - 1] == r - 1 && apart(0, r, r, 1)) e.head = r;
  for (size_t r = max_len; r >= 1 && e.tail == 0; --r)
    if (n >= e.head + r + std::max<size_t>(min_rest, 3) && pts[n - r] == x.size() - r && apart(n - r, r, n - r - 1, -1))
      e.tail = r;
  return e;
}

// Runs set aside at an end of the series (outliers, edge runs) are given back when setting
// them aside leaves the end level too few runs to stand: the first (last) level needs
// `level_points` runs, and a level of fewer hides the change after it, however large. The end
// level is the runs, at least `level_points` of them, before the first jump between
// neighbours that is larger than the limit and more than twice their range (wild runs past
// the first `level_points` are passed over, and stay set aside): runs that stay
// together that closely, set off by such a jump, are a level however noisy (a first level
// whose runs vary more than the rest of the series, as rates and times do when they vary in
// proportion to their size), not a wild run beside a level too short to be one. Edge runs
// given back end the edge. Returns whether any run was given back.
inline bool restore_end_levels(const std::vector<double>& x, std::vector<char>* set_aside, edge_runs* edges,
                               double limit, size_t level_points) {
  const size_t n = x.size();
  std::vector<char>& out = *set_aside;
  bool restored = false;
  for (int side = 0; side < 2; ++side) {  // the head, then the tail, walked from the end inward
    auto at = [&](size_t k) { return side == 0 ? k : n - 1 - k; };
    size_t kept = 0, aside = 0, end = 0, prev = 0;
    double lo = 0, hi = 0;
    for (size_t k = 0; k < n && kept < level_points; ++k) {
      const size_t i = at(k);
      const double v = x[i];
      if (k >= level_points) {
        if (out[i]) continue;  // a wild run further in neither ends the level nor is given back
        const double jump = std::fabs(v - x[prev]);
        if (jump > limit && jump > 2 * (hi - lo)) {
          end = k;
          break;
        }
      }
      lo = k ? std::min(lo, v) : v;
      hi = k ? std::max(hi, v) : v;
      ++(out[i] ? aside : kept);
      prev = i;
    }
    if (end == 0 || aside == 0 || kept >= level_points) continue;
    for (size_t k = 0; k < level_points; ++k) out[at(k)] = 0;
    (side == 0 ? edges->head : edges->tail) = 0;
    if (side == 0) edges->short_head = false;
    restored = true;
  }
  return restored;
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
