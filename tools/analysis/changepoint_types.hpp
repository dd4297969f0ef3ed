// The options and the result of the change-point search (changepoint.hpp): levels, changes,
// outliers, edge levels and the possible change at the end, in the metric's units; the noise
// and the sd counts on the scale the search ran on. Standalone header: plain `inline`.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

// What the search runs on. Rates and times vary in proportion to their size, so by default
// (automatic) it runs on the logs of the values when every value is above zero and they are
// not quantized (most steps between runs equal: their noise is the quantum, at any level):
// the noise is then one share of the value for levels of any size. Linear: on the values
// themselves (always, when a value is zero or below).
enum class value_scale { automatic, linear, log };

inline const char* value_scale_name(value_scale s) {
  return s == value_scale::log ? "log" : s == value_scale::linear ? "linear" : "auto";
}

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
  value_scale scale = value_scale::automatic;
};

struct segment_summary {
  size_t begin = 0, end = 0;                  // [begin, end) in the series
  double mean = 0, sd = 0, min = 0, max = 0;  // of its points, outliers left out
  double search_mean = 0, search_sd = 0;      // the same on the scale of the search (logs on a log scale)
  size_t outliers = 0;                        // points of [begin, end) that are outliers
  bool drifting = false;                      // its values follow a line rather than a level
  double drift = 0;                           // drifting: relative change along the line, first to last point
  double line_start = 0, line_end = 0;        // drifting: the line's values at its first and last point
                                              // (a line on the scale of the search)
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
  size_t end = 0;    // one past its last (a wild last run after it is not part of it)
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
  bool log_scale = false;               // the search ran on the logs of the values
  double noise = 0;                     // point-to-point noise (standard deviation), on the search's scale:
                                        // a share of the value on a log scale
  double prior_df = 0;                  // weight the noise level had in the tests
  size_t min_points = 0;                // points the first and last levels need
  bool enough_points = false;           // at least 2 * min_points points
  tail_suspect tail;                    // an edge level at the end is one, if large enough
  edge_level first_edge, last_edge;

  // A value on the scale of the search, and the noise in the metric's units at a value.
  double search_value(double v) const { return log_scale ? std::log(v) : v; }
  double noise_at(double v) const { return log_scale ? noise * std::fabs(v) : noise; }
};

// (after - before) / |before|; infinite when before is 0 and after is not.
inline double relative_change(double before, double after) {
  if (before != 0) return (after - before) / std::fabs(before);
  if (after == before) return 0;
  return std::copysign(std::numeric_limits<double>::infinity(), after - before);
}

}  // namespace analysis
PROBE_END_NAMESPACE
