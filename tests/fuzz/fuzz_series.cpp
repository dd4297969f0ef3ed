// Series inputs of probe regress and bisect-run: a run's output read with --metric NAME or
// --pattern REGEX, CSV tables and JSON lines. The first byte picks the reader; for --metric
// and --pattern the first line is the name or the pattern, the rest the output. Then what
// the reports do with the runs: labels in natural order, error lines made printable.
#include <probe/probe.hpp>

#include <string>
#include <vector>

#include <probe/util/text.hpp>

#include "analysis/series_parse.hpp"
#include "analysis/series_tables.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pa = probe::analysis;
  if (size == 0) return 0;
  const int mode = data[0] % 4;
  std::string_view rest;
  const std::string first(probe_fuzz::split_first(probe_fuzz::as_text(data + 1, size - 1), '\n', &rest));
  const std::string body(rest);
  std::vector<std::string> labels;
  if (mode <= 1) {
    pa::metric_matcher m;
    std::string error;
    if (mode == 0) m.set_name(first);
    else if (!m.set_pattern(first, &error)) {
      if (error.empty() || error.find('\n') != std::string::npos) __builtin_trap();  // one line saying why
      return 0;
    }
    const pa::run_values v = pa::parse_run_output(body, m);
    if (v.values.empty() && v.error.empty()) __builtin_trap();  // a run without a value says why
    for (double x : v.values)
      if (!(x == x) || x - x != 0) __builtin_trap();  // values are finite
    labels.push_back(v.error + v.long_line_note() + m.describe());
  } else {
    std::vector<std::string> notes;
    const std::string metric = first.size() < 64 ? first : std::string();
    const std::vector<pa::table_row> rows = mode == 2 ? pa::read_csv_rows(body, metric, &notes)
                                                      : pa::read_jsonl_rows(body, metric, &notes);
    for (const pa::table_row& r : rows) {
      if (r.values.empty() && r.error.empty()) __builtin_trap();
      labels.push_back(r.label);
    }
  }
  for (size_t i = 1; i < labels.size(); ++i) {
    const int c = pa::natural_compare(labels[i - 1], labels[i]);
    if (c != -pa::natural_compare(labels[i], labels[i - 1])) __builtin_trap();  // an order
    volatile size_t sink = probe::detail::printable(labels[i]).size();
    (void)sink;
  }
  return 0;
}
