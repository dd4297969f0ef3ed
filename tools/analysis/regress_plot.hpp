// Pictures of a regression report: an SVG plot of the series (points, levels with their
// spread, one mark per event, outliers ringed, failed runs as crosses on the axis), and a self-contained
// HTML page holding the plot and the tables. No scripts, no fonts or styles from the
// network. Every mark carries a <title> (a tooltip in browsers). Standalone header.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <probe/util/config.hpp>
#include "bisect_hint.hpp"
#include "regress_report.hpp"
#include "xml_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace detail {

inline std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// About `count` round tick values covering [lo, hi].
inline std::vector<double> nice_ticks(double lo, double hi, int count) {
  std::vector<double> ticks;
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / count;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * mag >= raw) {
      step = f * mag;
      break;
    }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

}  // namespace detail

inline std::string regress_svg(const regress_report& r) {
  const double W = 960, H = 440, left = 78, right = 24, top = 40, bottom = 110;
  const double pw = W - left - right, ph = H - top - bottom;
  const size_t runs = std::max<size_t>(1, r.runs.size());
  const double slot = pw / static_cast<double>(runs);
  auto X = [&](size_t run) { return left + (static_cast<double>(run) + 0.5) * slot; };

  double lo = 0, hi = 1;
  if (!r.points.empty()) {
    lo = hi = r.points[0];
    for (double v : r.points) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    for (const auto& s : r.seg.levels) {
      lo = std::min(lo, s.mean - s.sd);
      hi = std::max(hi, s.mean + s.sd);
    }
  }
  if (!(hi > lo)) {
    const double pad = lo != 0 ? std::fabs(lo) * 0.05 : 1;
    lo -= pad;
    hi += pad;
  }
  const double margin = (hi - lo) * 0.08;
  lo -= margin;
  hi += margin;
  auto Y = [&](double v) { return top + (hi - v) / (hi - lo) * ph; };
  auto label = [&](size_t run) { return xml_escape(r.runs[run].label); };

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"440\" viewBox=\"0 0 960 440\" "
       "font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<title>" + xml_escape("probe regress: " + (r.metric.empty() ? std::string("metric") : r.metric)) + "</title>\n";
  s += "<style>.point{fill:#1f5fa8}.level{stroke:#333;stroke-width:2}.spread{fill:#888;fill-opacity:.15}"
       ".regression{fill:#d62728;fill-opacity:.25;stroke:#d62728}.improvement{fill:#2ca02c;fill-opacity:.25;"
       "stroke:#2ca02c}.transient{fill:#ff9f1c;fill-opacity:.25;stroke:#ff9f1c}.failed{stroke:#d62728;"
       "stroke-width:2}.outlier{fill:none;stroke:#d62728;stroke-width:1.5}.axis{stroke:#444}.grid{stroke:#ddd}</style>\n";
  s += "<rect x=\"0\" y=\"0\" width=\"960\" height=\"440\" fill=\"white\"/>\n";
  // grid and y axis
  for (double t : detail::nice_ticks(lo, hi, 6)) {
    const std::string y = detail::num(Y(t));
    s += "<line class=\"grid\" x1=\"" + detail::num(left) + "\" x2=\"" + detail::num(left + pw) + "\" y1=\"" + y +
         "\" y2=\"" + y + "\"/>";
    s += "<text x=\"" + detail::num(left - 6) + "\" y=\"" + y + "\" text-anchor=\"end\" dy=\"4\">" +
         xml_escape(format_value(t)) + "</text>\n";
  }
  s += "<line class=\"axis\" x1=\"" + detail::num(left) + "\" x2=\"" + detail::num(left) + "\" y1=\"" +
       detail::num(top) + "\" y2=\"" + detail::num(top + ph) + "\"/>\n";
  s += "<line class=\"axis\" x1=\"" + detail::num(left) + "\" x2=\"" + detail::num(left + pw) + "\" y1=\"" +
       detail::num(top + ph) + "\" y2=\"" + detail::num(top + ph) + "\"/>\n";
  s += "<text x=\"" + detail::num(left) + "\" y=\"18\" font-size=\"13\">" +
       xml_escape((r.metric.empty() ? std::string("metric") : r.metric) + " (" + r.direction.reason + ")") +
       "</text>\n";

  // events under the data
  for (size_t i = 0; i < r.events.size(); ++i) {
    const regress_event& e = r.events[i];
    double x0, x1;
    if (e.kind == event_kind::transient) {
      x0 = X(e.first_changed) - slot / 2;
      x1 = X(e.last_changed) + slot / 2;
    } else {
      x0 = X(e.last_good);
      x1 = X(e.first_changed);
    }
    if (x1 - x0 < 3) {
      const double c = (x0 + x1) / 2;
      x0 = c - 1.5;
      x1 = c + 1.5;
    }
    const std::string kind = event_kind_name(e.kind);
    const std::string tip = std::to_string(i + 1) + ". " + event_title(e) + " " + format_percent(e.rel_change) + ": " +
                            r.runs[e.last_good].label + " -> " + r.runs[e.first_changed].label + ", p = " +
                            format_p(e.p_value);
    s += "<g class=\"event " + kind + "\" data-event=\"" + std::to_string(i + 1) + "\"><title>" + xml_escape(tip) +
         "</title><rect class=\"" + kind + "\" x=\"" + detail::num(x0) + "\" y=\"" + detail::num(top) +
         "\" width=\"" + detail::num(x1 - x0) + "\" height=\"" + detail::num(ph) + "\"/><text x=\"" +
         detail::num((x0 + x1) / 2) + "\" y=\"" + detail::num(top - 4) + "\" text-anchor=\"middle\">" +
         std::to_string(i + 1) + "</text></g>\n";
  }
  // levels: mean line and one-sigma band
  for (size_t i = 0; i < r.seg.levels.size(); ++i) {
    const segment_summary& l = r.seg.levels[i];
    const double x0 = X(r.first_run(l)) - slot / 2, x1 = X(r.last_run(l)) + slot / 2;
    const std::string tip = "level " + std::to_string(i + 1) + ": " + format_value(l.mean) + " +- " +
                            format_value(l.sd, 3) + " (" + std::to_string(l.count()) + " runs, " +
                            r.runs[r.first_run(l)].label + " .. " + r.runs[r.last_run(l)].label + ")";
    s += "<g class=\"level-group\"><title>" + xml_escape(tip) + "</title><rect class=\"spread\" x=\"" +
         detail::num(x0) + "\" y=\"" + detail::num(Y(l.mean + l.sd)) + "\" width=\"" + detail::num(x1 - x0) +
         "\" height=\"" + detail::num(std::max(0.0, Y(l.mean - l.sd) - Y(l.mean + l.sd))) + "\"/><line class=\"level\" x1=\"" +
         detail::num(x0) + "\" x2=\"" + detail::num(x1) + "\" y1=\"" + detail::num(Y(l.mean)) + "\" y2=\"" +
         detail::num(Y(l.mean)) + "\"/></g>\n";
  }
  // points and failed runs
  const double radius = std::max(1.2, std::min(3.5, slot / 3));
  for (size_t p = 0; p < r.points.size(); ++p) {
    const size_t run = r.point_run[p];
    s += "<circle class=\"point\" cx=\"" + detail::num(X(run)) + "\" cy=\"" + detail::num(Y(r.points[p])) +
         "\" r=\"" + detail::num(radius) + "\"><title>" + label(run) + ": " + xml_escape(format_value(r.points[p], 6)) +
         (r.runs[run].values.size() > 1 ? " (mean of " + std::to_string(r.runs[run].values.size()) + ")" : "") +
         "</title></circle>\n";
  }
  for (const outlier_run& o : r.outliers)
    s += "<circle class=\"outlier\" cx=\"" + detail::num(X(o.run)) + "\" cy=\"" + detail::num(Y(o.value)) + "\" r=\"" +
         detail::num(radius + 3) + "\"><title>" + label(o.run) + ": outlier, " + xml_escape(format_percent(o.rel_change)) +
         " (" + xml_escape(format_sigmas(o.sigmas)) + ") against its level, left out of it</title></circle>\n";
  for (size_t run = 0; run < r.runs.size(); ++run) {
    if (!r.runs[run].failed()) continue;
    const double x = X(run), y = top + ph - 8, d = 4;
    s += "<g class=\"failed\"><title>" + label(run) + " failed: " + xml_escape(r.runs[run].error) +
         "</title><path class=\"failed\" d=\"M" + detail::num(x - d) + " " + detail::num(y - d) + "L" +
         detail::num(x + d) + " " + detail::num(y + d) + "M" + detail::num(x - d) + " " + detail::num(y + d) + "L" +
         detail::num(x + d) + " " + detail::num(y - d) + "\"/></g>\n";
  }
  // x labels: at most 24, evenly spread, always the first and the last
  const size_t every = std::max<size_t>(1, (r.runs.size() + 23) / 24);
  for (size_t run = 0; run < r.runs.size(); ++run) {
    if (run % every != 0 && run + 1 != r.runs.size()) continue;
    if (run + 1 == r.runs.size() && run % every != 0 && run % every <= every / 2) continue;
    const std::string x = detail::num(X(run)), y = detail::num(top + ph + 12);
    std::string text = r.runs[run].label;
    if (text.size() > 28) text = "..." + text.substr(text.size() - 25);
    s += "<text x=\"" + x + "\" y=\"" + y + "\" text-anchor=\"end\" transform=\"rotate(-40 " + x + " " + y + ")\">" +
         xml_escape(text) + "</text>\n";
  }
  // legend
  const char* legend[][2] = {{"regression", "regression"}, {"improvement", "improvement"}, {"transient", "transient"}};
  double lx = W - right - 330;
  for (const auto& item : legend) {
    s += "<rect class=\"" + std::string(item[0]) + "\" x=\"" + detail::num(lx) + "\" y=\"8\" width=\"12\" height=\"12\"/>"
         "<text x=\"" + detail::num(lx + 16) + "\" y=\"18\">" + item[1] + "</text>";
    lx += 90;
  }
  s += "<path class=\"failed\" d=\"M" + detail::num(lx) + " 9L" + detail::num(lx + 10) + " 19M" + detail::num(lx) +
       " 19L" + detail::num(lx + 10) + " 9\"/><text x=\"" + detail::num(lx + 16) + "\" y=\"18\">failed</text>\n";
  s += "</svg>\n";
  return s;
}

