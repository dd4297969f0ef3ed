// `probe compare --first-above X A [B]`: the first op, in sequence order, whose output holds
// a value with |value| > X in either run: values running away before they become NaN/Inf.
// An infinity is above every X, a NaN above none (--nonfinite finds those; the report counts
// the outputs holding one). An op that encloses a nested op (at any depth) whose output is
// above X yields to it, as in --nonfinite. Outputs are judged by the manifest's statistics
// (min, max, Inf and NaN counts); an output recorded without them is measured from its data
// file. Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include <probe/formats/json_write.hpp>
#include <probe/util/text.hpp>
#include "dump_manifest.hpp"
#include "npy_file.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct above_hit {
  bool found = false;
  std::string side;  // "A" or "B"
  std::string run;   // rank folder, or ""
  std::string key, op, op_key, type;
  uint64_t seq = 0;
  int64_t step = 0;
  double largest = 0;  // the largest |value| of the output, NaNs left out (inf for an infinity)
};

struct above_report {
  double threshold = 0;
  std::vector<std::string> dirs;
  above_hit first;              // the earliest of both runs
  std::vector<above_hit> sides; // the first in each run, A then B
  size_t scanned = 0, unknown = 0;
  size_t nan_outputs = 0;  // outputs holding a NaN, which is above no threshold
  std::string error;
  int exit_code() const { return !error.empty() ? 2 : first.found ? 1 : 0; }
};

namespace above_impl {

// The largest |value| of an output, of its finite values and infinities: a NaN is above no
// threshold (*nan says it holds one). False when neither stats nor data tell it.
inline bool largest_of(const dump_tensor& t, double* out, bool* nan) {
  health h;
  if (t.have_stats) {
    h = t.stats;
  } else {
    if (t.file.empty()) return false;
    npy_file file;
    std::string error;
    if (!file.open(t.file, &error) || !file.health_of_all(&h, &error)) return false;
  }
  *nan = h.nan > 0;
  if (h.pos_inf || h.neg_inf) {
    *out = __builtin_inf();
    return true;
  }
  if (h.finite == 0) {
    *out = 0;
    return true;
  }
  *out = std::max(std::fabs(h.min), std::fabs(h.max));
  return !std::isnan(*out);
}

// The first output above the threshold in one run: of the earliest op holding one that
// encloses none that does (the output of an enclosing op is often the one its nested op wrote).
inline above_hit first_in_run(const dump_run& run, double threshold, bool has_step, int64_t step, above_report* r) {
  struct candidate {
    const dump_tensor* t;
    double largest;
  };
  std::vector<candidate> above;
  for (const dump_tensor& t : run.tensors) {
    if (t.is_input || (has_step && t.step != step)) continue;
    double v = 0;
    bool nan = false;
    ++r->scanned;
    if (!largest_of(t, &v, &nan)) {
      ++r->unknown;
      continue;
    }
    r->nan_outputs += nan;
    if (v > threshold) above.push_back(candidate{&t, v});
  }
  std::vector<uint64_t> seqs;
  for (const candidate& c : above) seqs.push_back(c.t->seq);
  const std::unordered_set<uint64_t> outer = enclosing_ops(run, seqs);
  const candidate* first = nullptr;
  for (const candidate& c : above)
    if (!outer.count(c.t->seq) && (!first || c.t->seq < first->t->seq)) first = &c;
  if (!first && !above.empty()) first = &above.front();  // parents in a cycle: a hand-made manifest
  above_hit h;
  if (!first) return h;
  h.found = true;
  h.run = run.name;
  h.key = first->t->key;
  h.op = first->t->op;
  h.op_key = first->t->op_key();
  h.type = first->t->type;
  h.seq = first->t->seq;
  h.step = first->t->step;
  h.largest = first->largest;
  return h;
}

}  // namespace above_impl

inline above_report find_first_above(const std::vector<std::string>& dirs, double threshold, bool has_step, int64_t step) {
  above_report r;
  r.threshold = threshold;
  r.dirs = dirs;
  for (size_t side = 0; side < dirs.size(); ++side) {
    std::vector<dump_run> runs;
    if (!read_dump(dirs[side], &runs, &r.error)) return r;
    above_hit best;
    for (const dump_run& run : runs) {
      const above_hit h = above_impl::first_in_run(run, threshold, has_step, step, &r);
      if (h.found && (!best.found || h.seq < best.seq)) best = h;
    }
    best.side = side ? "B" : "A";
    r.sides.push_back(best);
    if (best.found && (!r.first.found || best.seq < r.first.seq)) r.first = best;
  }
  return r;
}

inline std::string first_above_text(const above_report& r) {
  char x[32];
  std::snprintf(x, sizeof x, "%g", r.threshold);
  std::string out;
  // Said, so that a run that went straight to NaN is not taken for one that stayed bounded.
  const std::string nan_note =
      !r.nan_outputs ? ""
      : (r.nan_outputs == 1 ? std::string("1 output holds") : std::to_string(r.nan_outputs) + " outputs hold") +
            " NaN, which is above no threshold (probe compare --nonfinite finds the first).\n";
  if (!r.first.found) {
    out = "No output holds a value with |value| > " + std::string(x) + " (" + std::to_string(r.scanned) + " outputs";
    if (r.unknown) out += ", " + std::to_string(r.unknown) + " without stats or data";
    return out + ").\n" + nan_note;
  }
  for (const above_hit& h : r.sides) {
    if (!h.found) {
      out += h.side + ": no output above " + x + ".\n";
      continue;
    }
    char v[32];
    std::snprintf(v, sizeof v, "%.4g", h.largest);
    out += h.side + ": first above " + x + ": op " +
           ::probe::detail::printable(h.op_key) + (h.type.empty() ? "" : " (" + ::probe::detail::printable(h.type) + ")") +
           " at seq " + std::to_string(h.seq) + ", step " + std::to_string(h.step) +
           (h.run.empty() ? "" : ", run " + ::probe::detail::printable(h.run)) + ": " +
           ::probe::detail::printable(h.key) + " holds |value| " + v + ".\n";
  }
  const above_hit& f = r.first;
  out += "First op above " + std::string(x) + ": " + ::probe::detail::printable(f.op_key) + " at step " +
         std::to_string(f.step) + " (in " + f.side + ").\n";
  return out + nan_note;
}

inline std::string first_above_json(const above_report& r) {
  std::string out;
  json::writer w(out);
  w.begin_object().member("format", "probe-first-above-1").member("threshold", r.threshold);
  w.key("error");
  if (r.error.empty()) w.null(); else w.value(r.error);
  auto hit = [&](const above_hit& h) {
    if (!h.found) return (void)w.null();
    w.begin_object().member("side", h.side).member("run", h.run).member("key", h.key).member("op_key", h.op_key);
    w.member("op", h.op).member("type", h.type).member("seq", static_cast<unsigned long long>(h.seq));
    w.member("step", static_cast<long long>(h.step)).member("largest", h.largest).end_object();
  };
  w.key("first");
  hit(r.first);
  w.key("sides").begin_array();
  for (const above_hit& h : r.sides) hit(h);
  w.end_array();
  w.member("scanned", static_cast<unsigned long long>(r.scanned)).member("unknown", static_cast<unsigned long long>(r.unknown));
  w.member("nan_outputs", static_cast<unsigned long long>(r.nan_outputs));
  w.member("exit", r.exit_code()).end_object();
  out += '\n';
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
