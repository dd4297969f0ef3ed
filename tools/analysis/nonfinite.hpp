// The first op whose output holds NaN or Inf, in one dump (`probe compare --nonfinite DIR`,
// `probe show --health DIR`): outputs are scanned in sequence order using the manifest's
// health stats; outputs recorded without stats are measured from their files, and the op
// found is verified from its data file when there is one. An op that encloses a nested op
// (at any depth) whose output holds NaN/Inf yields to it: ops are numbered as they begin, so
// the enclosing op comes first, and its output is often the tensor the nested op wrote. Its
// inputs are reported too: all finite means the op made the NaN/Inf itself. Standalone
// header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <probe/core/stats.hpp>
#include <probe/formats/json_write.hpp>
#include <probe/formats/npy.hpp>
#include <probe/util/text.hpp>
#include "dump_manifest.hpp"
#include "npy_file.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct nonfinite_tensor {
  std::string key, slot, producer, file;
  int64_t count = 0, nan = 0, pos_inf = 0, neg_inf = 0;
  bool known = false;     // stats or data were available
  bool verified = false;  // counted from the data file
  // An input whose producer was dumped at another step than --step asked: that output's key
  // and step (then "not dumped" would be wrong: compare without --step follows it).
  std::string outside_producer;
  int64_t outside_step = 0;
  int64_t nonfinite() const { return nan + pos_inf + neg_inf; }
};

struct nonfinite_run {
  std::string name;  // rank folder, or ""
  bool found = false;
  uint64_t seq = 0;
  int64_t step = 0;
  std::string op_key, op, type;
  std::vector<nonfinite_tensor> outputs, inputs;  // of the op found (outputs: the non-finite ones)
  size_t outputs_scanned = 0, outputs_unknown = 0;
  size_t outputs_nonfinite = 0;  // in the whole run, by the manifest's stats
  std::vector<std::string> notes;
};

struct nonfinite_report {
  std::string dir;
  std::vector<nonfinite_run> runs;
  std::string error;
  bool found() const {
    for (const nonfinite_run& r : runs)
      if (r.found) return true;
    return false;
  }
  int exit_code() const { return !error.empty() ? 2 : found() ? 1 : 0; }
};