inline std::string regress_html(const regress_report& r) {
  const std::string metric = r.metric.empty() ? std::string("metric") : r.metric;
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
       xml_escape("probe regress: " + metric) + "</title>\n";
  h += "<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 20px}"
       "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}td.n{text-align:right}"
       ".regression{color:#b01c1c}.improvement{color:#1d7a1d}.transient{color:#b86e00}</style>\n</head>\n<body>\n";
  h += "<h1>" + xml_escape("probe regress: " + metric) + "</h1>\n";
  h += "<p>" + std::to_string(r.runs.size()) + " runs, " + std::to_string(r.points.size()) + " with a value, " +
       std::to_string(r.failed) + " failed; " + xml_escape(r.direction.reason) + ". " + std::to_string(r.regressions) +
       " regression(s), " + std::to_string(r.improvements) + " improvement(s), " + std::to_string(r.transients) +
       " transient(s).</p>\n";
  if (!r.points.empty()) h += "<p>" + xml_escape(noise_text(r)) + ".</p>\n";
  h += regress_svg(r);
  auto label = [&](size_t run) { return xml_escape(r.runs[run].label); };

  h += "<h2>Events</h2>\n";
  if (r.events.empty()) h += "<p>No change.</p>\n";
  else {
    h += "<table>\n<tr><th>#</th><th>event</th><th>change</th><th>last good</th><th>first changed</th>"
         "<th>sd</th><th>before</th><th>after</th><th>p</th><th>span</th></tr>\n";
    for (size_t i = 0; i < r.events.size(); ++i) {
      const regress_event& e = r.events[i];
      const std::string kind = event_kind_name(e.kind);
      h += "<tr class=\"event-row " + kind + "\"><td class=\"n\">" + std::to_string(i + 1) + "</td><td>" +
           xml_escape(event_title(e)) + "</td><td class=\"n\">" + format_percent(e.rel_change) + "</td><td>" +
           label(e.last_good) + "</td><td>" + label(e.first_changed) + "</td><td class=\"n\">" +
           format_sigmas(e.sigmas) + "</td><td>" + format_value(e.before.mean) + " &#177; " +
           format_value(e.before.sd, 3) + " (" + level_runs_text(e.before) + ")</td><td>" + format_value(e.after.mean) +
           " &#177; " + format_value(e.after.sd, 3) + " (" + level_runs_text(e.after) + ")</td><td class=\"n\">" +
           format_p(e.p_value) + "</td><td>" +
           (e.kind == event_kind::transient
                ? label(e.first_changed) + " .. " + label(e.last_changed) + ", back at " + label(e.back)
                : e.returned_by != no_event
                      ? "back at " + label(r.events[e.returned_by].first_changed) + " after " +
                            std::to_string(e.runs_away) + " runs (event " + std::to_string(e.returned_by + 1) + ")"
                      : e.returns != no_event ? "return of event " + std::to_string(e.returns + 1) + " after " +
                                                    std::to_string(e.runs_away) + " runs"
                                              : std::string()) +
           "</td></tr>\n";
    }
    h += "</table>\n";
    // The commands to find each change's commit, where the labels name revisions.
    std::string commands;
    for (size_t i = 0; i < r.events.size(); ++i) {
      const regress_event& e = r.events[i];
      const std::string cmd = bisect_command(r.runs[e.first_changed].label, r.runs[e.last_good].label);
      if (!cmd.empty())
        commands += "<li>event " + std::to_string(i + 1) + ": <code>" + xml_escape(cmd) + "</code></li>\n";
    }
    if (!commands.empty()) h += "<p>To find the commit of a change:</p>\n<ul class=\"bisect\">\n" + commands + "</ul>\n";
  }
  h += "<h2>Levels</h2>\n<table>\n<tr><th>#</th><th>first run</th><th>last run</th><th>runs</th><th>mean</th>"
       "<th>std</th></tr>\n";
  for (size_t i = 0; i < r.seg.levels.size(); ++i) {
    const segment_summary& l = r.seg.levels[i];
    h += "<tr><td class=\"n\">" + std::to_string(i + 1) + "</td><td>" + label(r.first_run(l)) + "</td><td>" +
         label(r.last_run(l)) + "</td><td class=\"n\">" + std::to_string(l.count()) + "</td><td class=\"n\">" +
         format_value(l.mean) + "</td><td class=\"n\">" + format_value(l.sd, 3) + "</td></tr>\n";
  }
  h += "</table>\n";
  if (!r.outliers.empty()) {
    h += "<h2>Outliers</h2>\n<p>Single runs far off their level, left out of it.</p>\n<table>\n<tr><th>run</th>"
         "<th>value</th><th>against its level</th><th>level</th></tr>\n";
    for (const outlier_run& o : r.outliers)
      h += "<tr><td>" + label(o.run) + "</td><td class=\"n\">" + format_value(o.value) + "</td><td class=\"n\">" +
           format_percent(o.rel_change) + " (" + format_sigmas(o.sigmas) + ")</td><td class=\"n\">" +
           format_value(o.level) + "</td></tr>\n";
    h += "</table>\n";
  }
  if (r.failed) {
    h += "<h2>Failed runs</h2>\n<table>\n<tr><th>run</th><th>error</th></tr>\n";
    for (size_t run = 0; run < r.runs.size(); ++run)
      if (r.runs[run].failed())
        h += "<tr><td>" + label(run) + "</td><td>" + xml_escape(r.runs[run].error) + "</td></tr>\n";
    h += "</table>\n";
  }
  if (!r.notes.empty()) {
    h += "<h2>Notes</h2>\n<ul>\n";
    for (const std::string& n : r.notes) h += "<li>" + xml_escape(n) + "</li>\n";
    h += "</ul>\n";
  }
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace analysis
PROBE_END_NAMESPACE
