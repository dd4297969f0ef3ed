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
#include "option_reader.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const char k_regress_usage[] =
    "usage: probe regress [options] INPUT...\n"
    "Finds every change point in a series of benchmark results: regressions, improvements,\n"
    "transient dips that came back, single wild runs (outliers), and the runs that failed.\n"
    "\n"
    "INPUT: result files (one run each, labelled by file name), folders (every regular file in\n"
    "them), CSV files (label,value rows) and JSON-lines files (one object per run).\n"
    "\n"
    "  --metric NAME       the value is on lines 'NAME: <number>' (case-insensitive, colour codes\n"
    "                      ignored); also the CSV column or JSON key\n"
    "  --pattern REGEX     the value is the one capture group of REGEX (ECMAScript syntax)\n"
    "  --label-re REGEX    label = first capture group (or the match) of REGEX in each name;\n"
    "                      inputs whose name does not match are skipped\n"
    "  --order natural|mtime|given   run order (default natural: run-9 before run-10)\n"
    "  --format auto|runs|csv|jsonl  how files are read (default: .csv, .jsonl/.ndjson by name)\n"
    "  --higher-is-better | --lower-is-better   (default: guessed from the metric's name)\n"
    "  --max-pvalue P      a change needs p <= P (default 0.001)\n"
    "  --min-change F      ... and a relative change of at least F (default 0.01 = 1%)\n"
    "  --min-points N      fewest runs in every level (default: 3, and 1 or 2 between two\n"
    "                      levels when the shift from both is at least 6 noise sd)\n"
    "  --max-transient-runs N  a change back within N runs is one transient (default 5);\n"
    "                      a longer one is a change and its return, both reported\n"
    "  --window N          local search window in runs (default 50)\n"
    "  --json FILE         write the report as JSON ('-' = stdout, instead of the text)\n"
    "  --svg FILE          write a plot of the series, levels, events and failed runs\n"
    "  --html FILE         write a self-contained page with the plot and the tables\n"
    "  --quiet             no text report\n"
    "\n"
    "exit: 0 no regression, 1 regression found, 2 bad input\n";

int bad_input(const std::string& message) {
  fprintf(stderr, "probe regress: %s\n", message.c_str());
  return 2;
}

}  // namespace

int run_regress(int argc, char** argv) {
  namespace pa = probe::analysis;
  pa::series_input_options input;
  pa::regress_settings settings;
  std::vector<std::string> inputs;
  std::string json_path, svg_path, html_path, pattern, metric;
  bool quiet = false;

  option_reader args(argc, argv);
  std::string value, error;
  while (args.next()) {
    if (!args.is_option()) {
      inputs.push_back(args.word());
      continue;
    }
    if (args.is("--help") || args.is("-h")) {
      fputs(k_regress_usage, stdout);
      return 0;
    }
    if (args.flag("--higher-is-better")) settings.direction = 1;
    else if (args.flag("--lower-is-better")) settings.direction = -1;
    else if (args.flag("--quiet")) quiet = true;
    else if (args.option("--metric", &metric, &error)) {}
    else if (args.option("--pattern", &pattern, &error)) {}
    else if (args.option("--label-re", &input.label_re, &error)) {}
    else if (args.option("--json", &json_path, &error)) {}
    else if (args.option("--svg", &svg_path, &error)) {}
    else if (args.option("--html", &html_path, &error)) {}
    else if (args.option("--order", &value, &error)) {
      if (value == "natural") input.order = pa::run_order::natural;
      else if (value == "mtime") input.order = pa::run_order::mtime;
      else if (value == "given") input.order = pa::run_order::given;
      else error = "--order takes natural, mtime or given, not '" + value + "'";
    } else if (args.option("--format", &value, &error)) {
      if (value == "auto") input.format = pa::input_format::automatic;
      else if (value == "runs") input.format = pa::input_format::runs;
      else if (value == "csv") input.format = pa::input_format::csv;
      else if (value == "jsonl") input.format = pa::input_format::jsonl;
      else error = "--format takes auto, runs, csv or jsonl, not '" + value + "'";
    } else if (args.number("--max-pvalue", &settings.changepoints.max_pvalue, 0, 1, &error)) {}
    else if (args.number("--min-change", &settings.changepoints.min_change, 0, 1e9, &error)) {}
    else if (args.count("--min-points", &settings.changepoints.min_points, 2, 10000, &error)) {}
    else if (args.count("--window", &settings.changepoints.window, 4, 1000, &error)) {}
    else if (args.count("--max-transient-runs", &settings.max_transient_runs, 0, 1000000, &error)) {}
    else error = "unknown option '" + args.word() + "' (probe regress --help lists them)";
    if (!error.empty()) return bad_input(error);
  }
  for (const std::string& w : args.rest()) inputs.push_back(w);  // after `--`: inputs even if they start with -

  input.metric.set_name(metric);
  if (!pattern.empty() && !input.metric.set_pattern(pattern, &error)) return bad_input(error);
  settings.metric = !metric.empty() ? metric : pattern;

  pa::series_load loaded = pa::load_series(inputs, input);
  if (!loaded.error.empty()) return bad_input(loaded.error);
  for (const std::string& note : loaded.notes) fprintf(stderr, "probe regress: %s\n", note.c_str());

  const pa::regress_report report = pa::analyze_regressions(std::move(loaded.runs), settings);
  const bool json_to_stdout = json_path == "-";
  if (!quiet && !json_to_stdout) fputs(pa::regress_text(report).c_str(), stdout);
  if (json_to_stdout) fputs(pa::regress_json(report).c_str(), stdout);
  fflush(stdout);

  struct output {
    const std::string& path;
    std::string (*render)(const pa::regress_report&);
  };
  const output outputs[] = {{json_path, pa::regress_json}, {svg_path, pa::regress_svg}, {html_path, pa::regress_html}};
  for (const output& o : outputs) {
    if (o.path.empty() || (o.path == "-" && o.render == pa::regress_json)) continue;
    if (!write_file_atomically(o.path, o.render(report), &error)) return bad_input(error);
  }

  if (report.points.empty()) {
    const pa::run_record& first = report.runs.front();
    return bad_input("no run has a value for " + input.metric.describe() + " (check --metric / --pattern); " +
                     first.label + ": " + first.error);
  }
  return report.exit_code();
}

}  // namespace probe_cli
