// The text report of probe regress: the levels, then one line per event with what a user
// needs to act on it (the runs on each side, the change in percent and in noise standard
// deviations, the levels' means, the p-value, and the git bisect command when the labels name
// revisions), then outliers, failed runs and notes. Standalone header: plain `inline`.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>

#include <probe/util/config.hpp>
#include <probe/util/text.hpp>
#include "bisect_hint.hpp"
#include "regress_report.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace detail {

inline std::string level_text(const segment_summary& s) {
  return format_value(s.mean) + " +- " + format_value(s.sd, 3) + " (" + level_runs_text(s) + ")";
}

inline std::string runs_text(size_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); }

// One line (without its number) for event i.
inline std::string event_line(const regress_report& r, size_t i) {
  const regress_event& e = r.events[i];
  auto label = [&](size_t run) { return ::probe::detail::printable(r.runs[run].label); };
  std::string s = event_title(e) + " " + format_percent(e.rel_change) + " (" + format_sigmas(e.sigmas) + "): ";
  s += label(e.last_good) + " -> " + label(e.first_changed);
  if (e.kind == event_kind::transient && e.last_changed != e.first_changed) s += " .. " + label(e.last_changed);
  if (e.failed_between) s += " (" + std::to_string(e.failed_between) + " failed between)";
  if (e.outliers_between)
    s += " (" + std::to_string(e.outliers_between) + (e.outliers_between == 1 ? " outlier" : " outliers") + " between)";
  if (e.kind == event_kind::transient) {
    s += " for " + runs_text(e.runs_away) + ", back at " + label(e.back) + "; " + level_text(e.before) + " -> " +
         format_value(e.after.mean) + " -> " + level_text(e.returned);
  } else {
    s += "; " + level_text(e.before) + " -> " + level_text(e.after);
  }
  s += ", p " + std::string(e.p_value <= 0 ? "" : "= ") + format_p(e.p_value);
  if (e.returned_by != no_event)
    s += "; back at " + label(r.events[e.returned_by].first_changed) + " after " + runs_text(e.runs_away) +
         " (event " + std::to_string(e.returned_by + 1) + ")";
  if (e.returns != no_event)
    s += "; the return of event " + std::to_string(e.returns + 1) + " after " + runs_text(e.runs_away);
  const std::string bisect = bisect_command(r.runs[e.first_changed].label, r.runs[e.last_good].label);
  if (!bisect.empty()) s += "; bisect: " + bisect;
  return s;
}

}  // namespace detail

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
    out += noise_text(r) + "; a change needs ";
    std::snprintf(buf, sizeof buf, "p <= %g and at least %g%% (--max-pvalue, --min-change)", r.options.max_pvalue,
                  100 * r.options.min_change);
    out += buf;
    if (r.options.min_points == 0)
      std::snprintf(buf, sizeof buf, "; a level of 1-2 runs, %g sd from the levels around it (--min-points)",
                    r.options.short_level_sigmas);
    else
      std::snprintf(buf, sizeof buf, "; levels of %zu runs (--min-points)", r.seg.min_points);
    out += buf;
    std::snprintf(buf, sizeof buf, "; back within %zu runs: transient (--max-transient-runs)\n", r.max_transient_runs);
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
      std::snprintf(buf, sizeof buf, "  %-5zu  %-*s  %-*s  %6zu  %12s  %10s", i + 1, lw, label(r.first_run(s)).c_str(),
                    lw, label(r.last_run(s)).c_str(), s.count(), format_value(s.mean).c_str(),
                    format_value(s.sd, 3).c_str());
      out += buf;
      if (s.drifting) out += "  drifts " + format_percent(s.drift);
      if (s.outliers) out += "  (" + std::to_string(s.outliers) + (s.outliers == 1 ? " outlier" : " outliers") + " left out)";
      out += "\n";
    }
  }

  out += "\nevents";
  if (r.events.empty()) out += ": none";
  out += "\n";
  for (size_t i = 0; i < r.events.size(); ++i) out += "  " + std::to_string(i + 1) + ". " + detail::event_line(r, i) + "\n";

  if (!r.outliers.empty()) {
    std::snprintf(buf, sizeof buf, "\noutliers (%zu): single runs far off their level, left out of it\n",
                  r.outliers.size());
    out += buf;
    for (const outlier_run& o : r.outliers) {
      std::snprintf(buf, sizeof buf, "  %-*s  %s  %s (%s) against %s\n", lw, label(o.run).c_str(),
                    format_value(o.value).c_str(), format_percent(o.rel_change).c_str(), format_sigmas(o.sigmas).c_str(),
                    format_value(o.level).c_str());
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
  std::snprintf(buf, sizeof buf,
                "\nresult: %zu regression%s, %zu improvement%s, %zu transient%s, %zu outlier%s, %zu failed run%s\n",
                r.regressions, r.regressions == 1 ? "" : "s", r.improvements, r.improvements == 1 ? "" : "s",
                r.transients, r.transients == 1 ? "" : "s", r.outliers.size(), r.outliers.size() == 1 ? "" : "s",
                r.failed, r.failed == 1 ? "" : "s");
  out += buf;
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
