// Decisions for `git bisect run`: is this commit good, bad, or impossible to tell? In
// metric mode, from repeated measurements against a boundary (the midpoint between a known
// good and a known bad value, or a threshold below a baseline), with a one-sample t-test and
// more runs while the answer is unclear; in crash mode, from how the command ended.
// git bisect run reads exit codes: 0 good, 1 bad, 125 skip; above 127 it aborts. The runner
// (spawning the command) lives in the CLI; this header only decides. Standalone header.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <probe/util/config.hpp>
#include "metric_direction.hpp"
#include "stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

enum class bisect_verdict { good, bad, unclear };

inline int bisect_exit_code(bisect_verdict v) { return v == bisect_verdict::good ? 0 : v == bisect_verdict::bad ? 1 : 125; }
inline const char* bisect_verdict_name(bisect_verdict v) {
  return v == bisect_verdict::good ? "good" : v == bisect_verdict::bad ? "bad" : "unclear";
}

struct bisect_settings {
  bool has_good = false, has_bad = false, has_threshold = false, has_baseline = false;
  double good_value = 0, bad_value = 0, threshold = 0, baseline = 0;
  int direction = 0;        // +1 higher is better, -1 lower is better, 0 from the values or the name
  std::string metric_name;  // for the direction guess
  size_t repeat = 3;        // runs before the first decision
  size_t max_runs = 0;      // cap on runs while unclear; 0 = 3 * repeat
  double alpha = 0.01;      // one-sided significance of the t-test
  size_t cap() const { return max_runs ? std::max(max_runs, repeat) : 3 * repeat; }
};

// What separates good from bad.
struct bisect_boundary {
  double value = 0;
  bool higher_is_better = true;
  std::string description;  // for the log
};

// Works out the boundary from the settings; false (with *error) when they do not define one.
inline bool bisect_boundary_of(const bisect_settings& s, bisect_boundary* b, std::string* error) {
  char buf[256];
  if (s.repeat < 1) {
    *error = "--repeat must be at least 1";
    return false;
  }
  if (!(s.alpha > 0 && s.alpha <= 0.5)) {
    *error = "--alpha must be above 0 and at most 0.5";
    return false;
  }
  if (s.has_bad && s.has_threshold) {
    *error = "give --bad-value or --threshold, not both";
    return false;
  }
  if (s.has_good && s.has_bad) {
    if (s.good_value == s.bad_value) {
      *error = "--good-value and --bad-value are equal: nothing separates good from bad";
      return false;
    }
    b->higher_is_better = s.good_value > s.bad_value;
    if (s.direction != 0 && (s.direction > 0) != b->higher_is_better) {
      *error = std::string("--good-value and --bad-value say ") + (b->higher_is_better ? "higher" : "lower") +
               " is better, which contradicts " + (s.direction > 0 ? "--higher-is-better" : "--lower-is-better");
      return false;
    }
    b->value = (s.good_value + s.bad_value) / 2;
    std::snprintf(buf, sizeof buf, "%.6g, midpoint of good %.6g and bad %.6g (%s is better)", b->value, s.good_value,
                  s.bad_value, b->higher_is_better ? "higher" : "lower");
    b->description = buf;
    return true;
  }
  if (s.has_threshold) {
    if (!s.has_baseline && !s.has_good) {
      *error = "--threshold needs a baseline: --baseline V or --good-value V";
      return false;
    }
    if (!(s.threshold >= 0)) {
      *error = "--threshold must be a fraction of at least 0 (0.05 = 5%; 0: any change for the worse)";
      return false;
    }
    const double base = s.has_baseline ? s.baseline : s.good_value;
    const metric_direction d = choose_direction(s.metric_name, s.direction);
    b->higher_is_better = d.higher_is_better;
    b->value = d.higher_is_better ? base - s.threshold * std::fabs(base) : base + s.threshold * std::fabs(base);
    std::snprintf(buf, sizeof buf, "%.6g = baseline %.6g %s %g%% (%s)", b->value, base,
                  d.higher_is_better ? "-" : "+", 100 * s.threshold, d.reason.c_str());
    b->description = buf;
    return true;
  }
  *error = "say what good and bad are: --good-value V --bad-value V, or --threshold F with --good-value V "
           "(or --baseline V); or --crash for crashes";
  return false;
}

