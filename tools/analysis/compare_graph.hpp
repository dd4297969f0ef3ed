// The graph answers of `probe compare`, from the manifest's data-flow records (never from the
// order of files or lines):
// - the first divergent op: the earliest op execution (by sequence number) with an output
//   out of tolerance (an op that encloses a divergent nested op yields to it);
// - root causes: op executions with a mismatching output all of whose inputs match, and
//   inputs that differ while nothing recorded before them does (graph inputs fed different
//   data, a producer that was not dumped). An input that is the prior state of what the op
//   overwrites (inout, implicit) may differ: the op is still a root when some element of its
//   output fails where that prior state passed (compare_details.hpp counts them);
// - hints, not root causes: inputs whose bytes were written by code outside any op after
//   their producer ("stale", or a producer that matched while the input does not), inputs
//   whose producer lies outside --step, or ran in one run only;
// - for each root and hint, the op executions its error reaches: consumers (of any byte
//   range, "producers") whose outputs mismatch, and on to enclosing ops.
// Inputs read their producers per byte range: an input written in parts by several ops
// differs because of whichever of them differs. Only ops present in both runs are judged.
// Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "compare_inputs.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// One op execution.
struct op_node {
  std::string op_key;  // op#occurrence
  std::string op, type;
  uint64_t seq = 0, parent = 0, seq_b = 0;  // seq_b: its sequence number in B (0: not in B)
  uint64_t lane = 0;                         // its thread lineage (compare_lanes.hpp)
  bool ambiguous = false;                    // its pairing cannot be trusted: it is not judged
  int64_t step = 0;
  std::vector<size_t> inputs, outputs;  // pair indices
  bool in_a = false, in_b = false;      // some tensor of it was recorded in A / in B
  bool mismatch = false;                // an output out of tolerance
  bool inner_mismatch = false;          // a nested op execution mismatches
  bool paired() const { return in_a && in_b; }
};

enum class root_kind : uint8_t {
  op,                // an op whose inputs match while an output does not
  graph_input,       // an input nothing produced differs: the runs were fed different data
  producer_missing,  // an input differs and its producer was not dumped in either run
};

inline const char* root_kind_name(root_kind k) {
  switch (k) {
    case root_kind::graph_input: return "graph_input";
    case root_kind::producer_missing: return "producer_missing";
    default: return "op";
  }
}

struct root_cause {
  root_kind kind = root_kind::op;
  bool is_input = false;  // kind != op: a differing input (pair `input`) rather than an op
  size_t node = 0;        // the op (or, for an input, the op consuming it)
  size_t input = 0;       // pair index, for is_input
  std::vector<size_t> reaches;  // nodes, in sequence order
  double severity = 0;    // the largest error relative to the tensor's scale (inf: NaN, shape)
  bool rounding = false;  // every failure of it is rounding-level (compare_findings.hpp)
};

enum class hint_kind : uint8_t {
  outside_op,         // written by code outside any op between producer and consumer
  outside_step,       // the producer was recorded at another step than --step
  unpaired_producer,  // the producer ran in one run only
};

inline const char* hint_kind_name(hint_kind k) {
  switch (k) {
    case hint_kind::outside_step: return "outside_step";
    case hint_kind::unpaired_producer: return "unpaired_producer";
    default: return "outside_op";
  }
}

// One place (producer op, consumer op, slot) across its occurrences and steps.
struct graph_hint {
  hint_kind kind = hint_kind::outside_op;
  std::string producer_op, consumer_op, slot;  // op names: the place
  std::string producer_key, last_op;           // of the first occurrence
  int64_t producer_step = 0;                   // outside_step: where the producer is
  std::string only_in;                         // unpaired_producer: "A" or "B"
  std::vector<size_t> inputs;                  // pair indices, every occurrence
  size_t differing = 0;                        // of them, how many differ
  std::vector<size_t> reaches;
};

