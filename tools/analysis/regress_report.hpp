// From runs to a regression report: the series of run values (failed runs are gaps, never
// filled), its change points, and events in order: regressions, improvements, and transients
// (a change that came back to the level before it, reported once with its span). Renders
// the report as text and JSON; regress_plot.hpp draws it. Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <probe/util/config.hpp>
#include <probe/util/text.hpp>
#include "changepoint.hpp"
#include "json_text.hpp"
#include "metric_direction.hpp"
#include "series_input.hpp"
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct regress_settings {
  changepoint_options changepoints;
  std::string metric;  // shown in reports, and used to guess the direction
  int direction = 0;   // +1 higher is better, -1 lower is better, 0 guess from the name
};

enum class event_kind { regression, improvement, transient };

inline const char* event_kind_name(event_kind k) {
  return k == event_kind::regression ? "regression" : k == event_kind::improvement ? "improvement" : "transient";
}

// Run indices refer to regress_report::runs; segments to the series of points.
struct regress_event {
  event_kind kind = event_kind::regression;
  bool worse = true;           // the change (a transient's excursion) made the metric worse
  size_t last_good = 0;        // the last run before the change
  size_t first_changed = 0;    // the first run at the new level
  size_t last_changed = 0;     // transient: the last run of the excursion (else first_changed)
  size_t back = 0;             // transient: the first run back at the earlier level (else first_changed)
  size_t failed_between = 0;   // failed runs between last_good and first_changed
  double rel_change = 0;       // against the level before; a transient's furthest level
  double p_value = 1;
  segment_summary before;      // the level before
  segment_summary after;       // the level after; a transient's level furthest from `before`
  segment_summary returned;    // transient: the level it came back to
};

struct regress_report {
  std::string metric;
  metric_direction direction;
  changepoint_options options;
  std::vector<run_record> runs;   // in order, failed ones included
  std::vector<size_t> point_run;  // the run of each series point
  std::vector<double> points;     // the series: one value per run that has one
  segmentation seg;
  std::vector<regress_event> events;
  std::vector<std::string> notes;
  size_t regressions = 0, improvements = 0, transients = 0, failed = 0;

  // 1 when a regression was found (transients that came back do not count), else 0.
  int exit_code() const { return regressions > 0 ? 1 : 0; }
  // First and last run of a segment of points.
  size_t first_run(const segment_summary& s) const { return point_run[s.begin]; }
  size_t last_run(const segment_summary& s) const { return point_run[s.end - 1]; }
};

namespace detail {

// Two levels are the same within noise when they would not count as a change if they
// were adjacent: their difference is under min_change, or not significant at max_pvalue.
inline bool same_level(const segmentation& seg, const changepoint_options& opt, const segment_summary& a,
                       const segment_summary& b) {
  if (std::fabs(relative_change(a.mean, b.mean)) < opt.min_change) return true;
  moments ma, mb;
  ma.n = static_cast<double>(a.count());
  ma.mean = a.mean;
  ma.var = a.sd * a.sd;
  mb.n = static_cast<double>(b.count());
  mb.mean = b.mean;
  mb.var = b.sd * b.sd;
  return welch_t_test(ma, mb, seg.noise * seg.noise, seg.prior_df).p > opt.max_pvalue;
}

}  // namespace detail

inline regress_report analyze_regressions(std::vector<run_record> runs, const regress_settings& settings) {
  regress_report r;
  r.metric = settings.metric;
  r.direction = choose_direction(settings.metric, settings.direction);
  r.options = settings.changepoints;
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
  const size_t m = std::max<size_t>(2, r.options.min_points);
  if (!r.points.empty() && !r.seg.enough_points)
    r.notes.push_back("too few runs with a value to look for changes: " + std::to_string(r.points.size()) +
                      " (need at least " + std::to_string(2 * m) + ", " + std::to_string(m) +
                      " on each side of a change)");

  const auto& ch = r.seg.changes;
  const auto& lv = r.seg.levels;
  auto worse_of = [&](double rel) { return r.direction.higher_is_better ? rel < 0 : rel > 0; };
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
    e.last_good = r.point_run[ch[i].index - 1];
    e.first_changed = r.point_run[ch[i].index];
    e.failed_between = e.first_changed - e.last_good - 1;
    e.p_value = ch[i].p_value;
    if (back_level) {
      size_t furthest = i + 1;
      for (size_t j = i + 1; j < back_level; ++j)
        if (std::fabs(lv[j].mean - base.mean) > std::fabs(lv[furthest].mean - base.mean)) furthest = j;
      e.kind = event_kind::transient;
      e.after = lv[furthest];
      e.returned = lv[back_level];
      e.rel_change = relative_change(base.mean, lv[furthest].mean);
      e.worse = worse_of(e.rel_change);
      e.last_changed = r.point_run[lv[back_level - 1].end - 1];
      e.back = r.point_run[lv[back_level].begin];
      ++r.transients;
      i = back_level;
    } else {
      e.after = lv[i + 1];
      e.rel_change = ch[i].rel_change;
      e.worse = worse_of(e.rel_change);
      e.kind = e.worse ? event_kind::regression : event_kind::improvement;
      e.last_changed = e.back = e.first_changed;
      ++(e.worse ? r.regressions : r.improvements);
      ++i;
    }
    r.events.push_back(e);
  }

  if (r.seg.tail.present) {
    const size_t first = r.point_run[r.seg.tail.begin], last = r.point_run.back();
    const size_t k = r.points.size() - r.seg.tail.begin;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * r.seg.tail.rel_change);
    r.notes.push_back("possible " + std::string(worse_of(r.seg.tail.rel_change) ? "regression" : "improvement") +
                      " at the end: the last " + (k == 1 ? std::string("run") : std::to_string(k) + " runs") + " (" +
                      ::probe::detail::printable(r.runs[first].label) +
                      (k > 1 ? " .. " + ::probe::detail::printable(r.runs[last].label) : std::string()) + ") moved " + buf +
                      "; too few runs after it to tell a change from a one-off (need " + std::to_string(m) + ")");
  }
  return r;
}

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

