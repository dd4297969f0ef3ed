// From runs to a regression report: the series of run values (failed runs are gaps, never
// filled), its change points and outliers, and events in order: regressions, improvements,
// and transients (a change that came back to the level before it within a few runs, reported
// once with its span). A change that comes back later is two events, linked: the change and
// its return. Renderers: regress_text.hpp, regress_json.hpp, regress_plot.hpp.
// Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <probe/util/config.hpp>
#include <probe/util/text.hpp>
#include "changepoint.hpp"
#include "metric_direction.hpp"
#include "series_input.hpp"
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct regress_settings {
  changepoint_options changepoints;
  std::string metric;             // shown in reports, and used to guess the direction
  std::string direction_name;     // when set, the direction is guessed from it instead (a --pattern's words)
  int direction = 0;              // +1 higher is better, -1 lower is better, 0 guess from the name
  size_t max_transient_runs = 5;  // a change back within this many runs (with a value) is a transient
};

enum class event_kind { regression, improvement, transient };

inline const char* event_kind_name(event_kind k) {
  return k == event_kind::regression ? "regression" : k == event_kind::improvement ? "improvement" : "transient";
}

constexpr size_t no_event = static_cast<size_t>(-1);

// Run indices refer to regress_report::runs; segments to the series of points.
struct regress_event {
  event_kind kind = event_kind::regression;
  bool worse = true;            // the change (a transient's excursion) made the metric worse
  size_t last_good = 0;         // the last run before the change (outliers and failed runs skipped)
  size_t first_changed = 0;     // the first run at the new level
  size_t last_changed = 0;      // transient: the last run of the excursion (else first_changed)
  size_t back = 0;              // transient: the first run back at the earlier level (else first_changed)
  size_t failed_between = 0;    // failed runs between last_good and first_changed
  size_t outliers_between = 0;  // outliers between them
  double rel_change = 0;        // against the level before; a transient's furthest level
  double sigmas = 0;            // the same change in noise standard deviations
  double p_value = 1;
  size_t runs_away = 0;         // transient, or a change that came back later: runs away, with a value
  size_t returned_by = no_event;  // a change that came back later: the event of its return
  size_t returns = no_event;      // that return: the event whose level before it came back to
  segment_summary before;       // the level before
  segment_summary after;        // the level after; a transient's level furthest from `before`
  segment_summary returned;     // transient: the level it came back to
};

// A single wild run left out of its level.
struct outlier_run {
  size_t run = 0;
  double value = 0, level = 0;  // its value and its level's mean
  double rel_change = 0;        // (value - level) / |level|
  double sigmas = 0;            // (value - level) / noise, on the search's scale
};

struct regress_report {
  std::string metric;
  metric_direction direction;
  changepoint_options options;
  size_t max_transient_runs = 0;
  std::vector<run_record> runs;   // in order, failed ones included
  std::vector<size_t> point_run;  // the run of each series point
  std::vector<double> points;     // the series: one value per run that has one
  segmentation seg;
  std::vector<regress_event> events;
  std::vector<outlier_run> outliers;
  std::vector<std::string> notes;
  size_t regressions = 0, improvements = 0, transients = 0, failed = 0;

  // 1 when a regression was found (transients that came back do not count), else 0.
  int exit_code() const { return regressions > 0 ? 1 : 0; }
  // First and last run of a segment of points.
  size_t first_run(const segment_summary& s) const { return point_run[s.begin]; }
  size_t last_run(const segment_summary& s) const { return point_run[s.end - 1]; }
};

// A value with about `sig` significant digits, without exponents in the usual ranges.
inline std::string format_value(double v, int sig = 4) {
  char buf[64];
  if (!std::isfinite(v)) return v > 0 ? "inf" : v < 0 ? "-inf" : "nan";
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e9)) {
    std::snprintf(buf, sizeof buf, "%.*g", sig, v);
    return buf;
  }
  int decimals = a == 0 ? 1 : sig - 1 - static_cast<int>(std::floor(std::log10(a)));
  decimals = std::max(0, std::min(decimals, 6));
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

inline std::string format_percent(double rel) {
  if (!std::isfinite(rel)) return rel > 0 ? "+inf%" : "-inf%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * rel);
  return buf;
}

inline std::string format_p(double p) {
  if (p <= 0) return "< 1e-300";  // below what a double holds
  char buf[32];
  std::snprintf(buf, sizeof buf, p < 1e-3 ? "%.1e" : "%.3f", p);
  return buf;
}

inline std::string format_sigmas(double s) {
  if (!std::isfinite(s)) return s > 0 ? "+inf sd" : "-inf sd";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(s) < 100 ? "%+.1f sd" : "%+.0f sd", s);
  return buf;
}

