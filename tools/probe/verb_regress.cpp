// probe regress: every change point in a series of benchmark results.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "analysis/regress_plot.hpp"
#include "analysis/regress_json.hpp"
#include "analysis/regress_report.hpp"
#include "analysis/regress_text.hpp"
#include "analysis/series_input.hpp"

#include "file_output.hpp"
#include "options.hpp"
#include "terminal_text.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const option_spec k_options[] = {
    text("--metric", "NAME",
         "the value is on lines 'NAME: <number>' (case-insensitive, colour codes ignored); also the CSV column or "
         "JSON key"),
    text("--pattern", "REGEX",
         "the value is the one capture group of REGEX (docs/regex.md); lines over 1 MiB are skipped"),
    text("--label-re", "REGEX",
         "label = first capture group (or the match) of REGEX in each name; inputs whose name does not match are "
         "skipped"),
    text("--order", "ORDER", "run order; natural: run-9 before run-10, mtime: by file time, given: as listed")
        .one_of("natural|mtime|given")
        .by_default("natural"),
    text("--format", "FORMAT", "how files are read; auto: .csv, .jsonl and .ndjson by name, other files as runs")
        .one_of("auto|runs|csv|jsonl")
        .by_default("auto"),
    flag("--higher-is-better", "a higher value is better").by_default("guessed from the metric's name"),
    flag("--lower-is-better", "a lower value is better").by_default("guessed from the metric's name"),
    number("--max-pvalue", "P", 0, 1, "a change needs p <= P").by_default("0.001"),
    number("--min-change", "F", 0, 1e9, "... and a relative change of at least F: 0.01 = 1%, 0 = any")
        .by_default("0.01"),
    integer("--min-points", "N", 2, 10000,
            "fewest runs in every level; by default 3, and 1 or 2 between two levels when the shift from both is "
            "at least 6 noise sd")
        .by_default("by the evidence"),
    integer("--max-transient-runs", "N", 0, 1000000,
            "a change back within N runs is one transient; a longer one is a change and its return, both reported")
        .by_default("5"),
    integer("--window", "N", 4, 1000, "local search window in runs").by_default("50"),
    text("--scale", "SCALE",
         "what the search runs on; auto: the logs of the values (noise in proportion to the value) when all are "
         "above zero and they move by more than a quantum, else the values")
        .one_of("auto|log|linear")
        .by_default("auto"),
    text("--json", "FILE", "write the report as JSON ('-' = stdout, instead of the text)"),
    text("--svg", "FILE", "write a plot of the series, levels, events and failed runs ('-' = stdout, instead of the text)"),
    text("--html", "FILE", "write a self-contained page with the plot and the tables ('-' = stdout, instead of the text)"),
    flag("--quiet", "no text report"),
};

int bad_input(const std::string& message) {
  print_error("regress", message);
  return 2;
}

}  // namespace

const command_spec regress_command = {
    "regress",
    "find every change point in a series of benchmark results",
    "probe regress [options] INPUT...",
    "Finds every change point in a series of benchmark results: regressions, improvements,\n"
    "transient dips that came back, single wild runs (outliers), and the runs that failed.\n"
    "\n"
    "INPUT: result files (one run each, labelled by file name), folders (every regular file in\n"
    "them), CSV files (label,value rows) and JSON-lines files (one object per run).\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0 no regression, 1 regression found, 2 bad input",
    2,
    "",
    operand_kind::words,
};

int run_regress(int argc, char** argv) {
  namespace pa = probe::analysis;
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(regress_command, argc, argv, &args, &exit_code)) return exit_code;

  pa::series_input_options input;
  pa::regress_settings settings;
  std::string json_path, svg_path, html_path, pattern, metric, value, error;
  const std::vector<std::string>& inputs = args.operands();
  const bool quiet = args.given("--quiet");
  if (const char* direction = args.only_one_of({"--higher-is-better", "--lower-is-better"}, &error))
    settings.direction = strcmp(direction, "--higher-is-better") == 0 ? 1 : -1;
  if (!error.empty()) return usage_error(regress_command, error);
  args.only_one_of({"--metric", "--pattern"}, &error);
  if (!error.empty()) return usage_error(regress_command, error);
  args.get("--metric", &metric);
  args.get("--pattern", &pattern);
  args.get("--label-re", &input.label_re);
  args.get("--json", &json_path);
  args.get("--svg", &svg_path);
  args.get("--html", &html_path);
  if ((json_path == "-") + (svg_path == "-") + (html_path == "-") > 1)
    return usage_error(regress_command, "only one of --json, --svg and --html can be - (stdout): give the others a file");
  if (args.get("--order", &value))  // the table took only these
    input.order = value == "mtime"   ? pa::run_order::mtime
                  : value == "given" ? pa::run_order::given
                                     : pa::run_order::natural;
  if (args.get("--format", &value))
    input.format = value == "runs"    ? pa::input_format::runs
                   : value == "csv"   ? pa::input_format::csv
                   : value == "jsonl" ? pa::input_format::jsonl
                                      : pa::input_format::automatic;
  args.get("--max-pvalue", &settings.changepoints.max_pvalue);
  args.get("--min-change", &settings.changepoints.min_change);
  args.get("--min-points", &settings.changepoints.min_points);
  args.get("--window", &settings.changepoints.window);
  if (args.get("--scale", &value))  // the table took only these
    settings.changepoints.scale = value == "log"      ? pa::value_scale::log
                                  : value == "linear" ? pa::value_scale::linear
                                                      : pa::value_scale::automatic;
  args.get("--max-transient-runs", &settings.max_transient_runs);

  input.metric.set_name(metric);
  if (!pattern.empty() && !input.metric.set_pattern(pattern, &error)) return bad_input(error);
  settings.metric = !metric.empty() ? metric : pattern;
  settings.direction_name = !metric.empty() ? metric : pa::pattern_words(pattern);

  pa::series_load loaded = pa::load_series(inputs, input);
  // The notes first: they may say why nothing was left (every input skipped by --label-re).
  for (const std::string& note : loaded.notes) print_error("regress", note);
  if (!loaded.error.empty()) return bad_input(loaded.error);

  const pa::regress_report report = pa::analyze_regressions(std::move(loaded.runs), settings);
  const bool json_to_stdout = json_path == "-";
  // A report asked for on stdout goes there alone.
  const bool report_to_stdout = json_to_stdout || svg_path == "-" || html_path == "-";
  if (!quiet && !report_to_stdout) fputs(terminal_lines(pa::regress_text(report)).c_str(), stdout);
  if (json_to_stdout) fputs(pa::regress_json(report).c_str(), stdout);
  fflush(stdout);

  struct output {
    const std::string& path;
    std::string (*render)(const pa::regress_report&);
  };
  const output outputs[] = {{json_path, pa::regress_json}, {svg_path, pa::regress_svg}, {html_path, pa::regress_html}};
  for (const output& o : outputs) {
    if (o.path.empty() || (o.path == "-" && o.render == pa::regress_json)) continue;
    if (!write_report_file(o.path, o.render(report), &error)) return bad_input(error);
  }

  if (report.points.empty()) {
    const pa::run_record& first = report.runs.front();
    return bad_input("no run has a value for " + input.metric.describe() + " (check --metric / --pattern); " +
                     first.label + ": " + first.error);
  }
  return report.exit_code();
}

}  // namespace probe_cli
