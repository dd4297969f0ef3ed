// probe bisect-run: one step of `git bisect run`, on a speed metric or on crashes.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "analysis/bisect.hpp"
#include "analysis/series_parse.hpp"

#include "options.hpp"
#include "subprocess.hpp"
#include "terminal_text.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

constexpr const char* k_metric = "metric mode (the default)";
constexpr const char* k_crash = "crash mode";
constexpr const char* k_both = "both modes";

const option_spec k_options[] = {
    text("--metric", "NAME", "the value is on lines 'NAME: <number>', as in probe regress").under(k_metric),
    text("--pattern", "REGEX",
         "the value is the one capture group of REGEX (docs/regex.md); lines over 1 MiB are skipped")
        .under(k_metric),
    number("--good-value", "V",
           "a good commit's value; with --bad-value, good and bad are either side of their midpoint")
        .under(k_metric),
    number("--bad-value", "V", "a bad commit's value").under(k_metric),
    number("--threshold", "F", 0, 1e6, "bad when worse than the baseline by more than F: 0.05 = 5%").under(k_metric),
    number("--baseline", "V", "the baseline for --threshold").by_default("--good-value").under(k_metric),
    flag("--higher-is-better", "a higher value is better")
        .by_default("from the values, else from the name")
        .under(k_metric),
    flag("--lower-is-better", "a lower value is better")
        .by_default("from the values, else from the name")
        .under(k_metric),
    integer("--max-runs", "M", 1, 100000, "more runs, one at a time, while unclear, up to M in all")
        .by_default("3 x --repeat")
        .under(k_metric),
    number("--alpha", "A", 1e-9, 0.5, "one-sided significance of the t-test against the boundary")
        .by_default("0.01")
        .under(k_metric),
    flag("--ignore-exit-status",
         "use the values of a run that exits non-zero; without it, such a run skips the commit")
        .under(k_metric),
    flag("--crash", "good = CMD exits 0; bad = it fails, dies by a signal or times out").under(k_crash),
    integer("--repeat", "N", 1, 100000, "runs before deciding; in crash mode, bad if any run is")
        .by_default("3, or 1 with --crash")
        .under(k_both),
    text("--build", "CMD", "run 'sh -c CMD' first; if it fails, skip the commit (exit 125)").under(k_both),
    number("--timeout", "S", 0, 1e9, "kill a CMD run after S seconds: a skip in metric mode, bad in crash mode")
        .by_default("none")
        .under(k_both),
    number("--build-timeout", "S", 0, 1e9, "kill the build after S seconds: a skip").by_default("none").under(k_both),
    flag("--verbose", "copy the output of the build and of CMD to stderr").under(k_both),
};

// Exit code for bad options: above 127 makes `git bisect run` stop at once.
constexpr int k_abort_bisect = 128;

void log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log(const char* fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  print_error("bisect-run", buf);
}

// The last lines of a command's output, indented, for the log when it failed.
std::string tail_lines(const std::string& output, size_t count) {
  std::vector<std::string> lines = probe::analysis::split_lines(probe::analysis::strip_ansi(output));
  std::string out;
  const size_t from = lines.size() > count ? lines.size() - count : 0;
  for (size_t i = from; i < lines.size(); ++i)
    out += "    | " + probe::detail::printable(probe::analysis::clean_line(lines[i], 300)) + "\n";
  return out;
}

std::string samples_text(const std::vector<double>& v) {
  std::string s = "[";
  char buf[32];
  for (size_t i = 0; i < v.size(); ++i) {
    if (i == 8 && v.size() > 10) {
      s += " ... " + std::to_string(v.size() - 9) + " more ...";
      i = v.size() - 1;
    }
    snprintf(buf, sizeof buf, "%s%.6g", s.size() > 1 ? " " : "", v[i]);
    s += buf;
  }
  return s + "]";
}

