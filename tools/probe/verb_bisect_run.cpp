// probe bisect-run: one step of `git bisect run`, on a speed metric or on crashes.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "analysis/bisect.hpp"
#include "analysis/series_parse.hpp"

#include "option_reader.hpp"
#include "subprocess.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const char k_bisect_usage[] =
    "usage: git bisect run probe bisect-run [options] -- CMD [ARGS...]\n"
    "Runs CMD (after an optional build) and tells git bisect whether this commit is good or bad.\n"
    "\n"
    "metric mode (the default):\n"
    "  --metric NAME | --pattern REGEX  the value, as in probe regress ('NAME: <number>' lines)\n"
    "  --good-value V --bad-value V     good and bad are either side of their midpoint\n"
    "  --threshold F                    bad when worse than the baseline by more than F (0.05 = 5%)\n"
    "  --baseline V                     the baseline for --threshold (default: --good-value)\n"
    "  --higher-is-better | --lower-is-better  (default: from the values, else from the name)\n"
    "  --repeat N      runs before deciding (default 3)\n"
    "  --max-runs M    more runs, one at a time, while unclear, up to M in all (default 3N)\n"
    "  --alpha A       one-sided significance of the t-test against the boundary (default 0.01)\n"
    "  --ignore-exit-status  use the values of a run that exits non-zero (default: skip the commit)\n"
    "crash mode:\n"
    "  --crash         good = CMD exits 0; bad = it fails, dies by a signal or times out\n"
    "                  (--repeat N runs it N times, default 1: bad if any run is)\n"
    "both:\n"
    "  --build CMD     run 'sh -c CMD' first; if it fails, skip the commit (exit 125)\n"
    "  --timeout S     kill a CMD run after S seconds (metric mode: skip; crash mode: bad)\n"
    "  --build-timeout S   kill the build after S seconds (skip)\n"
    "  --verbose       copy the output of the build and of CMD to stderr\n"
    "\n"
    "exit: 0 good, 1 bad, 125 skip (build failed, no value, still unclear after --max-runs);\n"
    "      128 for bad options, which stops git bisect run instead of marking commits wrongly.\n"
    "Each decision is logged on stderr with the samples it used.\n";

// Exit code for bad options: above 127 makes `git bisect run` stop at once.
constexpr int k_abort_bisect = 128;

void log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log(const char* fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "probe bisect-run: %s\n", buf);
  fflush(stderr);
}

// The last lines of a command's output, indented, for the log when it failed.
std::string tail_lines(const std::string& output, size_t count) {
  std::vector<std::string> lines = probe::analysis::split_lines(probe::analysis::strip_ansi(output));
  std::string out;
  const size_t from = lines.size() > count ? lines.size() - count : 0;
  for (size_t i = from; i < lines.size(); ++i) out += "    | " + probe::analysis::clean_line(lines[i], 300) + "\n";
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

int run_bisect_run(int argc, char** argv) {
  namespace pa = probe::analysis;
  pa::bisect_settings s;
  std::string metric, pattern, build, error;
  double timeout = 0, build_timeout = 0;
  bool crash = false, verbose = false, ignore_status = false, repeat_given = false;
  size_t repeat = 3;

  option_reader args(argc, argv);
  while (args.next()) {
    if (args.is("--help") || args.is("-h")) {
      fputs(k_bisect_usage, stdout);
      return 0;
    }
    if (!args.is_option()) error = "unexpected '" + args.word() + "': the command goes after --";
    else if (args.flag("--crash")) crash = true;
    else if (args.flag("--verbose")) verbose = true;
    else if (args.flag("--ignore-exit-status")) ignore_status = true;
    else if (args.flag("--higher-is-better")) s.direction = 1;
    else if (args.flag("--lower-is-better")) s.direction = -1;
    else if (args.option("--metric", &metric, &error)) {}
    else if (args.option("--pattern", &pattern, &error)) {}
    else if (args.option("--build", &build, &error)) {}
    else if (args.number("--good-value", &s.good_value, -1e300, 1e300, &error)) s.has_good = true;
    else if (args.number("--bad-value", &s.bad_value, -1e300, 1e300, &error)) s.has_bad = true;
    else if (args.number("--threshold", &s.threshold, 0, 1e6, &error)) s.has_threshold = true;
    else if (args.number("--baseline", &s.baseline, -1e300, 1e300, &error)) s.has_baseline = true;
    else if (args.number("--alpha", &s.alpha, 0, 0.5, &error)) {}
    else if (args.number("--timeout", &timeout, 0, 1e9, &error)) {}
    else if (args.number("--build-timeout", &build_timeout, 0, 1e9, &error)) {}
    else if (args.count("--repeat", &repeat, 1, 100000, &error)) repeat_given = true;
    else if (args.count("--max-runs", &s.max_runs, 1, 100000, &error)) {}
    else error = "unknown option '" + args.word() + "' (probe bisect-run --help lists them)";
    if (!error.empty()) break;
  }
  const std::vector<std::string> cmd = args.rest();
  if (error.empty() && cmd.empty()) error = "no command: give it after --, as in probe bisect-run [options] -- ./bench";
  s.repeat = crash && !repeat_given ? 1 : repeat;
  s.metric_name = metric;

  pa::metric_matcher matcher(metric);
  pa::bisect_boundary boundary;
  if (error.empty() && !pattern.empty()) matcher.set_pattern(pattern, &error);
  if (error.empty() && !crash) {
    if (!matcher.configured())
      error = "name the metric: --metric NAME or --pattern REGEX (or --crash for crashes)";
    else
      pa::bisect_boundary_of(s, &boundary, &error);
  }
  if (!error.empty()) {
    log("%s; exit %d stops git bisect run", error.c_str(), k_abort_bisect);
    return k_abort_bisect;
  }
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
