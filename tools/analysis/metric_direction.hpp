// Whether a bigger value of a metric is better, from an explicit choice or from its name.
// Standalone header: plain `inline`.
#pragma once
#include <cctype>
#include <string>
#include <vector>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct metric_direction {
  bool higher_is_better = true;
  std::string reason;  // for reports: why this direction
};

// explicit_choice: +1 higher is better, -1 lower is better, 0 decide from the name.
// The name is cut into words (non-alphanumerics and lower-to-upper case changes split); then
//   - a rate is higher-is-better: "per", a "/s" or "/sec" (not "/step") in the name, or a word among
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

  std::string hit = any_word({"per"});
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