int finish(probe::analysis::bisect_verdict v, const std::string& why) {
  const int code = probe::analysis::bisect_exit_code(v);
  log("%s: %s -> exit %d", v == probe::analysis::bisect_verdict::unclear ? "skip" : bisect_verdict_name(v),
      why.c_str(), code);
  return code;
}

}  // namespace

const command_spec bisect_run_command = {
    "bisect-run",
    "one step of git bisect run: good/bad on a metric or on crashes",
    "git bisect run probe bisect-run [options] -- CMD [ARGS...]",
    "Runs CMD (after an optional build) and tells git bisect whether this commit is good or bad.\n"
    "Each decision is logged on stderr with the samples it used.\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0 good, 1 bad, 125 skip (build failed, no value, still unclear after --max-runs);\n"
    "      128 for bad options, which stops git bisect run instead of marking commits wrongly.",
    k_abort_bisect,
    "; exit 128 stops git bisect run",
    operand_kind::command_after_dashdash,
};

int run_bisect_run(int argc, char** argv) {
  namespace pa = probe::analysis;
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(bisect_run_command, argc, argv, &args, &exit_code)) return exit_code;

  pa::bisect_settings s;
  std::string metric, pattern, build, error;
  double timeout = 0, build_timeout = 0;
  size_t repeat = 3;
  const bool crash = args.given("--crash"), verbose = args.given("--verbose");
  const bool ignore_status = args.given("--ignore-exit-status");
  if (const char* direction = args.only_one_of({"--higher-is-better", "--lower-is-better"}, &error))
    s.direction = strcmp(direction, "--higher-is-better") == 0 ? 1 : -1;
  if (error.empty()) args.only_one_of({"--metric", "--pattern"}, &error);
  args.get("--metric", &metric);
  args.get("--pattern", &pattern);
  args.get("--build", &build);
  s.has_good = args.get("--good-value", &s.good_value);
  s.has_bad = args.get("--bad-value", &s.bad_value);
  s.has_threshold = args.get("--threshold", &s.threshold);
  s.has_baseline = args.get("--baseline", &s.baseline);
  args.get("--alpha", &s.alpha);
  args.get("--timeout", &timeout);
  args.get("--build-timeout", &build_timeout);
  const bool repeat_given = args.get("--repeat", &repeat);
  const bool max_runs_given = args.get("--max-runs", &s.max_runs);
  const std::vector<std::string>& cmd = args.command();
  if (error.empty() && cmd.empty())
    error = "no command: give it after --, as in probe bisect-run [options] -- ./bench";
  s.repeat = crash && !repeat_given ? 1 : repeat;
  // Crash mode decides on CMD's exit status alone: a metric-mode option given with --crash
  // would be ignored without a word, and a bisect that looks measured would not be.
  if (error.empty() && crash) {
    std::string unused;
    size_t count = 0;
    for (const option_spec& o : k_options)
      if (strcmp(o.section, k_metric) == 0 && args.given(o.name)) {
        unused += (count++ ? ", " : "") + std::string(o.name);
      }
    if (count)
      error = unused + (count == 1 ? " has" : " have") +
              " no meaning with --crash, which decides on CMD's exit status alone; leave " +
              (count == 1 ? "it" : "them") + " out (or leave out --crash to bisect on a metric)";
  }
  // "Up to M in all" cannot hold below the --repeat runs that come before the first decision.
  if (error.empty() && !crash && max_runs_given && s.max_runs < s.repeat)
    error = "--max-runs " + std::to_string(s.max_runs) + " is below --repeat " + std::to_string(s.repeat) +
            (repeat_given ? "" : " (its default)") + ", the runs made before the first decision; give --max-runs " +
            std::to_string(s.repeat) + " or more, or a smaller --repeat";
  s.metric_name = !metric.empty() ? metric : pa::pattern_words(pattern);

  pa::metric_matcher matcher(metric);
  pa::bisect_boundary boundary;
  if (error.empty() && !pattern.empty()) matcher.set_pattern(pattern, &error);
  if (error.empty() && !crash) {
    if (!matcher.configured())
      error = "name the metric: --metric NAME or --pattern REGEX (or --crash for crashes)";
    else
      pa::bisect_boundary_of(s, &boundary, &error);
  }
  if (!error.empty()) return usage_error(bisect_run_command, error);
  const int echo = verbose ? 2 : -1;

  if (!build.empty()) {
    const pa::process_outcome b = run_process({"/bin/sh", "-c", build}, build_timeout, echo);
    if (!b.succeeded()) {
      if (!verbose) fputs(tail_lines(b.output, 15).c_str(), stderr);
      return finish(pa::bisect_verdict::unclear, "build '" + build + "' failed (" + b.describe() + ")");
    }
    log("build ok (%.3g s)", b.seconds);
  }

  if (crash) {
    for (size_t run = 1; run <= s.repeat; ++run) {
      const pa::process_outcome o = run_process(cmd, timeout, echo);
      const pa::bisect_verdict v = pa::crash_verdict(o);
      if (o.timed_out || !o.started)
        log("run %zu/%zu: %s", run, s.repeat, o.describe().c_str());
      else
        log("run %zu/%zu: %s (%.3g s)", run, s.repeat, o.describe().c_str(), o.seconds);
      if (v == pa::bisect_verdict::unclear) return finish(v, "the command " + o.describe());
      if (v == pa::bisect_verdict::bad) {
        if (!verbose) fputs(tail_lines(o.output, 10).c_str(), stderr);
        return finish(v, "run " + std::to_string(run) + " " + o.describe());
      }
    }
    return finish(pa::bisect_verdict::good, "all " + std::to_string(s.repeat) + " run(s) exited with 0");
  }

  log("%s; good/bad boundary: %s", matcher.describe().c_str(), boundary.description.c_str());
  std::vector<double> samples;
  const size_t cap = s.cap();
  for (size_t run = 1; run <= cap; ++run) {
    const pa::process_outcome o = run_process(cmd, timeout, echo);
    const pa::run_values v = pa::parse_run_output(o.output, matcher);
    if (v.long_lines) log("run %zu: output %s", run, v.long_line_note().c_str());
    if (!o.succeeded() && !(ignore_status && o.started && !o.timed_out && !v.values.empty())) {
      if (!verbose) fputs(tail_lines(o.output, 10).c_str(), stderr);
      return finish(pa::bisect_verdict::unclear, "run " + std::to_string(run) + " " + o.describe() +
                                                     ": cannot measure this commit");
    }
    if (v.values.empty())
      return finish(pa::bisect_verdict::unclear, "run " + std::to_string(run) + " printed no value for " +
                                                     matcher.describe() + ": " + v.error);
    samples.insert(samples.end(), v.values.begin(), v.values.end());
    log("run %zu: %s (%s, %.3g s)", run, samples_text(v.values).c_str(), o.describe().c_str(), o.seconds);
    if (run < s.repeat) continue;
    const pa::bisect_decision d = pa::bisect_decide(samples, boundary, s.alpha, run == cap);
    char stats[96];
    snprintf(stats, sizeof stats, ", mean %.6g, std %.3g; ", d.m.mean, d.m.sd());
    const std::string summary = std::to_string(samples.size()) + " sample(s) from " + std::to_string(run) +
                                " run(s) " + samples_text(samples) + stats;
    if (d.verdict != pa::bisect_verdict::unclear) return finish(d.verdict, summary + d.reason);
    if (run < cap) log("unclear after %zu run(s): %s; running again", run, d.reason.c_str());
    else return finish(d.verdict, summary + d.reason + "; still unclear after " + std::to_string(cap) + " runs");
  }
  return finish(pa::bisect_verdict::unclear, "no decision");
}

}  // namespace probe_cli