// The runs a level's mean and spread are over, and its outliers: "5 runs + 1 outlier".
inline std::string level_runs_text(const segment_summary& s) {
  const size_t n = s.count() - s.outliers;
  std::string t = std::to_string(n) + (n == 1 ? " run" : " runs");
  if (s.outliers) t += " + " + std::to_string(s.outliers) + (s.outliers == 1 ? " outlier" : " outliers");
  return t;
}

// The noise line of the reports: its size, as a share of the value on a log scale and in the
// metric's units on a linear one, and which scale the search ran on.
inline std::string noise_text(const regress_report& r) {
  if (r.seg.log_scale) return "run-to-run noise " + format_value(100 * r.seg.noise, 2) + "% of the value (log scale) = 1 sd";
  std::string t = "run-to-run noise " + format_value(r.seg.noise);
  const double mean = moments_of(r.points).mean;
  if (mean != 0) t += " (" + format_value(100 * r.seg.noise / std::fabs(mean), 2) + "% of the mean)";
  return t + " (linear scale) = 1 sd";
}

// The human name of an event: "regression", "improvement", "recovery" (the return of a
// regression that lasted), "transient dip"/"transient rise".
inline std::string event_title(const regress_event& e) {
  if (e.returns != no_event) return e.worse ? "regression (back)" : "recovery";
  if (e.kind != event_kind::transient) return event_kind_name(e.kind);
  const bool down = e.rel_change < 0;
  return std::string("transient ") + (down ? "dip" : "rise") + (e.worse ? " (worse)" : " (better)");
}

namespace detail {

// Two levels are the same within noise when they would not count as a change if they
// were adjacent: their difference is under min_change, or not significant at max_pvalue (on
// the search's scale, where the noise is).
inline bool same_level(const segmentation& seg, const changepoint_options& opt, const segment_summary& a,
                       const segment_summary& b) {
  if (std::fabs(relative_change(a.mean, b.mean)) < opt.min_change) return true;
  moments ma, mb;
  ma.n = static_cast<double>(a.count() - a.outliers);
  ma.mean = a.search_mean;
  ma.var = a.search_sd * a.search_sd;
  mb.n = static_cast<double>(b.count() - b.outliers);
  mb.mean = b.search_mean;
  mb.var = b.search_sd * b.search_sd;
  return welch_t_test(ma, mb, seg.noise * seg.noise, seg.prior_df).p > opt.max_pvalue;
}

inline double in_sigmas(double shift, double noise) {
  if (noise > 0) return shift / noise;
  return shift == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), shift);
}

}  // namespace detail