// The human name of an event: "regression", "improvement", "transient dip"/"transient rise".
inline std::string event_title(const regress_event& e) {
  if (e.kind != event_kind::transient) return event_kind_name(e.kind);
  const bool down = e.rel_change < 0;
  return std::string("transient ") + (down ? "dip" : "rise") + (e.worse ? " (worse)" : " (better)");
}

inline std::string regress_text(const regress_report& r) {
  std::string out;
  char buf[512];
  // Labels come from file names: shown with control characters escaped.
  auto label = [&](size_t run) { return ::probe::detail::printable(r.runs[run].label); };
  std::snprintf(buf, sizeof buf, "probe regress: %s over %zu runs (%zu with a value, %zu failed); %s\n",
                r.metric.empty() ? "metric" : r.metric.c_str(), r.runs.size(), r.points.size(), r.failed,
                r.direction.reason.c_str());
  out += buf;
  if (!r.points.empty()) {
    const double mean = moments_of(r.points).mean;
    std::string noise = format_value(r.seg.noise);
    if (mean != 0) noise += " (" + format_value(100 * r.seg.noise / std::fabs(mean), 2) + "% of the mean)";
    std::snprintf(buf, sizeof buf, "run-to-run noise %s; a change needs p <= %g and at least %g%% (--max-pvalue, --min-change)\n",
                  noise.c_str(), r.options.max_pvalue, 100 * r.options.min_change);
    out += buf;
  }

  size_t w = 9;
  for (size_t i = 0; i < r.runs.size(); ++i) w = std::max(w, label(i).size());
  w = std::min<size_t>(w, 48);
  const int lw = static_cast<int>(w);
  if (!r.seg.levels.empty()) {
    out += "\nlevels\n";
    std::snprintf(buf, sizeof buf, "  %-5s  %-*s  %-*s  %6s  %12s  %10s\n", "level", lw, "first run", lw, "last run",
                  "runs", "mean", "std");
    out += buf;
    for (size_t i = 0; i < r.seg.levels.size(); ++i) {
      const segment_summary& s = r.seg.levels[i];
      std::snprintf(buf, sizeof buf, "  %-5zu  %-*s  %-*s  %6zu  %12s  %10s\n", i + 1, lw,
                    label(r.first_run(s)).c_str(), lw, label(r.last_run(s)).c_str(), s.count(),
                    format_value(s.mean).c_str(), format_value(s.sd, 3).c_str());
      out += buf;
    }
  }

  out += "\nevents";
  if (r.events.empty()) out += ": none";
  out += "\n";
  for (size_t i = 0; i < r.events.size(); ++i) {
    const regress_event& e = r.events[i];
    std::snprintf(buf, sizeof buf, "  %zu. %-24s %8s  %s -> %s", i + 1, event_title(e).c_str(),
                  format_percent(e.rel_change).c_str(), label(e.last_good).c_str(), label(e.first_changed).c_str());
    out += buf;
    if (e.failed_between) out += "  (" + std::to_string(e.failed_between) + " failed between)";
    out += "\n";
    std::snprintf(buf, sizeof buf, "       %s +- %s (%zu runs) -> %s +- %s (%zu runs), p = %s\n",
                  format_value(e.before.mean).c_str(), format_value(e.before.sd, 3).c_str(), e.before.count(),
                  format_value(e.after.mean).c_str(), format_value(e.after.sd, 3).c_str(), e.after.count(),
                  format_p(e.p_value).c_str());
    out += buf;
    if (e.kind == event_kind::transient) {
      std::snprintf(buf, sizeof buf, "       lasted %s .. %s, back to %s +- %s at %s\n", label(e.first_changed).c_str(),
                    label(e.last_changed).c_str(), format_value(e.returned.mean).c_str(),
                    format_value(e.returned.sd, 3).c_str(), label(e.back).c_str());
      out += buf;
    }
  }

  if (r.failed) {
    std::snprintf(buf, sizeof buf, "\nfailed runs (%zu): no value, kept as gaps\n", r.failed);
    out += buf;
    for (const auto& run : r.runs)
      if (run.failed()) {
        std::snprintf(buf, sizeof buf, "  %-*s  ", lw, ::probe::detail::printable(run.label).c_str());
        out += buf + run.error + "\n";
      }
  }
  if (!r.notes.empty()) {
    out += "\nnotes\n";
    for (const std::string& n : r.notes) out += "  " + n + "\n";
  }
  std::snprintf(buf, sizeof buf, "\nresult: %zu regression%s, %zu improvement%s, %zu transient%s, %zu failed run%s\n",
                r.regressions, r.regressions == 1 ? "" : "s", r.improvements, r.improvements == 1 ? "" : "s",
                r.transients, r.transients == 1 ? "" : "s", r.failed, r.failed == 1 ? "" : "s");
  out += buf;
  return out;
}

