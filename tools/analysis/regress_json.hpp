// The JSON report of probe regress: every run, level, event (with the links between a change
// and its later return, and the git bisect command when the labels name revisions), outlier,
// failed run and note, as docs/cli-regress.md lists them. Standalone header: plain `inline`.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include <probe/util/config.hpp>
#include "bisect_hint.hpp"
#include "json_text.hpp"
#include "regress_report.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

inline std::string regress_json(const regress_report& r) {
  json_text j;
  auto level = [&](const segment_summary& s) {
    j.begin_object();
    j.member("first_run", r.runs[r.first_run(s)].label).member("last_run", r.runs[r.last_run(s)].label);
    j.member("first_index", r.first_run(s)).member("last_index", r.last_run(s));
    j.member("points", s.count()).member("outliers", s.outliers);
    j.member("mean", s.mean).member("std", s.sd).member("min", s.min).member("max", s.max);
    j.member("drifting", s.drifting);
    if (s.drifting) j.member("drift_percent", 100 * s.drift).member("line_start", s.line_start).member("line_end", s.line_end);
    j.end_object();
  };
  j.begin_object();
  j.member("metric", r.metric).member("higher_is_better", r.direction.higher_is_better);
  j.member("direction_reason", r.direction.reason);
  j.key("options").begin_object();
  j.member("max_pvalue", r.options.max_pvalue).member("min_change", r.options.min_change);
  j.member("min_points", r.options.min_points).member("short_level_sigmas", r.options.short_level_sigmas);
  j.member("outlier_sigmas", r.options.outlier_sigmas).member("max_transient_runs", r.max_transient_runs);
  j.member("window", r.options.window).member("scale", value_scale_name(r.options.scale));
  j.end_object();
  // The noise in the metric's units (on a log scale, that of a run at the median value) and
  // as a share of the value (on a linear scale, of the mean).
  std::vector<double> sorted = r.points;
  const double median = sorted.empty() ? 0 : median_in_place(sorted);
  const double mean = moments_of(r.points).mean;
  j.member("scale", r.seg.log_scale ? "log" : "linear").member("noise", r.seg.noise_at(median));
  j.key("relative_noise");
  if (r.seg.log_scale)
    j.value(r.seg.noise);
  else if (mean != 0)
    j.value(r.seg.noise / std::fabs(mean));
  else
    j.null();
  j.member("conclusive", r.seg.enough_points);
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
    // kind is what the event counts as (a recovery is an improvement); title the text's name
    j.member("kind", event_kind_name(e.kind)).member("title", event_title(e)).member("worse", e.worse);
    j.member("from_run", r.runs[e.last_good].label).member("to_run", r.runs[e.first_changed].label);
    j.member("from_index", e.last_good).member("to_index", e.first_changed);
    j.member("failed_between", e.failed_between).member("outliers_between", e.outliers_between);
    j.member("percent_change", 100 * e.rel_change).member("sigmas", e.sigmas).member("p_value", e.p_value);
    j.member("runs_away", e.runs_away);
    // events are numbered from 1, as in the text report
    j.key("returned_by");
    if (e.returned_by == no_event)
      j.null();
    else
      j.value(e.returned_by + 1);
    j.key("returns");
    if (e.returns == no_event)
      j.null();
    else
      j.value(e.returns + 1);
    const std::string bisect = bisect_command(r.runs[e.first_changed].label, r.runs[e.last_good].label);
    j.key("bisect");
    if (bisect.empty())
      j.null();
    else
      j.value(bisect);
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
  j.key("outliers").begin_array();
  for (const outlier_run& o : r.outliers)
    j.begin_object().member("label", r.runs[o.run].label).member("index", o.run).member("value", o.value)
        .member("level", o.level).member("percent", 100 * o.rel_change).member("sigmas", o.sigmas).end_object();
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
  j.member("transients", r.transients).member("outliers", r.outliers.size()).member("failed_runs", r.failed);
  j.end_object();
  j.member("exit_code", r.exit_code());
  j.end_object();
  return j.str() + "\n";
}

}  // namespace analysis
PROBE_END_NAMESPACE
