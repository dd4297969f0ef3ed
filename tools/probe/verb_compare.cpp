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
#include "analysis/first_above.hpp"
#include "analysis/nonfinite.hpp"

#include "compare_dumps.hpp"
#include "file_output.hpp"
#include "options.hpp"
#include "terminal_text.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const option_spec k_options[] = {
    number("--atol", "X", 0, 1e300, "absolute tolerance of every tensor").by_default("by dtype"),
    number("--rtol", "X", 0, 1e300, "relative tolerance of every tensor").by_default("by dtype"),
    text("--tol", "RE=ATOL,RTOL",
         "tolerances of the keys RE matches, a partial match; the last matching --tol wins; leave a number out to "
         "keep its default, as in 'softmax.*=,1e-3'")
        .repeated(),
    text("--check", "MODE",
         "elementwise: every element must pass; max, mean or quantile:Q: that statistic of |a-b| against atol and "
         "of the relative error against rtol, failing only when both exceed")
        .by_default("elementwise"),
    flag("--equal-nan", "NaN against NaN passes").by_default("on"),
    flag("--no-equal-nan", "NaN against NaN fails"),
    flag("--inf-equal", "+Inf against +Inf (and -Inf against -Inf) passes; without it, fails"),
    integer("--step", "N", "only the tensors recorded at step N"),
    integer("--threads", "N", 1, 256, "worker threads").by_default("one per core, at most 8"),
    text("--json", "FILE", "write the report as JSON ('-' = stdout, instead of the text)"),
    text("--html", "FILE", "write a self-contained page: summary, error plot, histograms ('-' = stdout, instead of the text)"),
    flag("--accept-rounding",
         "exit 0 when every failure is rounding-level (at most about the square root of the dtype's precision of "
         "the tensor's largest value), as between builds or summation orders"),
    flag("--all",
         "every row in the table and every root cause in full; without it, rows within tolerance are left out above "
         "200 tensors, and root causes past the first 50 of a run are named in one line"),
    flag("--quiet", "no text report"),
    flag("--nonfinite", "one dump: the first op whose output holds NaN or Inf; takes only --step, --json and --quiet"),
    number("--first-above", "X", 0, 1e300,
           "one or two dumps: the first op (in sequence order) whose output holds |value| > X in either run; takes "
           "only --step, --json and --quiet"),
};

// What the one-dump checks take besides their own option: they read no tolerances and write
// no page, so any other option given with them would be dropped without a word.
const char* const k_check_options[] = {"--step", "--json", "--quiet"};

// "" when the options given fit the mode; else the usage error, naming the first that does not.
std::string mode_problem(const parsed_options& args) {
  const char* mode = args.given("--nonfinite") ? "--nonfinite" : args.given("--first-above") ? "--first-above" : nullptr;
  if (!mode) return std::string();
  for (const option_spec& o : k_options) {
    if (!args.given(o.name) || !strcmp(o.name, mode)) continue;
    bool taken = false;
    for (const char* t : k_check_options) taken = taken || !strcmp(o.name, t);
    if (!taken)
      return std::string(o.name) + " does not apply to " + mode + ", which takes only --step, --json and --quiet";
  }
  return std::string();
}

int bad_input(const std::string& message) {
  print_error("compare", message);
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
  else if (!quiet) fputs(terminal_lines(pa::nonfinite_text(r)).c_str(), stdout);
  std::string error;
  if (!json_path.empty() && json_path != "-" && !write_report_file(json_path, pa::nonfinite_json(r), &error))
    return bad_input(error);
  return r.exit_code();
}

int run_first_above(const std::vector<std::string>& inputs, double threshold, const probe::analysis::compare_settings& s,
                    const std::string& json_path, bool quiet) {
  namespace pa = probe::analysis;
  if (inputs.empty() || inputs.size() > 2) return bad_input("--first-above takes one or two dump folders");
  const pa::above_report r = pa::find_first_above(inputs, threshold, s.has_step, s.step);
  if (!r.error.empty()) return bad_input(r.error);
  if (json_path == "-") fputs(pa::first_above_json(r).c_str(), stdout);
  else if (!quiet) fputs(terminal_lines(pa::first_above_text(r)).c_str(), stdout);
  std::string error;
  if (!json_path.empty() && json_path != "-" && !write_report_file(json_path, pa::first_above_json(r), &error))
    return bad_input(error);
  return r.exit_code();
}

}  // namespace

