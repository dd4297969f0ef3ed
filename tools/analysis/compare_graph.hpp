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
//   graph input; so is one holding its values cast to another dtype (by their statistics), or
//   part of them, or them among others (a slice, a concatenation: by their values);
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

#include "compare_copy_source.hpp"
#include "compare_graph_types.hpp"
#include "compare_inputs.hpp"
#include "compare_verdicts.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace graph_impl {

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
    n.cut = n.cut || !p.past_budget.empty();
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

  // A worker's input inside an input of an op enclosing it (enclosing_inputs): the workers
  // reading inside each node's inputs are downstream of what those inputs carry.
  const std::vector<size_t> enclosing_of = enclosing_inputs(pairs);
  std::vector<size_t> node_of_input(pairs.size(), SIZE_MAX);
  for (size_t ni = 0; ni < g.nodes.size(); ++ni)
    for (size_t pi : g.nodes[ni].inputs) node_of_input[pi] = ni;
  std::unordered_map<size_t, std::vector<size_t>> inside_of;  // node -> nodes reading inside its inputs
  for (size_t pi = 0; pi < pairs.size(); ++pi)
    if (enclosing_of[pi] != SIZE_MAX && node_of_input[pi] != SIZE_MAX && node_of_input[enclosing_of[pi]] != SIZE_MAX)
      inside_of[node_of_input[enclosing_of[pi]]].push_back(node_of_input[pi]);

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
      if (!inside_of.empty()) {
        auto it = inside_of.find(ni);
        if (it != inside_of.end())
          for (size_t c : it->second) visit(c);
      }
    }
    std::sort(seen.begin(), seen.end());
    for (size_t ni : seen)
      if (g.nodes[ni].mismatch) {
        reached[ni] = 1;
        if (ni != start || include_start) out->push_back(ni);
      }
  };
  // The hint whose difference reaches each node (bytes written outside any op, a producer
  // outside --step), as carried_from below does for roots: -1 for none. A root's comes first.
  std::vector<long> carried_hint(g.nodes.size(), -1);
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
      if (carried_hint[ni] < 0) carried_hint[ni] = static_cast<long>(it->second);
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
  // Whether an output differs between the runs at all, within its tolerance or not.
  auto differs_at_all = [&](size_t i) { return pair_differs_at_all(pairs[i], verdict.of(i)); };
  copy_lookup copies(pairs, g.nodes, node_of_output, verdict, ctx.open_values, ctx.value_budget);
  // The root whose difference an input of n that differs at all holds, or else the hint
  // whose difference it holds: -1 for none.
  struct carried_source {
    long root = -1, hint = -1;
  };
  auto upstream_of = [&](const op_node& n) {
    carried_source out;
    auto holds = [&](size_t from) {  // true once a root is found
      if (from == SIZE_MAX) return false;
      if (carried_from[from] >= 0) out.root = carried_from[from];
      else if (out.hint < 0) out.hint = carried_hint[from];
      return out.root >= 0;
    };
    for (size_t own : n.inputs) {
      const size_t pi = enclosing_of[own] != SIZE_MAX ? enclosing_of[own] : own;
      const compared_pair& in = pairs[pi];
      if (!differs_at_all(pi)) continue;
      const std::vector<std::string> from_keys = verdict.edges(in);
      for (const std::string& k : from_keys) {
        const size_t op = verdict.output(k);
        if (holds(op == SIZE_MAX ? SIZE_MAX : node_of_output[op])) return out;
      }
      // Bytes an output that differs wrote and code outside any op rewrote since (a part
      // scaled in place): that output's difference is carried on, as judge_input does for an
      // input that fails.
      const std::string gone = verdict.stale(in);
      const size_t gone_out = gone.empty() ? SIZE_MAX : verdict.output(gone);
      if (gone_out != SIZE_MAX && differs_at_all(gone_out) && holds(node_of_output[gone_out])) return out;
      // Bytes no op wrote last that hold an earlier output's, copied or cast outside any op:
      // that output's root is carried on (a cast to a coarser dtype can pass its tolerance
      // while the op reading it, in a finer one, fails). No op wrote them last: no producer,
      // stale, or producers whose outputs are the same bytes in both runs while these differ.
      bool unlinked = in.producers.empty() || from_keys.empty() || !gone.empty();
      if (!unlinked) {
        unlinked = true;
        for (const std::string& k : from_keys) {
          const size_t o = verdict.output(k);
          if (o == SIZE_MAX || !pairs[o].metrics.compared || differs_at_all(o)) unlinked = false;
        }
      }
      if (!in.implicit && unlinked) {
        const size_t c = copies.source(pi).output;
        if (holds(c == SIZE_MAX || !differs_at_all(c) ? SIZE_MAX : node_of_output[c])) return out;
      }
    }
    return out;
  };
  std::vector<long> input_root_of(pairs.size(), -1);  // the root an input is, once judged so
  auto input_root = [&](root_kind kind, size_t ni, size_t pi) {
    root_cause r;
    r.kind = kind;
    r.is_input = true;
    r.node = ni;
    r.input = pi;
    if (g.nodes[ni].mismatch) spread(ni, true, &r.reaches);
    g.roots.push_back(std::move(r));
    input_root_of[pi] = static_cast<long>(g.roots.size() - 1);
    if (carried_from[ni] < 0) carried_from[ni] = input_root_of[pi];
  };

  // Judges input `pi` of node `ni`, which differs: a hint at its place, an input root, or
  // nothing (its producers differ). Once per input: a worker's input inside an input of an op
  // it works for is judged as that input, which its op, ending after its workers, meets later.
  std::vector<char> judged(pairs.size(), 0);
  auto judge_input = [&](size_t ni, size_t pi) {
    if (judged[pi]) return;
    judged[pi] = 1;
    const compared_pair& in = pairs[pi];
    const std::string stale = in.implicit ? std::string() : verdict.stale(in);
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
      if (!stale.empty()) ++add_hint(hint_kind::outside_op, ni, pi, stale, false).carried;
      if (stale_differs && !producer_differs && carried_from[ni] < 0) {
        const size_t writer = node_of_output[stale_out];
        if (writer != SIZE_MAX) carried_from[ni] = carried_from[writer];
      }
      return;
    }
    // Bytes that no op wrote last (no producer, or one whose bytes were overwritten since),
    // which an earlier output that differs holds in both runs: copied outside any op. The
    // difference is that output's, carried on; the runs were not fed different data, nor
    // did the code outside any op change.
    const bool outside_code = matched && verdict.shows_outside_code(in, from);
    const bool unlinked = in.producers.empty() || from.empty() || !stale.empty() || outside_code;
    // The copy's source may pass where the copy fails: a cast to a finer dtype is judged at
    // that dtype's tighter tolerance.
    const copy_found source =
        unlinked && !outside && unpaired.empty() && !missing ? copies.source(pi) : copy_found();
    const size_t copied = source.output;
    if (copied != SIZE_MAX && differs_at_all(copied)) {
      graph_hint& h = add_hint(hint_kind::unlinked_copy, ni, pi, pairs[copied].key, true);
      h.part = source.part;
      if (source.with != SIZE_MAX) h.with_key = pairs[source.with].key;
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
      // A worker's input that no op wrote last, inside an input of an op it works for (the
      // library says so only for such bytes): that input's bytes, judged (and hinted at)
      // there, not a graph input or a copy of its own.
      const size_t outer = n.parent && (v == 1 || !stale.empty()) ? enclosing_of[pi] : SIZE_MAX;
      if (v != 1) {
        if (outer != SIZE_MAX) continue;
        // bytes an earlier output holds: copied there, by code outside any op or by an op
        // that declared its result elsewhere (a scratch copied into place), which the dump
        // cannot tell apart; "outside any op" would blame the wrong code
        const size_t copied = stale.empty() ? SIZE_MAX : copies.same_bytes(pi).output;
        if (copied != SIZE_MAX) add_hint(hint_kind::unlinked_copy, ni, pi, pairs[copied].key, false);
        else if (!stale.empty()) add_hint(hint_kind::outside_op, ni, pi, stale, false);
        continue;
      }
      // An implicit prior state that differs is an input that differs, as an inout one: any
      // output element may depend on any element read (a collision mixes a cell's
      // populations, a row-wise update reads the whole row), so the op carries it on.
      inputs_match = false;
      if (outer == SIZE_MAX) {
        judge_input(ni, pi);
        continue;
      }
      const size_t on = node_of_input[outer];
      if (verdict.of(outer) == 1) judge_input(on, outer);
      if (carried_from[ni] < 0 && input_root_of[outer] >= 0) carried_from[ni] = input_root_of[outer];
    }
    const carried_source up = upstream_of(n);
    const long upstream = up.root, upstream_hint = up.hint;
    if (n.mismatch && inputs_match && !n.inner_mismatch) {
      if (upstream >= 0) {
        // Its inputs pass, but hold an earlier root's difference, which it grew past the
        // tolerance (y = 1e-5 x, then z = 1e5 y): part of that root's reach, not a root.
        root_cause& from = g.roots[static_cast<size_t>(upstream)];
        spread(ni, true, &from.reaches);
        g.regrown.emplace_back(ni, static_cast<size_t>(upstream));
      } else if (upstream_hint >= 0) {  // the same, for a difference that starts at a hint
        spread(ni, true, &g.hints[static_cast<size_t>(upstream_hint)].reaches);
        g.regrown_by_hint.emplace_back(ni, static_cast<size_t>(upstream_hint));
      } else {
        root_cause r;
        r.node = ni;
        spread(ni, false, &r.reaches);
        g.roots.push_back(std::move(r));
        carried_from[ni] = static_cast<long>(g.roots.size() - 1);
      }
    }
    if (carried_from[ni] < 0) carried_from[ni] = upstream;
    if (carried_from[ni] < 0 && carried_hint[ni] < 0) carried_hint[ni] = upstream_hint;
    if (carried_from[ni] < 0 && carried_hint[ni] < 0 && n.inner_mismatch)  // its nested ops' difference is its own
      for (size_t c : children[ni])
        if (carried_from[c] >= 0 || carried_hint[c] >= 0) {
          carried_from[ni] = carried_from[c];
          carried_hint[ni] = carried_hint[c];
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
  g.cast_checks = copies.cast_checks();
  g.part_checks = copies.part_checks();
  g.part_values_read = copies.part_values_read();
  for (graph_hint& h : g.hints) {
    std::sort(h.reaches.begin(), h.reaches.end());
    h.reaches.erase(std::unique(h.reaches.begin(), h.reaches.end()), h.reaches.end());
  }
  if (!g.regrown.empty())  // their reaches joined a root's (a hint's are made unique above)
    for (root_cause& r : g.roots) {
      std::sort(r.reaches.begin(), r.reaches.end());
      r.reaches.erase(std::unique(r.reaches.begin(), r.reaches.end()), r.reaches.end());
    }
  return g;
}

}  // namespace analysis
PROBE_END_NAMESPACE