inline std::string regress_json(const regress_report& r) {
  json_text j;
  auto level = [&](const segment_summary& s) {
    j.begin_object();
    j.member("first_run", r.runs[r.first_run(s)].label).member("last_run", r.runs[r.last_run(s)].label);
    j.member("first_index", r.first_run(s)).member("last_index", r.last_run(s));
    j.member("points", s.count()).member("mean", s.mean).member("std", s.sd).member("min", s.min).member("max", s.max);
    j.end_object();
  };
  j.begin_object();
  j.member("metric", r.metric).member("higher_is_better", r.direction.higher_is_better);
  j.member("direction_reason", r.direction.reason);
  j.key("options").begin_object();
  j.member("max_pvalue", r.options.max_pvalue).member("min_change", r.options.min_change);
  j.member("min_points", r.options.min_points).member("window", r.options.window);
  j.end_object();
  j.member("noise", r.seg.noise).member("conclusive", r.seg.enough_points);
  j.key("runs").begin_array();
  for (const auto& run : r.runs) {
    j.begin_object().member("label", run.label).member("source", run.source);
    j.key("values").begin_array();
    for (double v : run.values) j.value(v);
    j.end_array();
    j.key("value");
    if (run.failed())
      j.null();
    else
      j.value(run.value());
    j.member("failed", run.failed());
    if (run.failed()) j.member("error", run.error);
    j.end_object();
  }
  j.end_array();
  j.key("levels").begin_array();
  for (const auto& s : r.seg.levels) level(s);
  j.end_array();
  j.key("events").begin_array();
  for (const auto& e : r.events) {
    j.begin_object();
    j.member("kind", event_kind_name(e.kind)).member("worse", e.worse);
    j.member("from_run", r.runs[e.last_good].label).member("to_run", r.runs[e.first_changed].label);
    j.member("from_index", e.last_good).member("to_index", e.first_changed);
    j.member("failed_between", e.failed_between);
    j.member("percent_change", 100 * e.rel_change).member("p_value", e.p_value);
    j.key("before");
    level(e.before);
    j.key("after");
    level(e.after);
    if (e.kind == event_kind::transient) {
      j.member("last_changed_run", r.runs[e.last_changed].label).member("last_changed_index", e.last_changed);
      j.member("back_run", r.runs[e.back].label).member("back_index", e.back);
      j.key("back");
      level(e.returned);
    }
    j.end_object();
  }
  j.end_array();
  j.key("failed_runs").begin_array();
  for (size_t i = 0; i < r.runs.size(); ++i)
    if (r.runs[i].failed())
      j.begin_object().member("label", r.runs[i].label).member("index", i).member("source", r.runs[i].source)
          .member("error", r.runs[i].error).end_object();
  j.end_array();
  j.key("notes").begin_array();
  for (const auto& n : r.notes) j.value(n);
  j.end_array();
  j.key("summary").begin_object();
  j.member("regressions", r.regressions).member("improvements", r.improvements);
  j.member("transients", r.transients).member("failed_runs", r.failed);
  j.end_object();
  j.member("exit_code", r.exit_code());
  j.end_object();
  return j.str() + "\n";
}

}  // namespace analysis
PROBE_END_NAMESPACE