struct graph_answers {
  bool available = false;  // false for folders of plain .npy files
  std::vector<op_node> nodes;  // sequence order
  long first_divergence = -1;  // node index
  std::vector<root_cause> roots;
  std::vector<graph_hint> hints;
  std::vector<size_t> unexplained;  // mismatching nodes no root or hint reaches
};

// What the graph needs besides the pairs: output keys --step left out (key -> step).
struct graph_context {
  const std::unordered_map<std::string, int64_t>* outside_step = nullptr;
};

namespace graph_impl {

// The verdict on a pair for root finding: 1 mismatch, 0 match, -1 nothing to compare.
inline int verdict(const compared_pair& p) {
  if (status_mismatch(p.status)) return 1;
  if (p.status == pair_status::ok) return 0;
  return -1;
}

inline bool stale_from(const compared_pair& in, const std::string& producer) {
  return (!in.a.stale_producer.empty() && in.a.stale_producer == producer) ||
         (!in.b.stale_producer.empty() && in.b.stale_producer == producer);
}

// Some bytes of the input were written by no op (the producers' byte counts cover less than
// the input); unknown (false) when a producer has no byte count (old dumps).
inline bool partly_unproduced(const compared_pair& in) {
  uint64_t covered = 0;
  for (const dump_producer& p : in.producers) {
    if (!p.bytes) return false;
    covered += p.bytes;
  }
  const pair_side& s = in.a.present ? in.a : in.b;
  uint64_t bytes = dtype_size(s.type);
  for (int i = 0; i < s.ndim; ++i) bytes *= static_cast<uint64_t>(s.shape[i]);
  return bytes > 0 && covered < bytes;
}

inline std::string op_name_of_key(const std::string& key) {
  const size_t hash = key.find('#');
  return hash == std::string::npos ? key : key.substr(0, hash);
}

}  // namespace graph_impl

