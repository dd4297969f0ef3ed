// probe compare: which op broke accuracy, and its root cause; or, with --nonfinite, the
// first op whose output holds NaN/Inf in one dump.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "analysis/compare_html.hpp"
#include "analysis/compare_json.hpp"
#include "analysis/compare_text.hpp"
#include "analysis/nonfinite.hpp"

#include "file_output.hpp"
#include "option_reader.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const char k_compare_usage[] =
    "usage: probe compare [options] A B\n"
    "       probe compare --nonfinite [--step N] [--json FILE] DIR\n"
    "Compares a run A with a reference B: two dump folders (manifest.jsonl; rank folders are\n"
    "paired by name), two folders of .npy files (paired by relative path) or two .npy files.\n"
    "Reports per-tensor errors in execution order, the first divergent op, and the root causes:\n"
    "ops whose output is out of tolerance while all their inputs match.\n"
    "\n"
    "An element fails when |a - b| > atol + rtol * |b| (b: the reference).\n"
    "  --atol X            absolute tolerance (default by the coarser dtype of each pair:\n"
    "                      float64 1e-8, float32 1e-5, float16 1e-2, bfloat16 5e-2, integers 0)\n"
    "  --rtol X            relative tolerance (default: float64 1e-7, float32 1e-5, float16 1e-2,\n"
    "                      bfloat16 5e-2, integers 0)\n"
    "  --tol 'RE=ATOL,RTOL'  tolerance for keys matching RE (partial match, repeatable, the last\n"
    "                      match wins; leave a number out to keep its default: 'softmax.*=,1e-3')\n"
    "  --check MODE        elementwise (default): every element must pass; max | mean |\n"
    "                      quantile:Q: that statistic of |a-b| against atol and of the relative\n"
    "                      error against rtol, failing only when both exceed\n"
    "  --equal-nan         NaN against NaN passes (default)   --no-equal-nan: it fails\n"
    "  --inf-equal         +Inf against +Inf (and -Inf against -Inf) passes (default: fails)\n"
    "  --step N            only the tensors recorded at step N\n"
    "  --threads N         worker threads (default: one per core, at most 8)\n"
    "  --json FILE         write the report as JSON ('-' = stdout, instead of the text)\n"
    "  --html FILE         write a self-contained page: summary, error plot, histograms\n"
    "  --all               every row in the table (default: rows within tolerance are left out\n"
    "                      above 200 tensors)\n"
    "  --quiet             no text report\n"
    "  --nonfinite         one dump: the first op whose output holds NaN or Inf\n"
    "\n"
    "exit: 0 all within tolerance (--nonfinite: none found), 1 mismatch (found), 2 bad input\n";

int bad_input(const std::string& message) {
  fprintf(stderr, "probe compare: %s\n", message.c_str());
  return 2;
}

struct progress_state {
  bool shown = false;
};

void show_progress(void* context, uint64_t done, uint64_t total) {
  auto* st = static_cast<progress_state*>(context);
  if (total < (uint64_t{64} << 20)) return;
  fprintf(stderr, "\rprobe compare: %3.0f%% of %.2f GiB", 100.0 * static_cast<double>(done) / static_cast<double>(total),
          static_cast<double>(total) / (1 << 30));
  fflush(stderr);
  st->shown = true;
}

bool color_wanted() {
  const char* no = getenv("NO_COLOR");
  const char* term = getenv("TERM");
  return isatty(1) && !(no && *no) && !(term && !strcmp(term, "dumb"));
}

int run_nonfinite(const std::vector<std::string>& inputs, const probe::analysis::compare_settings& s,
                  const std::string& json_path, bool quiet) {
  namespace pa = probe::analysis;
  if (inputs.size() != 1) return bad_input("--nonfinite takes one dump folder");
  const pa::nonfinite_report r = pa::find_first_nonfinite(inputs[0], s.has_step, s.step);
  if (!r.error.empty()) return bad_input(r.error);
  if (json_path == "-") fputs(pa::nonfinite_json(r).c_str(), stdout);
  else if (!quiet) fputs(pa::nonfinite_text(r).c_str(), stdout);
  std::string error;
  if (!json_path.empty() && json_path != "-" && !write_file_atomically(json_path, pa::nonfinite_json(r), &error))
    return bad_input(error);
  return r.exit_code();
}

}  // namespace