inline regress_report analyze_regressions(std::vector<run_record> runs, const regress_settings& settings) {
  regress_report r;
  r.metric = settings.metric;
  r.direction = choose_direction(settings.direction_name.empty() ? settings.metric : settings.direction_name,
                                 settings.direction);
  r.options = settings.changepoints;
  r.max_transient_runs = settings.max_transient_runs;
  r.runs = std::move(runs);
  for (size_t i = 0; i < r.runs.size(); ++i) {
    if (r.runs[i].failed()) {
      ++r.failed;
      continue;
    }
    r.point_run.push_back(i);
    r.points.push_back(r.runs[i].value());
  }
  r.seg = find_change_points(r.points, r.options);
  if (r.options.scale == value_scale::log && !r.seg.log_scale)
    for (size_t i = 0; i < r.points.size(); ++i)
      if (!(r.points[i] > 0) || !std::isfinite(r.points[i])) {
        r.notes.push_back("--scale log: run " + ::probe::detail::printable(r.runs[r.point_run[i]].label) + " has " +
                          format_value(r.points[i]) + ", which has no logarithm; the search ran on the values");
        break;
      }
  const size_t m = r.seg.min_points;
  if (!r.points.empty() && !r.seg.enough_points)
    r.notes.push_back("too few runs with a value to look for changes: " + std::to_string(r.points.size()) +
                      " (need at least " + std::to_string(2 * m) + ", " + std::to_string(m) +
                      " on each side of a change)");
  auto label = [&](size_t run) { return ::probe::detail::printable(r.runs[run].label); };

  const auto& ch = r.seg.changes;
  const auto& lv = r.seg.levels;
  auto worse_of = [&](double rel) { return r.direction.higher_is_better ? rel < 0 : rel > 0; };
  std::vector<size_t> closes(ch.size(), no_event);  // change index -> the event its return closes
  for (size_t i = 0; i < ch.size();) {
    const segment_summary& base = lv[i];
    const double side = lv[i + 1].mean - base.mean;
    size_t back_level = 0;  // level index it came back to; 0 = none
    for (size_t j = i + 2; j < lv.size(); ++j) {
      if (detail::same_level(r.seg, r.options, base, lv[j])) {
        back_level = j;
        break;
      }
      if ((lv[j].mean - base.mean) * side <= 0) break;  // crossed over: not one excursion
    }
    regress_event e;
    e.before = base;
    e.last_good = r.point_run[ch[i].last_before];
    e.first_changed = r.point_run[ch[i].index];
    e.failed_between = e.first_changed - e.last_good - 1 - (ch[i].index - ch[i].last_before - 1);
    e.outliers_between = ch[i].index - ch[i].last_before - 1;
    e.p_value = ch[i].p_value;
    const size_t away = back_level ? lv[back_level].begin - lv[i + 1].begin : 0;
    if (back_level && away <= r.max_transient_runs) {
      size_t furthest = i + 1;
      for (size_t j = i + 1; j < back_level; ++j)
        if (std::fabs(lv[j].mean - base.mean) > std::fabs(lv[furthest].mean - base.mean)) furthest = j;
      e.kind = event_kind::transient;
      e.after = lv[furthest];
      e.returned = lv[back_level];
      e.rel_change = relative_change(base.mean, lv[furthest].mean);
      e.sigmas = detail::in_sigmas(lv[furthest].search_mean - base.search_mean, r.seg.noise);
      e.worse = worse_of(e.rel_change);
      e.last_changed = r.point_run[lv[back_level - 1].end - 1];
      e.back = r.point_run[lv[back_level].begin];
      e.runs_away = away;
      ++r.transients;
      r.events.push_back(e);
      i = back_level;
      continue;
    }
    e.after = lv[i + 1];
    e.rel_change = ch[i].rel_change;
    e.sigmas = ch[i].sigmas;
    e.worse = worse_of(e.rel_change);
    e.kind = e.worse ? event_kind::regression : event_kind::improvement;
    e.last_changed = e.back = e.first_changed;
    ++(e.worse ? r.regressions : r.improvements);
    if (back_level) {  // back, but later than a transient: this change and its return, linked
      e.runs_away = away;
      closes[back_level - 1] = r.events.size();
    }
    if (closes[i] != no_event) {
      e.returns = closes[i];
      e.runs_away = r.events[closes[i]].runs_away;
      r.events[closes[i]].returned_by = r.events.size();
    }
    r.events.push_back(e);
    ++i;
  }

  for (size_t p : r.seg.outliers) {
    outlier_run o;
    o.run = r.point_run[p];
    o.value = r.points[p];
    double level = 0;  // on the search's scale
    for (const segment_summary& l : lv)
      if (p >= l.begin && p < l.end) {
        o.level = l.mean;
        level = l.search_mean;
      }
    o.rel_change = relative_change(o.level, o.value);
    o.sigmas = detail::in_sigmas(r.seg.search_value(o.value) - level, r.seg.noise);
    r.outliers.push_back(o);
  }
  for (size_t i = 0; i < lv.size(); ++i)
    if (lv[i].drifting)
      r.notes.push_back("level " + std::to_string(i + 1) + " (" + label(r.first_run(lv[i])) + " .. " +
                        label(r.last_run(lv[i])) + ") drifts " + format_percent(lv[i].drift) + " over " +
                        std::to_string(lv[i].count()) + " runs: a slow change, no single run to bisect");

  // An edge level at the start: what it is, and that it is out of the first level. (At the end
  // it is the possible change below.)
  const edge_level& head = r.seg.first_edge;
  if (head.count()) {
    const size_t first = r.point_run[head.begin], last = r.point_run[head.end - 1];
    const size_t k = head.count();
    r.notes.push_back(std::string("the first ") + (k == 1 ? "run" : std::to_string(k) + " runs") + " (" + label(first) +
                      (k > 1 ? " .. " + label(last) : std::string()) + (k == 1 ? ") is " : ") are ") +
                      format_percent(head.rel_change) +
                      " (" + format_sigmas(head.sigmas) + ") off the first level: too few runs for a level of their own, " +
                      "set aside as outliers so that they hide no change after them");
  }
  if (r.seg.tail.present) {
    const size_t first = r.point_run[r.seg.tail.begin], last = r.point_run[r.seg.tail.end - 1];
    const size_t k = r.seg.tail.end - r.seg.tail.begin;
    const bool before_last = r.seg.tail.end < r.points.size();  // a wild last run after them
    r.notes.push_back("possible " + std::string(worse_of(r.seg.tail.rel_change) ? "regression" : "improvement") +
                      " at the end: the " + (before_last ? "" : "last ") +
                      (k == 1 ? std::string("run") : std::to_string(k) + " runs") + " (" + label(first) +
                      (k > 1 ? " .. " + label(last) : std::string()) + ")" +
                      (before_last ? " before the last run (an outlier)" : "") + " moved " +
                      format_percent(r.seg.tail.rel_change) +
                      "; too few runs after it to tell a change from a one-off (need " + std::to_string(m) + ")");
  }
  return r;
}

}  // namespace analysis
PROBE_END_NAMESPACE