inline graph_answers analyze_graph(const std::vector<compared_pair>& pairs, const graph_context& ctx = graph_context()) {
  using graph_impl::verdict;
  graph_answers g;
  g.available = true;
  std::unordered_map<std::string, size_t> node_of, output_pair;
  std::unordered_map<uint64_t, size_t> node_by_seq;
  for (size_t i = 0; i < pairs.size(); ++i) {  // pairs are in sequence order
    const compared_pair& p = pairs[i];
    const std::string k = p.op_key();
    auto it = node_of.find(k);
    if (it == node_of.end()) {
      it = node_of.emplace(k, g.nodes.size()).first;
      op_node n;
      n.op_key = k;
      n.op = p.op;
      n.type = p.type;
      n.seq = p.seq;
      n.parent = p.parent;
      n.lane = p.lane;
      n.step = p.step;
      g.nodes.push_back(std::move(n));
      node_by_seq.emplace(p.seq, it->second);
    }
    op_node& n = g.nodes[it->second];
    n.in_a = n.in_a || p.a.present;
    n.in_b = n.in_b || p.b.present;
    n.ambiguous = n.ambiguous || p.ambiguous;
    if (p.b.present && !n.seq_b) n.seq_b = p.b.seq;
    (p.is_input ? n.inputs : n.outputs).push_back(i);
    if (!p.is_input) {
      output_pair.emplace(p.key, i);
      if (verdict(p) == 1) n.mismatch = true;
    }
  }
  // enclosing ops of a mismatching op know it
  for (const op_node& n : g.nodes) {
    if (!n.mismatch) continue;
    uint64_t parent = n.parent;
    for (int depth = 0; parent && depth < 64; ++depth) {
      auto it = node_by_seq.find(parent);
      if (it == node_by_seq.end()) break;
      g.nodes[it->second].inner_mismatch = true;
      parent = g.nodes[it->second].parent;
    }
  }
  // The producers that are edges of an input: stale ones are not (their bytes were overwritten).
  auto edges = [&](const compared_pair& in) {
    std::vector<std::string> out;
    for (const dump_producer& pr : in.producers)
      if (!graph_impl::stale_from(in, pr.key) && std::find(out.begin(), out.end(), pr.key) == out.end())
        out.push_back(pr.key);
    return out;
  };
  auto producer_verdict = [&](const std::string& key) {
    auto it = output_pair.find(key);
    return it == output_pair.end() ? -1 : verdict(pairs[it->second]);
  };
  // an input's verdict: its own comparison, else its producers' (any differing: differs)
  auto input_verdict = [&](const compared_pair& in) {
    const int v = verdict(in);
    if (v >= 0) return v;
    for (const std::string& k : edges(in))
      if (producer_verdict(k) == 1) return 1;
    return 0;
  };
  std::unordered_map<std::string, std::vector<size_t>> consumers;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    for (size_t pi : g.nodes[ni].inputs)
      for (const std::string& k : edges(pairs[pi])) consumers[k].push_back(ni);

  std::vector<char> reached(g.nodes.size(), 0);
  // Mismatching nodes downstream of `start` (itself excluded unless include_start).
  auto spread = [&](size_t start, bool include_start, std::vector<size_t>* out) {
    std::vector<char> seen(g.nodes.size(), 0);
    std::vector<size_t> todo{start};
    seen[start] = 1;
    while (!todo.empty()) {
      const size_t ni = todo.back();
      todo.pop_back();
      const op_node& n = g.nodes[ni];
      auto visit = [&](size_t next) {
        if (seen[next] || !g.nodes[next].mismatch) return;
        seen[next] = 1;
        todo.push_back(next);
      };
      for (size_t pi : n.outputs) {
        if (verdict(pairs[pi]) != 1) continue;
        auto it = consumers.find(pairs[pi].key);
        if (it != consumers.end())
          for (size_t c : it->second) visit(c);
      }
      if (n.parent) {
        auto it = node_by_seq.find(n.parent);
        if (it != node_by_seq.end()) visit(it->second);
      }
    }
    for (size_t ni = 0; ni < g.nodes.size(); ++ni)
      if (seen[ni] && (g.nodes[ni].mismatch || ni != start)) {
        reached[ni] = 1;
        if (ni != start || include_start) out->push_back(ni);
      }
  };
  std::unordered_map<std::string, size_t> hint_of;  // place -> hint index
  auto add_hint = [&](hint_kind kind, size_t ni, size_t pi, const std::string& producer, bool differs) {
    const compared_pair& in = pairs[pi];
    const std::string place = std::to_string(static_cast<int>(kind)) + "\n" + graph_impl::op_name_of_key(producer) +
                              "\n" + g.nodes[ni].op + "\n" + in.slot;
    auto it = hint_of.find(place);
    if (it == hint_of.end()) {
      it = hint_of.emplace(place, g.hints.size()).first;
      graph_hint h;
      h.kind = kind;
      h.producer_op = graph_impl::op_name_of_key(producer);
      h.consumer_op = g.nodes[ni].op;
      h.slot = in.slot;
      h.producer_key = producer;
      h.last_op = !in.a.stale_last_op.empty() ? in.a.stale_last_op : in.b.stale_last_op;
      if (kind == hint_kind::outside_step && ctx.outside_step) h.producer_step = ctx.outside_step->at(producer);
      if (kind == hint_kind::unpaired_producer) {
        auto op = output_pair.find(producer);
        h.only_in = op != output_pair.end() && pairs[op->second].b.present ? "B" : "A";
      }
      g.hints.push_back(std::move(h));
    }
    graph_hint& h = g.hints[it->second];
    h.inputs.push_back(pi);
    if (differs) {
      ++h.differing;
      if (g.nodes[ni].mismatch) spread(ni, true, &h.reaches);
    }
  };

  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const op_node& n = g.nodes[ni];
    if (!n.paired() || n.ambiguous) continue;  // only ops present in both runs, surely paired, are judged
    bool inputs_match = true, prior_differs = false;
    for (size_t pi : n.inputs) {
      const compared_pair& in = pairs[pi];
      const int v = input_verdict(in);
      // bytes written outside any op: a hint at its place, whether or not they differ
      std::string stale = !in.a.stale_producer.empty() ? in.a.stale_producer : in.b.stale_producer;
      if (v != 1) {
        if (!stale.empty()) add_hint(hint_kind::outside_op, ni, pi, stale, false);
        continue;
      }
      // Only an implicit prior state (bytes the op may have left as they were) is judged per
      // element: an op that declared the buffer with inout reads it, and any of its output
      // elements may depend on any element read (a collision mixes a cell's populations).
      if (in.prior_state() && in.implicit) prior_differs = true;
      else inputs_match = false;
      const std::vector<std::string> from = edges(in);
      bool producer_differs = false, outside = false, missing = false, matched = false;
      std::string unpaired, outside_key, matched_key;
      for (const std::string& k : from) {
        const int pv = producer_verdict(k);
        if (pv == 1) producer_differs = true;
        auto op = output_pair.find(k);
        if (op == output_pair.end()) {
          if (ctx.outside_step && ctx.outside_step->count(k)) {
            outside = true;
            outside_key = k;
          } else {
            missing = true;
          }
        } else if (pairs[op->second].status == pair_status::only_a || pairs[op->second].status == pair_status::only_b) {
          unpaired = k;
        } else if (pv == 0) {
          matched = true;
          matched_key = k;
        }
      }
      if (producer_differs) {
        if (!stale.empty()) add_hint(hint_kind::outside_op, ni, pi, stale, false);
        continue;
      }
      if (outside) {
        add_hint(hint_kind::outside_step, ni, pi, outside_key, true);
      } else if (!unpaired.empty()) {
        add_hint(hint_kind::unpaired_producer, ni, pi, unpaired, true);
      } else if (missing) {
        root_cause r;
        r.kind = root_kind::producer_missing;
        r.is_input = true;
        r.node = ni;
        r.input = pi;
        if (n.mismatch) spread(ni, true, &r.reaches);
        g.roots.push_back(std::move(r));
      } else if (stale.empty() && matched && graph_impl::partly_unproduced(in)) {
        // the producers wrote only part of it and what they wrote matched: the rest was fed
        root_cause r;
        r.kind = root_kind::graph_input;
        r.is_input = true;
        r.node = ni;
        r.input = pi;
        if (n.mismatch) spread(ni, true, &r.reaches);
        g.roots.push_back(std::move(r));
      } else if (!stale.empty() || matched) {
        // what its producer wrote matched; the bytes read do not: code outside any op wrote them
        add_hint(hint_kind::outside_op, ni, pi, stale.empty() ? matched_key : stale, true);
      } else if (in.producers.empty() || from.empty()) {
        root_cause r;
        r.kind = root_kind::graph_input;
        r.is_input = true;
        r.node = ni;
        r.input = pi;
        if (n.mismatch) spread(ni, true, &r.reaches);
        g.roots.push_back(std::move(r));
      }
    }
    // An op overwriting a buffer whose earlier state differs is a root only for elements it
    // got wrong where that state was right.
    bool fresh = false;
    for (size_t po : n.outputs) fresh = fresh || pairs[po].fresh_fail > 0;
    if (n.mismatch && inputs_match && (!prior_differs || fresh) && !n.inner_mismatch) {
      root_cause r;
      r.node = ni;
      spread(ni, false, &r.reaches);
      g.roots.push_back(std::move(r));
    }
  }
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const op_node& n = g.nodes[ni];
    if (!n.mismatch || n.ambiguous) continue;
    if (!n.inner_mismatch && (g.first_divergence < 0 || n.seq < g.nodes[static_cast<size_t>(g.first_divergence)].seq))
      g.first_divergence = static_cast<long>(ni);
    if (!reached[ni]) g.unexplained.push_back(ni);
  }
  for (graph_hint& h : g.hints) {
    std::sort(h.reaches.begin(), h.reaches.end());
    h.reaches.erase(std::unique(h.reaches.begin(), h.reaches.end()), h.reaches.end());
  }
  return g;
}

}  // namespace analysis
PROBE_END_NAMESPACE
