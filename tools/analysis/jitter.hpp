// probe jitter's analysis: runs of one program compared with its first run. An op whose inputs
// match and whose output differs between runs of the same build computes differently each
// time (atomics, reductions in thread-completion order): it is non-deterministic, and the ops
// its difference reaches only inherit it. Standalone header.
//
//   probe::analysis::jitter_report j;
//   j.runs = 3;
//   j.add(probe::analysis::compare_paths("run_1", "run_0", settings));  // once per later run
//   text = probe::analysis::jitter_text(j);
#pragma once
#include <stdio.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <probe/formats/json.hpp>

#include "compare_run.hpp"

namespace probe {
namespace analysis {

// One op that differs between runs while its inputs match.
struct jitter_op {
  std::string key;  // "op#occurrence" (with "rank_0003/" before it in multi-rank dumps)
  std::string op, type;
  uint64_t seq = 0;
  size_t runs_differing = 0;  // of the later runs, how many differ from the first here
  double max_abs = 0, max_rel = 0;  // over its outputs and runs
  int64_t elements = 0, count = 0;  // differing elements (the most in one run) of `count`
};

struct jitter_report {
  size_t runs = 0;                  // runs made (the first is the reference)
  std::vector<jitter_op> ops;       // sequence order
  std::set<std::string> inheritors; // ops whose output differs only because an earlier one did
  std::set<std::string> fed;        // inputs nothing produced that differ: the engine fed other data
  size_t one_sided = 0;             // tensors recorded in some runs only (the runs took other paths)
  std::vector<std::string> notes;
  std::string error;

  // Adds the comparison of one later run (A) with the first run (B).
  void add(const compare_report& c) {
    if (!c.error.empty()) {
      error = c.error;
      return;
    }
    one_sided += c.counts.only_a + c.counts.only_b;
    for (const compared_run& run : c.runs) {
      const std::string prefix = run.name.empty() ? std::string() : run.name + "/";
      const graph_answers& g = run.graph;
      std::set<size_t> roots;
      for (const root_cause& r : g.roots) {
        if (r.kind != root_kind::op) {
          if (r.is_input && r.input < run.pairs.size()) fed.insert(prefix + run.pairs[r.input].key);
          continue;
        }
        roots.insert(r.node);
        add_root(prefix, run, g.nodes[r.node]);
      }
      for (const root_cause& r : g.roots)
        for (size_t n : r.reaches)
          if (!roots.count(n)) inheritors.insert(prefix + g.nodes[n].op_key);
    }
  }

  // 0 every run agrees, 1 something differs between runs, 2 bad input.
  int exit_code() const {
    if (!error.empty()) return 2;
    return ops.empty() && fed.empty() && one_sided == 0 ? 0 : 1;
  }

 private:
  void add_root(const std::string& prefix, const compared_run& run, const op_node& n) {
    const std::string key = prefix + n.op_key;
    auto it = std::find_if(ops.begin(), ops.end(), [&](const jitter_op& o) { return o.key == key; });
    if (it == ops.end()) {
      jitter_op o;
      o.key = key;
      o.op = n.op;
      o.type = n.type;
      o.seq = n.seq;
      ops.push_back(o);
      std::sort(ops.begin(), ops.end(), [](const jitter_op& a, const jitter_op& b) { return a.seq < b.seq; });
      it = std::find_if(ops.begin(), ops.end(), [&](const jitter_op& x) { return x.key == key; });
    }
    ++it->runs_differing;
    int64_t elements = 0, count = 0;
    for (size_t p : n.outputs) {
      const tensor_metrics& m = run.pairs[p].metrics;
      if (!m.compared) continue;
      it->max_abs = std::max(it->max_abs, m.max_abs);
      it->max_rel = std::max(it->max_rel, m.max_rel);
      elements += m.fail;
      count += m.count;
    }
    it->elements = std::max(it->elements, elements);
    it->count = std::max(it->count, count);
  }
};

inline std::string jitter_number(double v) {
  char b[32];
  snprintf(b, sizeof b, "%.3g", v);
  return b;
}

inline std::string jitter_text(const jitter_report& j) {
  std::string s = "probe jitter: " + std::to_string(j.runs) + " runs, each compared with the first\n";
  for (const std::string& n : j.notes) s += n + "\n";
  if (j.exit_code() == 0) return s + "Every run agrees: no op differs between runs.\n";
  if (!j.ops.empty()) {
    s += "\nNon-deterministic ops (inputs match, output differs between runs):\n";
    for (const jitter_op& o : j.ops)
      s += "  " + o.key + (o.type.empty() ? "" : " [" + o.type + "]") + "  max |a-b| " + jitter_number(o.max_abs) +
           ", max rel " + jitter_number(o.max_rel) + ", " + std::to_string(o.elements) + " of " +
           std::to_string(o.count) + " elements, in " + std::to_string(o.runs_differing) + " of " +
           std::to_string(j.runs - 1) + " runs\n";
  }
  if (!j.inheritors.empty()) {
    s += "\nOps that only inherit it (" + std::to_string(j.inheritors.size()) + "):";
    size_t shown = 0;
    for (const std::string& k : j.inheritors) {
      if (shown++ == 12) {
        s += " ...";
        break;
      }
      s += " " + k;
    }
    s += "\n";
  }
  if (!j.fed.empty()) {
    s += "\nInputs nothing produced differ between runs (the program fed other data: a seed, the time?):";
    for (const std::string& k : j.fed) s += " " + k;
    s += "\n";
  }
  if (j.one_sided) s += "\n" + std::to_string(j.one_sided) + " tensors were recorded in some runs only: the runs took other paths.\n";
  s += "\nAsk the engine for deterministic algorithms with --probe_reproducible (probe::reproducible_mode()), then "
       "compare again.\n";
  return s;
}

inline std::string jitter_json(const jitter_report& j) {
  std::string out;
  json::writer w(out);
  w.begin_object().member("runs", static_cast<long long>(j.runs)).member("exit_code", j.exit_code());
  w.key("ops").begin_array();
  for (const jitter_op& o : j.ops) {
    w.begin_object().member("key", o.key).member("op", o.op).member("type", o.type);
    w.member("seq", static_cast<long long>(o.seq)).member("runs_differing", static_cast<long long>(o.runs_differing));
    w.member("max_abs", o.max_abs).member("max_rel", o.max_rel);
    w.member("elements", static_cast<long long>(o.elements)).member("count", static_cast<long long>(o.count));
    w.end_object();
  }
  w.end_array();
  w.key("inheritors").begin_array();
  for (const std::string& k : j.inheritors) w.value(k);
  w.end_array();
  w.key("fed").begin_array();
  for (const std::string& k : j.fed) w.value(k);
  w.end_array();
  w.member("one_sided", static_cast<long long>(j.one_sided));
  w.end_object();
  return out + "\n";
}

}  // namespace analysis
}  // namespace probe
