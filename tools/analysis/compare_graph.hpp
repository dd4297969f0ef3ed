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
//   their producer ("stale", or a producer that matched while the input, judged the same way,
//   does not), inputs whose producer lies outside --step, or ran in one run only. Only what
//   shows outside code gives that hint: an implicit prior state (it may hold the op's own
//   result), an input seen with another shape or dtype, one judged with another tolerance or
//   by statistics where its producer was judged by data, or one the manifest's hashes show to
//   hold its producer's bytes, never does. An input no op wrote that holds, in both runs, the
//   bytes of an earlier output that differs is a copy made outside any op: a hint too, not a
//   graph input;
// - for each root and hint, the op executions its error reaches: consumers (of any byte
//   range, "producers") whose outputs mismatch, and on to enclosing ops.
// Inputs read their producers per byte range: an input written in parts by several ops
// differs because of whichever of them differs. Only ops present in both runs are judged.
// Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compare_converted.hpp"
#include "compare_inputs.hpp"
#include "compare_verdicts.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// One op execution.
struct op_node {
  std::string op_key;  // op#occurrence
  std::string op_key_b;  // B's own op#occurrence when pairing renamed it ("": op_key)
  std::string op, type;
  uint64_t seq = 0, parent = 0, seq_b = 0;  // seq_b: its sequence number in B (0: not in B)
  uint64_t lane = 0;                         // its thread lineage (compare_lanes.hpp)
  bool ambiguous = false;                    // its pairing cannot be trusted: it is not judged
  int64_t step = 0;
  std::vector<size_t> inputs, outputs;  // pair indices
  bool in_a = false, in_b = false;      // some tensor of it was recorded in A / in B
  bool mismatch = false;                // an output out of tolerance
  bool inner_mismatch = false;          // a nested op execution mismatches
  bool carries = false;                 // an output differs, or passed by statistics alone while an input differs
  bool paired() const { return in_a && in_b; }
};

// The op's key as a user finds it in a dump: B's own for an op only B ran.
inline const std::string& own_op_key(const op_node& n) { return !n.in_a && !n.op_key_b.empty() ? n.op_key_b : n.op_key; }

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
  unlinked_copy,      // no producer, but the bytes of an earlier output in both runs: a copy
};