int run_compare(int argc, char** argv) {
  namespace pa = probe::analysis;
  pa::compare_settings s;
  std::vector<std::string> inputs;
  std::string json_path, html_path, value, error;
  bool quiet = false, nonfinite = false;
  pa::compare_text_options text;
  size_t count = 0;

  option_reader args(argc, argv);
  while (args.next()) {
    if (!args.is_option()) {
      inputs.push_back(args.word());
      continue;
    }
    if (args.is("--help") || args.is("-h")) {
      fputs(k_compare_usage, stdout);
      return 0;
    }
    if (args.flag("--equal-nan")) s.check.equal_nan = true;
    else if (args.flag("--no-equal-nan")) s.check.equal_nan = false;
    else if (args.flag("--inf-equal")) s.check.inf_equal = true;
    else if (args.flag("--nonfinite")) nonfinite = true;
    else if (args.flag("--all")) text.all_rows = true;
    else if (args.flag("--quiet")) quiet = true;
    else if (args.number("--atol", &s.tol.atol, 0, 1e300, &error)) {}
    else if (args.number("--rtol", &s.tol.rtol, 0, 1e300, &error)) {}
    else if (args.option("--json", &json_path, &error)) {}
    else if (args.option("--html", &html_path, &error)) {}
    else if (args.count("--threads", &count, 1, 256, &error)) s.threads = static_cast<unsigned>(count);
    else if (args.option("--step", &value, &error)) {
      char* end = nullptr;
      s.step = strtoll(value.c_str(), &end, 10);
      s.has_step = true;
      if (value.empty() || *end) error = "--step takes a whole number, not '" + value + "'";
    } else if (args.option("--tol", &value, &error)) {
      if (error.empty()) s.add_override(value, &error);
    } else if (args.option("--check", &value, &error)) {
      if (value == "elementwise") s.check.mode = pa::check_mode::elementwise;
      else if (value == "max") s.check.mode = pa::check_mode::max;
      else if (value == "mean") s.check.mode = pa::check_mode::mean;
      else if (value.compare(0, 9, "quantile:") == 0) {
        char* end = nullptr;
        s.check.mode = pa::check_mode::quantile;
        s.check.quantile = strtod(value.c_str() + 9, &end);
        if (value.size() == 9 || *end || !(s.check.quantile >= 0 && s.check.quantile <= 1))
          error = "--check quantile:Q takes Q from 0 to 1, not '" + value + "'";
      } else {
        error = "--check takes elementwise, max, mean or quantile:Q, not '" + value + "'";
      }
    } else {
      error = "unknown option '" + args.word() + "' (probe compare --help lists them)";
    }
    if (!error.empty()) return bad_input(error);
  }
  for (const std::string& w : args.rest()) inputs.push_back(w);
  if (nonfinite) return run_nonfinite(inputs, s, json_path, quiet);
  if (inputs.size() != 2) return bad_input("needs two inputs, A (the run) and B (the reference); see --help");

  progress_state progress;
  if (isatty(2)) {
    s.progress = show_progress;
    s.progress_context = &progress;
  }
  const pa::compare_report r = pa::compare_paths(inputs[0], inputs[1], s);
  if (progress.shown) fputs("\r\x1b[K", stderr);
  if (!r.error.empty()) return bad_input(r.error);

  text.color = color_wanted();
  const bool json_to_stdout = json_path == "-";
  if (json_to_stdout) fputs(pa::compare_json(r).c_str(), stdout);
  else if (!quiet) fputs(pa::compare_text(r, text).c_str(), stdout);
  fflush(stdout);
  if (!json_path.empty() && !json_to_stdout && !write_file_atomically(json_path, pa::compare_json(r), &error))
    return bad_input(error);
  if (!html_path.empty() && !write_file_atomically(html_path, pa::compare_html(r), &error)) return bad_input(error);
  return r.exit_code();
}

}  // namespace probe_cli
