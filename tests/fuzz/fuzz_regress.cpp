// The change-point search and the regress report on any series: what the parsers hand over
// (finite values, failed runs) with any options the command line takes. The first six bytes
// are the options; then each 8 bytes a run: a non-finite double is a failed run. Checked: the
// levels cover the series in order, each change lies between its levels, outliers are points
// of the series, the log scale only for values above zero, the same input gives the same
// report, and the JSON report parses.
#include <probe/probe.hpp>

#include <string.h>

#include <cmath>
#include <string>
#include <vector>

#include <probe/formats/json.hpp>

#include "analysis/regress_json.hpp"
#include "analysis/regress_plot.hpp"
#include "analysis/regress_report.hpp"
#include "analysis/regress_text.hpp"
#include "fuzz_input.hpp"

namespace {

namespace pa = probe::analysis;

void check_segmentation(const pa::regress_report& r) {
  const pa::segmentation& s = r.seg;
  const size_t n = r.points.size();
  if (n == 0) {
    if (!s.levels.empty() || !s.changes.empty()) __builtin_trap();
    return;
  }
  if (s.levels.size() != s.changes.size() + 1) __builtin_trap();
  size_t at = 0;
  for (const pa::segment_summary& l : s.levels) {
    if (l.begin != at || l.end <= l.begin || l.end > n || l.outliers >= l.count()) __builtin_trap();
    at = l.end;
  }
  if (at != n) __builtin_trap();
  for (size_t i = 0; i < s.changes.size(); ++i) {
    const pa::change_point& c = s.changes[i];
    if (c.index != s.levels[i + 1].begin || c.last_before >= c.index || c.last_before < s.levels[i].begin) __builtin_trap();
    if (!(c.p_value >= 0 && c.p_value <= 1)) __builtin_trap();
  }
  for (size_t i = 0; i < s.outliers.size(); ++i)
    if (s.outliers[i] >= n || (i && s.outliers[i] <= s.outliers[i - 1])) __builtin_trap();
  if (s.log_scale)
    for (double v : r.points)
      if (!(v > 0)) __builtin_trap();
  if (s.tail.present && !(s.tail.begin < s.tail.end && s.tail.end <= n)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  pa::regress_settings settings;
  pa::changepoint_options& o = settings.changepoints;
  // within the ranges verb_regress.cpp accepts
  static const double pvalues[] = {0.001, 0, 1, 0.05, 1e-12, 0.5};
  static const double changes[] = {0.01, 0, 0.3, 1e-9, 1e9, 0.05};
  o.max_pvalue = pvalues[data[0] % 6];
  o.min_change = changes[data[1] % 6];
  o.min_points = data[2] % 4 == 0 ? 0 : 2 + data[2] % 9;
  o.window = 4 + data[3] % 60;
  o.scale = static_cast<pa::value_scale>(data[4] % 3);
  settings.max_transient_runs = data[5] % 8;
  settings.direction = data[5] / 8 % 3 - 1;
  settings.metric = "MLUPS";

  std::vector<pa::run_record> runs;
  for (size_t at = 6; at + 8 <= size && runs.size() < 400; at += 8) {
    double v;
    memcpy(&v, data + at, sizeof v);
    pa::run_record r;
    r.label = "run-" + std::to_string(runs.size());
    if (std::isfinite(v))
      r.values.push_back(v);
    else
      r.error = "failed";
    runs.push_back(r);
  }
  const pa::regress_report r = pa::analyze_regressions(runs, settings);
  check_segmentation(r);
  const std::string text = pa::regress_text(r);
  if (pa::regress_text(pa::analyze_regressions(runs, settings)) != text) __builtin_trap();  // deterministic
  const std::string json = pa::regress_json(r);
  probe::json::value parsed;
  if (!probe::json::parse(json, parsed)) __builtin_trap();
  volatile size_t sink = pa::regress_svg(r).size() + pa::regress_html(r).size();
  (void)sink;
  return 0;
}
