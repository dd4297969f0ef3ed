// Whether a bigger value of a metric is better, from an explicit choice or from its name.
// Standalone header: plain `inline`.
#pragma once
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct metric_direction {
  bool higher_is_better = true;
  std::string reason;  // for reports: why this direction
};

// The words of a --pattern, for the direction guess: its escapes (\S, \d, \.), bracket
// expressions and operators left out ('^MLUPS: (\S+)' -> "MLUPS:"), so that \S is not read as
// the unit "s".
inline std::string pattern_words(const std::string& re) {
  std::string out;
  for (size_t i = 0; i < re.size(); ++i) {
    const char c = re[i];
    if (c == '\\') {
      ++i;  // the escaped character
    } else if (c == '[') {
      size_t j = i + 1;
      if (j < re.size() && re[j] == '^') ++j;
      if (j < re.size() && re[j] == ']') ++j;  // a leading ']' is a member
      while (j < re.size() && re[j] != ']') j += re[j] == '\\' ? 2 : 1;
      i = j;
      out += ' ';
    } else if (c == '{') {
      while (i < re.size() && re[i] != '}') ++i;
    } else if (std::strchr("^$()|?*+.", c)) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// explicit_choice: +1 higher is better, -1 lower is better, 0 decide from the name.
// The name is cut into words (non-alphanumerics and lower-to-upper case changes split); then
//   - "X per Y": per a unit of time (second, s, ms, hour...) is a rate, higher-is-better
//     (tokens per second, bytes per s); per anything else, X decides: a cost (time per step,
//     ms per iter, loss per batch) is lower-is-better, anything else a rate;
//   - a rate of something bad (error rate, miss rate, failure rate, drop rate) is
//     lower-is-better;
//   - a rate is higher-is-better: a "/s" or "/sec" (not "/step") in the name, or a word among
//     mlups, flops (gflops, tflops...), throughput, bandwidth, qps, fps, ips, ops, speed,
//     speedup, rate, score, accuracy, tokens, items, samples, images;
//   - otherwise a cost is lower-is-better: time, latency, duration, elapsed, wall, seconds,
//     sec, s, ms, us, ns, cycles, memory, mem, bytes, rss, loss, error(s), err, or a word
//     ending in "time" or "latency" (runtime, steptime);
//   - anything else (and a --pattern without a name) is higher-is-better: the usual metric
//     of a benchmark is a throughput such as MLUPS.
inline metric_direction choose_direction(const std::string& name, int explicit_choice) {
  metric_direction d;
  if (explicit_choice != 0) {
    d.higher_is_better = explicit_choice > 0;
    d.reason = d.higher_is_better ? "--higher-is-better" : "--lower-is-better";
    return d;
  }
  std::vector<std::string> words;
  std::string w;
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    const bool split_case = i > 0 && std::isupper(c) && std::islower(static_cast<unsigned char>(name[i - 1]));
    if (!std::isalnum(c) || split_case) {
      if (!w.empty()) words.push_back(w);
      w.clear();
    }
    if (std::isalnum(c)) w += static_cast<char>(std::tolower(c));
  }
  if (!w.empty()) words.push_back(w);
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  auto any_word = [&](std::initializer_list<const char*> list) -> std::string {
    for (const std::string& word : words)
      for (const char* l : list)
        if (word == l) return word;
    return std::string();
  };
  auto ends_with = [](const std::string& s, const char* suffix) {
    const std::string t(suffix);
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
  };

  auto is_cost = [&](const std::string& word) {
    static const char* const costs[] = {"time", "latency", "duration", "elapsed", "wall", "seconds", "sec",
                                        "secs", "s", "ms", "us", "ns", "cycles", "memory", "mem", "bytes",
                                        "rss", "loss", "error", "errors", "err"};
    for (const char* c : costs)
      if (word == c) return true;
    return ends_with(word, "time") || ends_with(word, "latency");
  };
  auto cost = [&](const std::string& word) {
    d.higher_is_better = false;
    d.reason = "lower is better: the name looks like a cost ('" + word + "')";
    return d;
  };
  auto rate = [&](const std::string& word) {
    d.higher_is_better = true;
    d.reason = "higher is better: the name looks like a rate ('" + word + "')";
    return d;
  };
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] != "per") continue;
    static const char* const times[] = {"s", "sec", "secs", "second", "seconds", "ms", "us", "ns", "min",
                                        "minute", "minutes", "h", "hr", "hour", "hours", "day", "days"};
    const std::string unit = i + 1 < words.size() ? words[i + 1] : std::string();
    for (const char* t : times)
      if (unit == t) return rate("per " + unit);
    for (size_t j = 0; j < i; ++j)
      if (is_cost(words[j])) return cost(words[j]);
    return rate("per");
  }
  if (any_word({"rate", "ratio", "fraction", "percent", "pct"}).size()) {
    const std::string bad = any_word({"error", "errors", "err", "loss", "miss", "misses", "failure", "failures",
                                      "fail", "drop", "drops", "reject", "rejects", "retry", "retries", "abort",
                                      "aborts", "timeout", "timeouts"});
    if (!bad.empty()) return cost(bad + " rate");
  }
  std::string hit;
  for (size_t at = lower.find("/s"); hit.empty() && at != std::string::npos; at = lower.find("/s", at + 1)) {
    const size_t after = lower.compare(at, 4, "/sec") == 0 ? at + 4 : at + 2;
    if (after >= lower.size() || !std::isalpha(static_cast<unsigned char>(lower[after]))) hit = "/s";
  }
  if (hit.empty())
    hit = any_word({"mlups", "glups", "flops", "gflops", "tflops", "pflops", "mflops", "throughput",
                    "bandwidth", "qps", "fps", "ips", "ops", "speed", "speedup", "rate", "score",
                    "accuracy", "tokens", "items", "samples", "images"});
  if (!hit.empty()) {
    d.higher_is_better = true;
    d.reason = "higher is better: the name looks like a rate ('" + hit + "')";
    return d;
  }
  hit = any_word({"time", "latency", "duration", "elapsed", "wall", "seconds", "sec", "secs", "s", "ms",
                  "us", "ns", "cycles", "memory", "mem", "bytes", "rss", "loss", "error", "errors", "err"});
  if (hit.empty())
    for (const std::string& word : words)
      if (ends_with(word, "time") || ends_with(word, "latency")) hit = word;
  if (!hit.empty()) {
    d.higher_is_better = false;
    d.reason = "lower is better: the name looks like a cost ('" + hit + "')";
    return d;
  }
  d.higher_is_better = true;
  d.reason = "higher is better (default; say --lower-is-better if not)";
  return d;
}

}  // namespace analysis
PROBE_END_NAMESPACE