inline const char* hint_kind_name(hint_kind k) {
  switch (k) {
    case hint_kind::outside_step: return "outside_step";
    case hint_kind::unpaired_producer: return "unpaired_producer";
    case hint_kind::unlinked_copy: return "unlinked_copy";
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
  std::string converted;                       // unlinked_copy of values cast to another dtype: "float32 -> float64"
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
  // Ops whose output fails while their inputs pass, but carry (within tolerance) the difference
  // of an earlier root: {node, root index}. Not roots: they grow an error they were handed.
  std::vector<std::pair<size_t, size_t>> regrown;
  uint64_t visits = 0;  // nodes visited while following errors: grows with the graph, not its square
  uint64_t cast_checks = 0;  // outputs whose statistics were held against an input's (cast copies)
};

// What the graph needs besides the pairs: output keys --step left out (key -> step).
struct graph_context {
  const std::unordered_map<std::string, int64_t>* outside_step = nullptr;
};

namespace graph_impl {

// How many earlier outputs of an input's size the lookup for a cast copy tries (latest first).
constexpr size_t k_cast_candidates = 64;

inline std::string op_name_of_key(const std::string& key) {
  const size_t hash = key.find('#');
  return hash == std::string::npos ? key : key.substr(0, hash);
}

}  // namespace graph_impl

inline graph_answers analyze_graph(const std::vector<compared_pair>& pairs, const graph_context& ctx = graph_context()) {
  graph_answers g;
  g.available = true;
  std::unordered_map<std::string, size_t> node_of;
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
    if (p.b.present && n.op_key_b.empty() && !p.b.own_key.empty())
      n.op_key_b = p.b.own_key.substr(0, p.b.own_key.find('/'));
    (p.is_input ? n.inputs : n.outputs).push_back(i);
    if (!p.is_input && status_mismatch(p.status)) n.mismatch = true;
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
  // verdicts for root finding, in sequence order so that producers come first
  pair_verdicts verdict(pairs);
  for (const op_node& n : g.nodes) verdict.set_inputs(n.op_key, &n.inputs);
  for (op_node& n : g.nodes) {
    for (size_t pi : n.inputs) verdict.of(pi);
    n.carries = n.mismatch;
    for (size_t pi : n.outputs) n.carries = verdict.of(pi) == 1 || n.carries;
  }
  std::unordered_map<std::string, std::vector<size_t>> consumers;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    for (size_t pi : g.nodes[ni].inputs) {
      for (const std::string& k : verdict.edges(pairs[pi])) consumers[k].push_back(ni);
      // bytes code outside any op rewrote still carry what their producer wrote into them
      const std::string stale = verdict.stale(pairs[pi]);
      if (!stale.empty()) consumers[stale].push_back(ni);
    }

  // Mismatching nodes downstream of `start` (itself excluded unless include_start), following
  // outputs that differ (or carry a difference under statistics that passed). Each call visits
  // only what it reaches: a stamp per node, no pass over every node.
  std::vector<char> reached(g.nodes.size(), 0);
  std::vector<uint32_t> stamp(g.nodes.size(), 0);
  uint32_t current = 0;
  std::vector<size_t> todo, seen;
  auto spread = [&](size_t start, bool include_start, std::vector<size_t>* out) {
    ++current;
    todo.assign(1, start);
    seen.assign(1, start);
    stamp[start] = current;
    while (!todo.empty()) {
      const size_t ni = todo.back();
      todo.pop_back();
      ++g.visits;
      const op_node& n = g.nodes[ni];
      auto visit = [&](size_t next) {
        if (stamp[next] == current || !g.nodes[next].carries) return;
        stamp[next] = current;
        todo.push_back(next);
        seen.push_back(next);
      };
      for (size_t pi : n.outputs) {
        if (verdict.of(pi) != 1) continue;
        auto it = consumers.find(pairs[pi].key);
        if (it != consumers.end())
          for (size_t c : it->second) visit(c);
      }
      if (n.parent) {
        auto it = node_by_seq.find(n.parent);
        if (it != node_by_seq.end()) visit(it->second);
      }
    }
    std::sort(seen.begin(), seen.end());
    for (size_t ni : seen)
      if (g.nodes[ni].mismatch) {
        reached[ni] = 1;
        if (ni != start || include_start) out->push_back(ni);
      }
  };
  std::unordered_map<std::string, size_t> hint_of;  // place -> hint index
  auto add_hint = [&](hint_kind kind, size_t ni, size_t pi, const std::string& producer, bool differs) -> graph_hint& {
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
        const size_t op = verdict.output(producer);
        h.only_in = op != SIZE_MAX && pairs[op].b.present ? "B" : "A";
      }
      g.hints.push_back(std::move(h));
    }
    graph_hint& h = g.hints[it->second];
    h.inputs.push_back(pi);
    if (differs) {
      ++h.differing;
      if (g.nodes[ni].mismatch) spread(ni, true, &h.reaches);
    }
    return h;
  };
  // The root whose difference reaches each node, through any input that differs at all (also
  // within tolerance): -1 for none. One pass with producers first: in sequence order, except
  // that an op whose input its nested ops wrote (workers filling the parent's output, read
  // back as its prior state) comes after them.
  std::vector<long> carried_from(g.nodes.size(), -1);
  std::vector<size_t> node_of_output(pairs.size(), SIZE_MAX);
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    for (size_t po : g.nodes[ni].outputs) node_of_output[po] = ni;
  std::vector<size_t> order;
  std::vector<std::vector<size_t>> children(g.nodes.size());
  {
    order.reserve(g.nodes.size());
    std::vector<char> state(g.nodes.size(), 0);  // 1: on the path, 2: placed
    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
      auto it = g.nodes[ni].parent ? node_by_seq.find(g.nodes[ni].parent) : node_by_seq.end();
      if (it != node_by_seq.end() && it->second != ni) children[it->second].push_back(ni);
    }
    struct frame {
      size_t node, input = 0;    // input == inputs.size() + 1: the nested ops were looked at
      std::vector<size_t> from;  // nodes to place before this one, not yet looked at
    };
    std::vector<frame> path;
    for (size_t root = 0; root < g.nodes.size(); ++root) {
      if (state[root]) continue;
      state[root] = 1;
      path.push_back(frame{root, 0, {}});
      while (!path.empty()) {
        frame& f = path.back();
        const size_t inputs = g.nodes[f.node].inputs.size();
        if (f.from.empty() && f.input <= inputs) {
          if (f.input == inputs) {
            f.from = children[f.node];  // an op ends after the ops nested in it
          } else {
            for (const std::string& k : verdict.edges(pairs[g.nodes[f.node].inputs[f.input]])) {
              const size_t op = verdict.output(k);
              if (op != SIZE_MAX && node_of_output[op] != SIZE_MAX) f.from.push_back(node_of_output[op]);
            }
          }
          std::sort(f.from.begin(), f.from.end(), std::greater<size_t>());  // the earliest last: taken first
          ++f.input;
          continue;
        }
        if (!f.from.empty()) {
          const size_t next = f.from.back();
          f.from.pop_back();
          if (!state[next]) {  // placed, or on the path (no cycle): nothing to do
            state[next] = 1;
            path.push_back(frame{next, 0, {}});
          }
          continue;
        }
        state[f.node] = 2;
        order.push_back(f.node);
        path.pop_back();
      }
    }
  }
  // The latest output recorded before input `in` whose content hashes equal the input's in
  // both runs (SIZE_MAX: none). The outputs are indexed on first use: most comparisons have
  // no input without a producer that differs.
  std::unordered_map<std::string, std::vector<size_t>> outputs_by_hashes;
  bool outputs_indexed = false;
  auto hashes_of = [](const compared_pair& p) {
    return p.a.present && p.b.present && !p.a.hash.empty() && !p.b.hash.empty() ? p.a.hash + "\n" + p.b.hash
                                                                                 : std::string();
  };
  // Whether an output differs between the runs at all, within its tolerance or not.
  auto differs_at_all = [&](size_t i) {
    const tensor_metrics& m = pairs[i].metrics;
    return verdict.of(i) == 1 || (m.compared && (m.max_abs > 0 || m.nan_mismatch || m.inf_mismatch));
  };
  // `carried`: cast copies of outputs that differ at all, as a root is carried (else only of
  // outputs that fail, for the hint).
  std::unordered_map<int64_t, std::vector<size_t>> outputs_by_count;  // outputs that differ at all, with statistics
  auto copy_source = [&](const compared_pair& in, bool carried) {
    if (!outputs_indexed) {
      outputs_indexed = true;
      for (size_t i = 0; i < pairs.size(); ++i) {
        if (pairs[i].is_input) continue;
        const std::string h = hashes_of(pairs[i]);
        if (!h.empty()) outputs_by_hashes[h].push_back(i);
        if (pairs[i].a.have_stats && pairs[i].b.have_stats && differs_at_all(i))
          outputs_by_count[pairs[i].a.stats.count].push_back(i);
      }
      for (auto& c : outputs_by_count)
        std::stable_sort(c.second.begin(), c.second.end(), [&](size_t x, size_t y) { return pairs[x].seq < pairs[y].seq; });
    }
    const std::string h = hashes_of(in);
    auto it = h.empty() ? outputs_by_hashes.end() : outputs_by_hashes.find(h);
    size_t best = SIZE_MAX;
    if (it != outputs_by_hashes.end())
      for (size_t i : it->second)
        if (pairs[i].seq < in.seq && (best == SIZE_MAX || pairs[i].seq > pairs[best].seq)) best = i;
    if (best != SIZE_MAX) return best;
    // Values cast to another float dtype on the way: the latest earlier output that differs
    // and whose statistics the input's match in both runs, within the rounding of the cast.
    // Among the outputs of as many elements, the k_cast_candidates latest before it: a cast
    // copy is of a recent output, and a run whose inputs all differ (other weights) must not
    // scan every output for each of them.
    if (!in.a.have_stats || !in.b.have_stats) return best;
    auto at = outputs_by_count.find(in.a.stats.count);
    if (at == outputs_by_count.end()) return best;
    const std::vector<size_t>& list = at->second;  // in sequence order
    auto end = std::lower_bound(list.begin(), list.end(), in.seq, [&](size_t i, uint64_t seq) { return pairs[i].seq < seq; });
    for (size_t tried = 0; end != list.begin() && tried < graph_impl::k_cast_candidates; ++tried) {
      const size_t i = *--end;
      ++g.cast_checks;
      if ((carried || verdict.of(i) == 1) && holds_converted(in, pairs[i])) return i;
    }
    return best;
  };
  auto upstream_root = [&](const op_node& n) {
    for (size_t pi : n.inputs) {
      const compared_pair& in = pairs[pi];
      if (!differs_at_all(pi)) continue;
      const std::vector<std::string> from_keys = verdict.edges(in);
      for (const std::string& k : from_keys) {
        const size_t op = verdict.output(k);
        const size_t from = op == SIZE_MAX ? SIZE_MAX : node_of_output[op];
        if (from != SIZE_MAX && carried_from[from] >= 0) return carried_from[from];
      }
      // Bytes no op wrote last that hold an earlier output's, copied or cast outside any op:
      // that output's root is carried on (a cast to a coarser dtype can pass its tolerance
      // while the op reading it, in a finer one, fails). No op wrote them last: no producer,
      // stale, or producers whose outputs are the same bytes in both runs while these differ.
      bool unlinked = in.producers.empty() || from_keys.empty() || !verdict.stale(in).empty();
      if (!unlinked) {
        unlinked = true;
        for (const std::string& k : from_keys) {
          const size_t o = verdict.output(k);
          if (o == SIZE_MAX || !pairs[o].metrics.compared || differs_at_all(o)) unlinked = false;
        }
      }
      if (!in.implicit && unlinked) {
        const size_t c = copy_source(in, true);
        const size_t from = c == SIZE_MAX || !differs_at_all(c) ? SIZE_MAX : node_of_output[c];
        if (from != SIZE_MAX && carried_from[from] >= 0) return carried_from[from];
      }
    }
    return -1L;
  };
  auto input_root = [&](root_kind kind, size_t ni, size_t pi) {
    root_cause r;
    r.kind = kind;
    r.is_input = true;
    r.node = ni;
    r.input = pi;
    if (g.nodes[ni].mismatch) spread(ni, true, &r.reaches);
    g.roots.push_back(std::move(r));
    if (carried_from[ni] < 0) carried_from[ni] = static_cast<long>(g.roots.size() - 1);
  };

  for (size_t ni : order) {
    const op_node& n = g.nodes[ni];
    if (!n.paired() || n.ambiguous) continue;  // only ops present in both runs, surely paired, are judged
    bool inputs_match = true;
    for (size_t pi : n.inputs) {
      const compared_pair& in = pairs[pi];
      const int v = verdict.of(pi);
      // bytes written outside any op: a hint at its place, whether or not they differ
      const std::string stale = in.implicit ? std::string() : verdict.stale(in);
      if (v != 1) {
        if (!stale.empty()) add_hint(hint_kind::outside_op, ni, pi, stale, false);
        continue;
      }
      // An implicit prior state that differs is an input that differs, as an inout one: any
      // output element may depend on any element read (a collision mixes a cell's
      // populations, a row-wise update reads the whole row), so the op carries it on.
      inputs_match = false;
      const std::vector<std::string> from = verdict.edges(in);
      bool producer_differs = false, outside = false, missing = false, matched = false;
      std::string unpaired, outside_key, matched_key;
      for (const std::string& k : from) {
        const size_t op = verdict.output(k);
        const int pv = op == SIZE_MAX ? -1 : verdict.of(op);
        if (pv == 1) {
          producer_differs = true;
        } else if (op == SIZE_MAX) {
          if (ctx.outside_step && ctx.outside_step->count(k)) {
            outside = true;
            outside_key = k;
          } else {
            missing = true;
          }
        } else if (pairs[op].status == pair_status::only_a || pairs[op].status == pair_status::only_b) {
          unpaired = k;
        } else if (pv == 0) {
          matched = true;
          matched_key = k;
        } else {
          missing = true;  // paired, but neither data nor statistics on both sides
        }
      }
      // The op whose bytes the outside code overwrote already wrote them differently: the
      // difference may be that op's, carried through the outside code; its place is named,
      // the code is not blamed.
      const size_t stale_out = stale.empty() ? SIZE_MAX : verdict.output(stale);
      const bool stale_differs = stale_out != SIZE_MAX && verdict.of(stale_out) == 1;
      if (producer_differs || stale_differs) {
        if (!stale.empty()) add_hint(hint_kind::outside_op, ni, pi, stale, false);
        if (stale_differs && !producer_differs && carried_from[ni] < 0) {
          const size_t writer = node_of_output[stale_out];
          if (writer != SIZE_MAX) carried_from[ni] = carried_from[writer];
        }
        continue;
      }
      // Bytes that no op wrote last (no producer, or one whose bytes were overwritten since),
      // which an earlier output that differs holds in both runs: copied outside any op. The
      // difference is that output's, carried on; the runs were not fed different data, nor
      // did the code outside any op change.
      const bool outside_code = matched && verdict.shows_outside_code(in, from);
      const bool unlinked = in.producers.empty() || from.empty() || !stale.empty() || outside_code;
      const size_t copied = unlinked && !outside && unpaired.empty() && !missing ? copy_source(in, false) : SIZE_MAX;
      if (copied != SIZE_MAX && verdict.of(copied) == 1) {
        graph_hint& h = add_hint(hint_kind::unlinked_copy, ni, pi, pairs[copied].key, true);
        if (in.a.type != pairs[copied].a.type)
          h.converted = std::string(dtype_name(pairs[copied].a.type)) + " -> " + dtype_name(in.a.type);
        const size_t writer = node_of_output[copied];
        if (writer != SIZE_MAX && carried_from[ni] < 0) carried_from[ni] = carried_from[writer];
      } else if (outside) {
        add_hint(hint_kind::outside_step, ni, pi, outside_key, true);
      } else if (!unpaired.empty()) {
        add_hint(hint_kind::unpaired_producer, ni, pi, unpaired, true);
      } else if (missing) {
        input_root(root_kind::producer_missing, ni, pi);
      } else if (stale.empty() && matched && pair_verdicts::partly_unproduced(in)) {
        // the producers wrote only part of it and what they wrote matched: the rest was fed
        input_root(root_kind::graph_input, ni, pi);
      } else if (!stale.empty()) {
        add_hint(hint_kind::outside_op, ni, pi, stale, true);
      } else if (outside_code) {
        // what its producers wrote matched; the bytes read do not: code outside any op wrote them
        add_hint(hint_kind::outside_op, ni, pi, matched_key, true);
      } else if (in.producers.empty() || from.empty()) {
        input_root(root_kind::graph_input, ni, pi);
      }
    }
    const long upstream = upstream_root(n);
    if (n.mismatch && inputs_match && !n.inner_mismatch) {
      if (upstream >= 0) {
        // Its inputs pass, but hold an earlier root's difference, which it grew past the
        // tolerance (y = 1e-5 x, then z = 1e5 y): part of that root's reach, not a root.
        root_cause& from = g.roots[static_cast<size_t>(upstream)];
        spread(ni, true, &from.reaches);
        g.regrown.emplace_back(ni, static_cast<size_t>(upstream));
      } else {
        root_cause r;
        r.node = ni;
        spread(ni, false, &r.reaches);
        g.roots.push_back(std::move(r));
        carried_from[ni] = static_cast<long>(g.roots.size() - 1);
      }
    }
    if (carried_from[ni] < 0) carried_from[ni] = upstream;
    if (carried_from[ni] < 0 && n.inner_mismatch)  // its nested ops' difference is its own
      for (size_t c : children[ni])
        if (carried_from[c] >= 0) {
          carried_from[ni] = carried_from[c];
          break;
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
  if (!g.regrown.empty())  // their reaches joined a root's
    for (root_cause& r : g.roots) {
      std::sort(r.reaches.begin(), r.reaches.end());
      r.reaches.erase(std::unique(r.reaches.begin(), r.reaches.end()), r.reaches.end());
    }
  return g;
}

}  // namespace analysis
PROBE_END_NAMESPACE