namespace nonfinite_impl {

// Counts from the data file; false (with *error) when it cannot be read.
inline bool measure(const dump_tensor& t, nonfinite_tensor* out, std::string* error) {
  npy_file file;
  health h;
  if (!file.open(t.file, error) || !file.health_of_all(&h, error)) return false;
  out->count = h.count;
  out->nan = h.nan;
  out->pos_inf = h.pos_inf;
  out->neg_inf = h.neg_inf;
  out->known = out->verified = true;
  return true;
}

inline nonfinite_tensor from_stats(const dump_tensor& t) {
  nonfinite_tensor n;
  n.key = t.key;
  n.slot = t.slot;
  n.producer = t.producer;
  n.file = t.file;
  if (t.have_stats) {
    n.known = true;
    n.count = t.stats.count;
    n.nan = t.stats.nan;
    n.pos_inf = t.stats.pos_inf;
    n.neg_inf = t.stats.neg_inf;
  }
  return n;
}

inline bool scan(const dump_run& run, bool has_step, int64_t step, nonfinite_run* out, std::string* error) {
  out->name = run.name;
  out->notes = run.notes;
  std::vector<const dump_tensor*> order;
  for (const dump_tensor& t : run.tensors)
    if (!has_step || t.step == step) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const dump_tensor* x, const dump_tensor* y) {
    return x->seq != y->seq ? x->seq < y->seq : x->is_input && !y->is_input;
  });
  struct hit {
    const dump_tensor* t;
    nonfinite_tensor n;
  };
  std::vector<hit> hits;  // the outputs holding NaN/Inf, in sequence order
  for (const dump_tensor* t : order) {
    if (t->is_input) continue;
    ++out->outputs_scanned;
    nonfinite_tensor n = from_stats(*t);
    if (!n.known && !t->file.empty() && !measure(*t, &n, error)) return false;
    if (!n.known) {
      ++out->outputs_unknown;
      continue;
    }
    if (!n.nonfinite()) continue;
    ++out->outputs_nonfinite;
    hits.push_back(hit{t, n});
  }
  // The earliest op holding NaN/Inf that encloses none that does. Its outputs are counted
  // from their files: one the manifest miscounted is dropped, and the op chosen again (an
  // op that enclosed only it no longer yields).
  while (!hits.empty()) {
    std::vector<uint64_t> seqs;
    for (const hit& h : hits) seqs.push_back(h.t->seq);
    const std::unordered_set<uint64_t> outer = enclosing_ops(run, seqs);
    auto first = std::find_if(hits.begin(), hits.end(), [&](const hit& h) { return !outer.count(h.t->seq); });
    if (first == hits.end()) first = hits.begin();  // parents in a cycle: a hand-made manifest
    const std::string op_key = first->t->op_key();
    bool dropped = false;
    for (auto h = hits.begin(); h != hits.end();) {
      if (h->t->op_key() != op_key || h->t->file.empty() || h->n.verified) {
        ++h;
        continue;
      }
      nonfinite_tensor check = h->n;
      if (!measure(*h->t, &check, error)) return false;
      if (check.nonfinite()) {
        h->n = check;
        ++h;
        continue;
      }
      out->notes.push_back(h->t->key + ": the manifest counts NaN/Inf but the data file has none; skipped");
      --out->outputs_nonfinite;
      h = hits.erase(h);
      dropped = true;
    }
    if (dropped) continue;
    const dump_tensor* t = first->t;
    out->found = true;
    out->seq = t->seq;
    out->step = t->step;
    out->op_key = op_key;
    out->op = t->op;
    out->type = t->type;
    for (const hit& h : hits)
      if (h.t->op_key() == op_key) out->outputs.push_back(h.n);
    break;
  }
  if (!out->found) return true;
  std::unordered_map<std::string, int64_t> output_step;  // with --step: every output of the run, by key
  if (has_step)
    for (const dump_tensor& t : run.tensors)
      if (!t.is_input) output_step.emplace(t.key, t.step);
  for (const dump_tensor* t : order) {
    if (!t->is_input || t->op_key() != out->op_key) continue;
    nonfinite_tensor n = from_stats(*t);
    if (!t->file.empty() && !measure(*t, &n, error)) return false;
    for (const dump_producer& p : t->producers) {
      auto it = output_step.find(p.key);
      if (it != output_step.end() && it->second != step) {
        n.outside_producer = p.key;
        n.outside_step = it->second;
        break;
      }
    }
    out->inputs.push_back(n);
  }
  return true;
}

}  // namespace nonfinite_impl

inline nonfinite_report find_first_nonfinite(const std::string& dir, bool has_step = false, int64_t step = 0) {
  nonfinite_report r;
  r.dir = dir;
  std::vector<dump_run> runs;
  if (!read_dump(dir, &runs, &r.error)) return r;
  for (const dump_run& run : runs) {
    r.runs.emplace_back();
    if (!nonfinite_impl::scan(run, has_step, step, &r.runs.back(), &r.error)) {
      r.runs.clear();
      return r;
    }
  }
  return r;
}

inline std::string nonfinite_counts(const nonfinite_tensor& t) {
  return std::to_string(t.nan) + " NaN, " + std::to_string(t.pos_inf) + " +Inf, " + std::to_string(t.neg_inf) +
         " -Inf of " + std::to_string(t.count);
}