const command_spec compare_command = {
    "compare",
    "compare two dumps: per-tensor errors, first divergent op, root causes",
    "probe compare [options] A B\n"
    "probe compare --nonfinite [--step N] [--json FILE] [--quiet] DIR\n"
    "probe compare --first-above X [--step N] [--json FILE] [--quiet] A [B]",
    "Compares a run A with a reference B: two dump folders (manifest.jsonl; rank folders are\n"
    "paired by name), two folders of .npy files (paired by relative path) or two .npy files.\n"
    "Reports per-tensor errors in execution order, the first divergent op, and the root causes:\n"
    "ops whose output is out of tolerance while all their inputs match.\n"
    "\n"
    "An element fails when |a - b| > atol + rtol * |b| (b: the reference). Default tolerances by\n"
    "the coarser dtype of each pair: float64 atol 1e-8 rtol 1e-7, float32 1e-5 1e-5, float16\n"
    "1e-2 1e-2, bfloat16 5e-2 5e-2, integers 0 0.\n"
    "\n"
    "--nonfinite and --first-above take only --step, --json and --quiet; another option given\n"
    "with them (tolerances, --html, the other check) is refused.\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0 within tolerance (with --accept-rounding, also when every failure is rounding-level;\n"
    "      --nonfinite, --first-above: none found), 1 mismatch (found), 2 bad input",
    2,
    "",
    operand_kind::words,
};

probe::analysis::compare_report compare_dumps(const std::string& a, const std::string& b,
                                              const probe::analysis::compare_settings& settings) {
  return probe::analysis::compare_paths(a, b, settings);
}

int run_compare(int argc, char** argv) {
  namespace pa = probe::analysis;
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(compare_command, argc, argv, &args, &exit_code)) return exit_code;
  const std::string misfit = mode_problem(args);
  if (!misfit.empty()) return usage_error(compare_command, misfit);

  pa::compare_settings s;
  pa::compare_text_options text;
  std::string json_path, html_path, value, error;
  const std::vector<std::string>& inputs = args.operands();
  const bool quiet = args.given("--quiet"), nonfinite = args.given("--nonfinite");
  text.all_rows = args.given("--all");
  if (const char* nan = args.last_of({"--equal-nan", "--no-equal-nan"}))
    s.check.equal_nan = strcmp(nan, "--equal-nan") == 0;
  if (args.given("--inf-equal")) s.check.inf_equal = true;
  s.accept_rounding = args.given("--accept-rounding");
  args.get("--atol", &s.tol.atol);
  args.get("--rtol", &s.tol.rtol);
  args.get("--json", &json_path);
  args.get("--html", &html_path);
  if (json_path == "-" && html_path == "-")
    return usage_error(compare_command, "--json - and --html - would both go to stdout: give one of them a file");
  size_t threads = 0;
  if (args.get("--threads", &threads)) s.threads = static_cast<unsigned>(threads);
  long long step = 0;
  if (args.get("--step", &step)) {
    s.step = step;
    s.has_step = true;
  }
  for (const std::string& tol : args.values("--tol"))
    if (!s.add_override(tol, &error)) return usage_error(compare_command, error);
  if (args.get("--check", &value)) {
    if (value == "elementwise") s.check.mode = pa::check_mode::elementwise;
    else if (value == "max") s.check.mode = pa::check_mode::max;
    else if (value == "mean") s.check.mode = pa::check_mode::mean;
    else if (value.compare(0, 9, "quantile:") == 0) {
      char* end = nullptr;
      s.check.mode = pa::check_mode::quantile;
      s.check.quantile = strtod(value.c_str() + 9, &end);
      if (value.size() == 9 || *end || !(s.check.quantile >= 0 && s.check.quantile <= 1))
        return usage_error(compare_command, "--check quantile:Q takes Q from 0 to 1, not '" + value + "'");
    } else {
      const std::string close = closest_match(value, {"elementwise", "max", "mean", "quantile:Q"});
      return usage_error(compare_command, "--check takes elementwise, max, mean or quantile:Q, not '" + value + "'" +
                                              (close.empty() ? "" : " (did you mean " + close + "?)"));
    }
  }
  if (nonfinite) return run_nonfinite(inputs, s, json_path, quiet);
  double above = 0;
  if (args.get("--first-above", &above)) return run_first_above(inputs, above, s, json_path, quiet);
  if (inputs.size() != 2)
    return usage_error(compare_command, "needs two inputs, A (the run) and B (the reference); see --help");

  progress_state progress;
  if (isatty(2)) {
    s.progress = show_progress;
    s.progress_context = &progress;
  }
  const pa::compare_report r = compare_dumps(inputs[0], inputs[1], s);
  if (progress.shown) fputs("\r\x1b[K", stderr);
  if (!r.error.empty()) return bad_input(r.error);

  text.color = color_wanted();
  const bool json_to_stdout = json_path == "-";
  if (json_to_stdout) fputs(pa::compare_json(r).c_str(), stdout);
  else if (!quiet && html_path != "-") fputs(pa::compare_text(r, text).c_str(), stdout);  // the page alone
  fflush(stdout);
  if (!json_path.empty() && !json_to_stdout && !write_report_file(json_path, pa::compare_json(r), &error))
    return bad_input(error);
  if (!html_path.empty() && !write_report_file(html_path, pa::compare_html(r), &error)) return bad_input(error);
  return r.exit_code();
}

}  // namespace probe_cli