struct bisect_decision {
  bisect_verdict verdict = bisect_verdict::unclear;
  moments m;
  double p = 1;        // one-sided p of the t-test (1 when there was none)
  std::string reason;  // one line for the log
};

// One decision from the samples so far. `last_chance`: no more runs will come; a single
// sample is then decided by its side of the boundary (no test is possible with one value).
inline bisect_decision bisect_decide(const std::vector<double>& samples, const bisect_boundary& b, double alpha,
                                     bool last_chance) {
  bisect_decision d;
  d.m = moments_of(samples);
  char buf[256];
  if (samples.empty()) {
    d.reason = "no value";
    return d;
  }
  const bool good_side = b.higher_is_better ? d.m.mean > b.value : d.m.mean < b.value;
  const bisect_verdict side = good_side ? bisect_verdict::good : bisect_verdict::bad;
  if (d.m.mean == b.value) {
    d.reason = "mean is exactly on the boundary";
    return d;
  }
  if (samples.size() == 1) {
    if (last_chance) {
      d.verdict = side;
      d.reason = std::string("one sample, no test possible: decided by its side of the boundary (") +
                 (good_side ? "good" : "bad") + " side)";
    } else {
      d.reason = "one sample: too few for a test";
    }
    return d;
  }
  const t_test t = one_sample_t_test(d.m, b.value);
  d.p = t.p / 2;  // one-sided, in the direction the mean lies
  if (d.m.var == 0) {
    // identical values: no spread to test against, and none needed
    d.verdict = side;
    d.p = 0;
    std::snprintf(buf, sizeof buf, "identical values %.6g, on the %s side of %.6g", d.m.mean, good_side ? "good" : "bad",
                  b.value);
  } else if (d.p <= alpha) {
    d.verdict = side;
    std::snprintf(buf, sizeof buf, "mean %.6g on the %s side of %.6g, one-sided t-test p = %.2g <= %g", d.m.mean,
                  good_side ? "good" : "bad", b.value, d.p, alpha);
  } else {
    std::snprintf(buf, sizeof buf, "mean %.6g on the %s side of %.6g but p = %.2g > %g", d.m.mean,
                  good_side ? "good" : "bad", b.value, d.p, alpha);
  }
  d.reason = buf;
  return d;
}

// One run of the command, as the runner saw it.
struct process_outcome {
  bool started = false;     // false: it could not be run at all (spawn_error says why)
  std::string spawn_error;
  bool exited = false;      // exited normally (exit_code is meaningful)
  int exit_code = 0;
  int signal = 0;           // the signal that killed it, when it did
  bool timed_out = false;   // killed by the runner after --timeout
  std::string output;       // stdout and stderr together
  double seconds = 0;

  bool succeeded() const { return started && exited && exit_code == 0 && !timed_out; }
  // "exit code 3", "killed by signal 11 (SIGSEGV)", "timed out after 10 s", ...
  std::string describe() const;
};

inline const char* signal_name(int sig) {
  switch (sig) {
    case 1: return "SIGHUP";
    case 2: return "SIGINT";
    case 3: return "SIGQUIT";
    case 4: return "SIGILL";
    case 5: return "SIGTRAP";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 9: return "SIGKILL";
    case 11: return "SIGSEGV";
    case 13: return "SIGPIPE";
    case 14: return "SIGALRM";
    case 15: return "SIGTERM";
    default: return "signal";
  }
}

inline std::string process_outcome::describe() const {
  char buf[160];
  if (!started) return "could not run: " + spawn_error;
  if (timed_out) {
    std::snprintf(buf, sizeof buf, "timed out after %.3g s (killed)", seconds);
    return buf;
  }
  if (!exited) {
    std::snprintf(buf, sizeof buf, "killed by signal %d (%s)", signal, signal_name(signal));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "exit code %d", exit_code);
  return buf;
}

// Crash mode: good when the command exited with 0; bad when it exited otherwise, died by a
// signal or hung past the timeout. A command that could not be started is unclear (skip):
// the commit may simply not have it.
inline bisect_verdict crash_verdict(const process_outcome& o) {
  if (!o.started) return bisect_verdict::unclear;
  return o.succeeded() ? bisect_verdict::good : bisect_verdict::bad;
}

}  // namespace analysis
PROBE_END_NAMESPACE
