// Scores detected change points against the truth of a synthetic series
// (synthetic_series.hpp): which true changes were found and how far from their run, which
// detections are false, and which wild runs were reported as outliers. Counts add up into
// tallies (recall, precision, date error) by level length.
//
// Rules:
// - Positions are points: runs with a value (failed runs are gaps). A change whose first run
//   failed is due at the first run with a value after it.
// - A detection matches a true change within max(2, min(10, shorter level / 2)) points; pairs
//   are matched closest first, one to one.
// - True changes smaller than `min_change` are not asked for: finding one counts neither way.
// - Inside a drifting level, the first unmatched detection is allowed (a slow move may be
//   reported once); any further one is false.
// Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <vector>

#include <probe/util/config.hpp>
#include "synthetic_series.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct detection_outcome {
  std::vector<char> counted;  // per true change: at least min_change, so it should be found
  std::vector<char> found;
  std::vector<long> error;                // per true change: detected - true, in points
  std::vector<size_t> false_level_runs;   // per false detection: runs of the true level it fell in
  std::vector<char> outlier_reported;     // per true outlier
};

struct detection_tally {
  size_t changes = 0, found = 0, exact = 0, false_detections = 0;
  double error_sum = 0;  // sum of |date error| over found changes, in runs with a value

  double recall() const { return changes ? static_cast<double>(found) / static_cast<double>(changes) : 1; }
  double precision() const {
    const size_t all = found + false_detections;
    return all ? static_cast<double>(found) / static_cast<double>(all) : 1;
  }
  double exact_share() const { return found ? static_cast<double>(exact) / static_cast<double>(found) : 1; }
  double mean_error() const { return found ? error_sum / static_cast<double>(found) : 0; }
  void add(const detection_tally& t) {
    changes += t.changes;
    found += t.found;
    exact += t.exact;
    false_detections += t.false_detections;
    error_sum += t.error_sum;
  }
};

// The runs with a value, in order: point i is run point_runs(s)[i].
inline std::vector<size_t> point_runs(const synthetic_series& s) {
  std::vector<size_t> out;
  for (size_t r = 0; r < s.runs.size(); ++r)
    if (!std::isnan(s.runs[r])) out.push_back(r);
  return out;
}

inline std::vector<double> point_values(const synthetic_series& s) {
  std::vector<double> out;
  for (double v : s.runs)
    if (!std::isnan(v)) out.push_back(v);
  return out;
}

// detected: change points as point indices (first point of each new level); outliers: point
// indices reported as outliers (may be empty).
inline detection_outcome score_detections(const synthetic_series& s, const std::vector<size_t>& detected,
                                          double min_change, const std::vector<size_t>& outliers = {}) {
  const std::vector<size_t> runs = point_runs(s);
  auto point_at_or_after = [&](size_t run) {
    return static_cast<size_t>(std::lower_bound(runs.begin(), runs.end(), run) - runs.begin());
  };
  detection_outcome o;
  const size_t nc = s.changes.size();
  o.counted.assign(nc, 0);
  o.found.assign(nc, 0);
  o.error.assign(nc, 0);
  std::vector<size_t> due(nc);
  struct pair_at {
    size_t distance, change, detection;
  };
  std::vector<pair_at> pairs;
  for (size_t i = 0; i < nc; ++i) {
    const true_change& c = s.changes[i];
    o.counted[i] = std::fabs(c.rel) >= min_change;
    due[i] = point_at_or_after(c.run);
    const size_t tolerance = std::max<size_t>(2, std::min<size_t>(10, c.shorter / 2));
    for (size_t j = 0; j < detected.size(); ++j) {
      const size_t d = detected[j] > due[i] ? detected[j] - due[i] : due[i] - detected[j];
      if (d <= tolerance) pairs.push_back({d, i, j});
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const pair_at& a, const pair_at& b) {
    return a.distance != b.distance ? a.distance < b.distance
                                    : a.change != b.change ? a.change < b.change : a.detection < b.detection;
  });
  std::vector<char> used(detected.size(), 0), matched(nc, 0);
  for (const pair_at& p : pairs) {
    if (used[p.detection] || matched[p.change]) continue;
    used[p.detection] = matched[p.change] = 1;
    o.found[p.change] = 1;
    o.error[p.change] = static_cast<long>(detected[p.detection]) - static_cast<long>(due[p.change]);
  }
  std::vector<char> drift_used(s.drifts.size(), 0);
  for (size_t j = 0; j < detected.size(); ++j) {
    if (used[j]) continue;
    const size_t run = detected[j] < runs.size() ? runs[detected[j]] : s.runs.size();
    bool allowed = false;
    for (size_t d = 0; d < s.drifts.size() && !allowed; ++d)
      if (run > s.drifts[d].begin && run < s.drifts[d].end && !drift_used[d]) {
        drift_used[d] = 1;
        allowed = true;
      }
    if (allowed) continue;
    size_t level_runs = 0;
    for (const run_range& lv : s.levels)
      if (run >= lv.begin && run < lv.end) level_runs = lv.end - lv.begin;
    o.false_level_runs.push_back(level_runs);
  }
  for (const true_outlier& t : s.outliers) {
    const size_t p = point_at_or_after(t.run);
    o.outlier_reported.push_back(p < runs.size() && runs[p] == t.run &&
                                 std::find(outliers.begin(), outliers.end(), p) != outliers.end());
  }
  return o;
}

// Adds an outcome to tallies by level length class (level_length_class): true changes by
// their shorter level, when counted and keep(change) says so; false detections by the
// level they fell in.
template <class Keep>
void add_by_length(const synthetic_series& s, const detection_outcome& o, Keep keep,
                   detection_tally (&by_class)[level_length_classes]) {
  for (size_t i = 0; i < s.changes.size(); ++i) {
    if (!o.counted[i] || !keep(s.changes[i])) continue;
    detection_tally& t = by_class[level_length_class(s.changes[i].shorter)];
    ++t.changes;
    if (!o.found[i]) continue;
    ++t.found;
    t.exact += o.error[i] == 0;
    t.error_sum += static_cast<double>(std::labs(o.error[i]));
  }
  for (size_t runs : o.false_level_runs) ++by_class[level_length_class(runs)].false_detections;
}

}  // namespace analysis
PROBE_END_NAMESPACE
