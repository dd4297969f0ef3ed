// The graph answers of `probe compare`, from the manifest's producer edges (never from the
// order of files or lines):
// - the first divergent op: the earliest op execution (by sequence number) with an output
//   out of tolerance (an op that encloses a divergent nested op yields to it);
// - root causes: op executions with a mismatching output all of whose inputs match, and
//   inputs that differ while nothing dumped before them does (graph inputs fed different
//   data, or a buffer changed between its producer and this consumer);
// - for each root, the op executions its error reaches: consumers whose outputs mismatch,
//   followed from mismatching output to consumer, and on to enclosing ops.
// NaN/Inf disagreements and shape mismatches are mismatches like any other. An input with
// nothing to compare (not dumped, no data, one side only) takes its producer's verdict, and
// counts as matching when there is none. Standalone header, plain inline.
#pragma once
#include <stdint.h>

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
  uint64_t seq = 0, parent = 0;
  std::vector<size_t> inputs, outputs;  // pair indices
  bool mismatch = false;                // an output out of tolerance
  bool inner_mismatch = false;          // a nested op execution mismatches
};

struct root_cause {
  bool is_input = false;  // a differing input (pair `input`) rather than an op
  size_t node = 0;        // the op (or, for an input, the op consuming it)
  size_t input = 0;       // pair index, for is_input
  std::vector<size_t> reaches;  // nodes, in sequence order
};

struct graph_answers {
  bool available = false;  // false for folders of plain .npy files
  std::vector<op_node> nodes;  // sequence order
  long first_divergence = -1;  // node index
  std::vector<root_cause> roots;
  std::vector<size_t> unexplained;  // mismatching nodes no root reaches (should not happen)
};

namespace graph_impl {

// The verdict on a pair for root finding: 1 mismatch, 0 match, -1 nothing to compare.
inline int verdict(const compared_pair& p) {
  if (status_mismatch(p.status)) return 1;
  if (p.status == pair_status::ok) return 0;
  return -1;
}

}  // namespace graph_impl

inline graph_answers analyze_graph(const std::vector<compared_pair>& pairs) {
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
      g.nodes.push_back(std::move(n));
      node_by_seq.emplace(p.seq, it->second);
    }
    op_node& n = g.nodes[it->second];
    (p.is_input ? n.inputs : n.outputs).push_back(i);
    if (!p.is_input) {
      output_pair.emplace(p.key, i);
      if (graph_impl::verdict(p) == 1) n.mismatch = true;
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
  // an input's verdict: its own comparison, else its producer's
  auto input_verdict = [&](const compared_pair& in) {
    const int v = graph_impl::verdict(in);
    if (v >= 0) return v;
    auto it = output_pair.find(in.producer);
    if (in.producer.empty() || it == output_pair.end()) return 0;
    return graph_impl::verdict(pairs[it->second]) == 1 ? 1 : 0;
  };
  // consumers of each output key
  std::unordered_map<std::string, std::vector<size_t>> consumers;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    for (size_t pi : g.nodes[ni].inputs)
      if (!pairs[pi].producer.empty()) consumers[pairs[pi].producer].push_back(ni);

  std::vector<char> reached(g.nodes.size(), 0);
  auto spread = [&](size_t start, root_cause& root) {
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
        if (graph_impl::verdict(pairs[pi]) != 1) continue;
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
      if (seen[ni]) {
        reached[ni] = 1;
        if (ni != start || root.is_input) root.reaches.push_back(ni);
      }
  };

  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const op_node& n = g.nodes[ni];
    bool inputs_match = true;
    for (size_t pi : n.inputs) {
      const compared_pair& in = pairs[pi];
      if (input_verdict(in) != 1) continue;
      inputs_match = false;
      // a differing input is a root when what produced it was not seen to differ
      auto it = output_pair.find(in.producer);
      const bool producer_differs = !in.producer.empty() && it != output_pair.end() &&
                                    graph_impl::verdict(pairs[it->second]) == 1;
      if (!producer_differs) {
        root_cause r;
        r.is_input = true;
        r.node = ni;
        r.input = pi;
        if (n.mismatch) spread(ni, r);
        g.roots.push_back(std::move(r));
      }
    }
    if (n.mismatch && inputs_match && !n.inner_mismatch) {
      root_cause r;
      r.node = ni;
      spread(ni, r);
      g.roots.push_back(std::move(r));
    }
  }
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const op_node& n = g.nodes[ni];
    if (!n.mismatch) continue;
    if (!n.inner_mismatch && (g.first_divergence < 0 || n.seq < g.nodes[static_cast<size_t>(g.first_divergence)].seq))
      g.first_divergence = static_cast<long>(ni);
    if (!reached[ni]) g.unexplained.push_back(ni);
  }
  return g;
}

}  // namespace analysis
PROBE_END_NAMESPACE