inline std::string nonfinite_text(const nonfinite_report& r) {
  if (!r.error.empty()) return "error: " + r.error + "\n";
  std::string out;
  for (const nonfinite_run& run : r.runs) {
    const std::string prefix = run.name.empty() ? "" : ::probe::detail::printable(run.name) + ": ";
    for (const std::string& n : run.notes) out += prefix + "note: " + ::probe::detail::printable(n) + "\n";
    if (!run.found) {
      out += prefix + "no NaN or Inf in the " + std::to_string(run.outputs_scanned) + " op outputs of " + ::probe::detail::printable(r.dir) +
             (run.outputs_unknown ? " (" + std::to_string(run.outputs_unknown) + " without stats or data not checked)" : "") +
             ".\n";
      continue;
    }
    out += prefix + "First non-finite output: op " + ::probe::detail::printable(run.op_key) + (run.type.empty() ? "" : " (" + ::probe::detail::printable(run.type) + ")") +
           " at seq " + std::to_string(run.seq) + ", step " + std::to_string(run.step) + ".\n";
    for (const nonfinite_tensor& t : run.outputs)
      out += prefix + "  output " + ::probe::detail::printable(t.key) + ": " + nonfinite_counts(t) + (t.verified ? " (counted from the data)" : " (manifest stats)") + "\n";
    bool inputs_finite = true;
    const nonfinite_tensor* outside = nullptr;  // a non-finite input whose producer --step left out
    for (const nonfinite_tensor& t : run.inputs) {
      out += prefix + "  input " + ::probe::detail::printable(t.key) + ": " +
             (t.known ? (t.nonfinite() ? nonfinite_counts(t) : "all finite") : std::string("not known")) +
             (t.producer.empty() ? " (graph input)" : " (from " + ::probe::detail::printable(t.producer) + ")") + "\n";
      inputs_finite = inputs_finite && t.known && !t.nonfinite();
      if (!outside && t.nonfinite() && !t.outside_producer.empty()) outside = &t;
    }
    // As compare's hints say it: a producer --step left out was dumped, it is not "not dumped".
    const std::string already =
        outside ? "  An input already holds NaN/Inf: " + ::probe::detail::printable(outside->key) + " comes from " +
                      ::probe::detail::printable(outside->outside_producer) + ",\n" + prefix + "  outside --step (step " +
                      std::to_string(outside->outside_step) + "): compare without --step to follow it."
                : "  An input already holds NaN/Inf (a graph input, or an op that was not dumped).";
    out += prefix + (run.inputs.empty() ? "  The op has no recorded inputs."
                     : inputs_finite ? "  Its inputs are all finite: this op made the NaN/Inf."
                                     : already) +
           "\n";
    out += prefix + "  " + std::to_string(run.outputs_nonfinite) + " of " + std::to_string(run.outputs_scanned) +
           " op outputs hold NaN/Inf.\n";
  }
  return out;
}

inline std::string nonfinite_json(const nonfinite_report& r) {
  std::string out;
  json::writer w(out);
  w.begin_object().member("format", "probe-nonfinite-1").member("dir", r.dir);
  w.key("error");
  if (r.error.empty()) w.null(); else w.value(r.error);
  w.member("found", r.found()).key("runs").begin_array();
  auto tensors = [&](const char* k, const std::vector<nonfinite_tensor>& v) {
    w.key(k).begin_array();
    for (const nonfinite_tensor& t : v) {
      w.begin_object().member("key", t.key).member("known", t.known).member("verified", t.verified);
      w.member("count", static_cast<long long>(t.count)).member("nan", static_cast<long long>(t.nan));
      w.member("posinf", static_cast<long long>(t.pos_inf)).member("neginf", static_cast<long long>(t.neg_inf));
      w.key("producer");
      if (t.producer.empty()) w.null(); else w.value(t.producer);
      w.key("producer_outside_step");  // the producer's step when --step left it out
      if (t.outside_producer.empty()) w.null(); else w.value(static_cast<long long>(t.outside_step));
      w.end_object();
    }
    w.end_array();
  };
  for (const nonfinite_run& run : r.runs) {
    w.begin_object().key("name");
    if (run.name.empty()) w.null(); else w.value(run.name);
    w.member("found", run.found);
    if (run.found) {
      w.member("op_key", run.op_key).member("op", run.op).member("type", run.type);
      w.member("seq", static_cast<unsigned long long>(run.seq)).member("step", static_cast<long long>(run.step));
      tensors("outputs", run.outputs);
      tensors("inputs", run.inputs);
    }
    w.member("outputs_scanned", static_cast<unsigned long long>(run.outputs_scanned));
    w.member("outputs_nonfinite", static_cast<unsigned long long>(run.outputs_nonfinite));
    w.end_object();
  }
  w.end_array().end_object();
  out += '\n';
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
