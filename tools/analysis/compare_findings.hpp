// What `probe compare` says beyond the root causes, from the graph and the second look at
// mismatching pairs (compare_details.hpp):
// - rounding-level failures: every failure of a tensor is tiny next to its scale (the
//   largest |value| of the reference), as between -O0 and -O3 -ffast-math; the atol that
//   passes them all; root causes ranked by severity, so that a real bug comes first;
// - ops that add error beyond what their inputs carry (amplification, measured on values:
//   statistics do not measure an error), and every faulty instance of an op type (a bug in
//   the kernel of relu shows at each relu), with the type's other mismatching instances whose
//   inputs differ already (not judged: only probe replay can);
// - root causes grouped: an op that is a root at several occurrences, and differing graph
//   inputs or weights by op and slot;
// - how the two runs' op sequences align: ops only in A, only in B, in another order.
// Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <string>
#include <vector>

#include "compare_graph.hpp"
#include "compare_source.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// An error this small next to the tensor's scale is rounding: about the square root of the
// coarser float type's precision (float32: 2^-13 = 1.2e-4; float64: 2^-27; float16: 2^-6).
inline double rounding_limit(dtype a, dtype b) {
  const int bits = compare_impl::precision_bits(compare_impl::ulp_type(compare_impl::component_type(a),
                                                                       compare_impl::component_type(b)));
  return bits ? std::ldexp(1.0, -(bits / 2 + 1)) : 0;
}

// A mismatch whose every failure is rounding-level (false when not measured).
inline bool rounding_level(const compared_pair& p) {
  if (p.status != pair_status::mismatch || p.by_stats || p.scale <= 0) return false;
  if (p.metrics.nan_mismatch || p.metrics.inf_mismatch) return false;
  return p.scaled_error() <= rounding_limit(p.a.type, p.b.type);
}

// How bad a mismatch is: its largest error relative to the tensor's scale (inf: NaN/Inf
// disagreements, shapes or dtypes that differ).
inline double severity(const compared_pair& p) {
  if (!status_mismatch(p.status)) return 0;
  if (p.status != pair_status::mismatch || p.metrics.nan_mismatch || p.metrics.inf_mismatch)
    return __builtin_inf();
  return p.scaled_error();
}

// One op execution whose output error is much larger than its inputs'.
struct amplifier {
  size_t node = 0;
  double in_error = 0, out_error = 0;  // relative to each tensor's scale
};

// The faulty instances of one op type: roots and amplifiers.
struct type_group {
  std::string type;               // the op type (the op name when it has none)
  std::vector<size_t> faulty;     // nodes, sequence order
  size_t instances = 0;           // paired op executions of the type
  // With a root of the type: every other instance whose output mismatches while its inputs
  // differ already. The kernel may be faulty there too, whatever the error's growth (a bug
  // adding less error than it inherits grows it little); only probe replay can tell.
  std::vector<size_t> suspects;   // sequence order
  std::vector<double> growth;     // per suspect: output error / input error (inf: input error 0)
};

// A repeated root cause: one op name, several occurrences or steps.
struct root_group {
  std::string op;
  std::vector<size_t> roots;  // indices into graph.roots, sequence order
  size_t occurrences = 0;     // paired executions of the op
};

// Differing inputs nothing recorded explains (graph inputs, weights, inputs whose producer was
// not dumped), one per kind, op name and slot across occurrences and steps.
struct input_group {
  root_kind kind = root_kind::graph_input;
  std::string op, slot;
  std::vector<size_t> roots;  // indices into graph.roots, sequence order
  size_t occurrences = 0;     // paired executions of the op
};

struct alignment {
  std::vector<size_t> only_a, only_b, reordered;  // nodes
  std::vector<std::string> count_notes;           // "relu ran 6 times in A, 4 in B"
  size_t paired = 0;
  bool differs() const { return !only_a.empty() || !only_b.empty() || !reordered.empty(); }
};

struct run_findings {
  std::vector<amplifier> amplifiers;
  std::vector<type_group> types;       // types with a faulty instance
  std::vector<root_group> root_groups; // op roots grouped by op name, first root's order
  std::vector<input_group> input_groups;  // input roots by kind, op and slot, first root's order
  std::vector<size_t> group_of_root;   // per root: its root_groups or input_groups index
  alignment align;
  uint64_t visits = 0;  // nodes looked at: grows with the graph, not with roots times nodes
};

namespace findings_impl {

// Nodes of a sequence that are out of order: those not on a longest increasing run of seq_b.
inline std::vector<size_t> out_of_order(const std::vector<op_node>& nodes, const std::vector<size_t>& paired) {
  const size_t n = paired.size();
  std::vector<size_t> tails, tail_at, prev(n, SIZE_MAX);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = nodes[paired[i]].seq_b;
    size_t lo = 0, hi = tails.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (nodes[paired[tails[mid]]].seq_b < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    if (lo == tails.size()) tails.push_back(i);
    else tails[lo] = i;
  }
  std::vector<char> keep(n, 0);
  for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = prev[i]) keep[i] = 1;
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (!keep[i]) out.push_back(paired[i]);
  return out;
}

}  // namespace findings_impl

// Ranks the roots (real bugs first), and finds amplifiers, faulty types and the alignment.
inline run_findings find_more(const std::vector<compared_pair>& pairs, graph_answers* g) {
  run_findings f;
  // severity of each root
  for (root_cause& r : g->roots) {
    r.severity = 0;
    bool all_rounding = true;
    const std::vector<size_t> own = r.is_input ? std::vector<size_t>{r.input} : g->nodes[r.node].outputs;
    for (size_t pi : own) {
      if (!status_mismatch(pairs[pi].status)) continue;
      r.severity = std::max(r.severity, severity(pairs[pi]));
      all_rounding = all_rounding && rounding_level(pairs[pi]);
    }
    r.rounding = all_rounding && r.severity > 0;
  }
  std::stable_sort(g->roots.begin(), g->roots.end(), [](const root_cause& x, const root_cause& y) {
    if (x.rounding != y.rounding) return !x.rounding;
    return x.severity > y.severity;
  });
  // amplifiers: the output error is ten times the largest input error, and not rounding;
  // both measured on values (a difference of statistics is not an error of the values) and
  // relative to a reference that is not all zeros (an error of zero has no scale: y = x - x'
  // would read as adding every bit of x's error)
  std::vector<char> is_root(g->nodes.size(), 0);
  for (const root_cause& r : g->roots)
    if (!r.is_input) is_root[r.node] = 1;
  auto errors = [&](const op_node& n, double* in_err, double* out_err) {
    bool measured = true;
    *in_err = *out_err = 0;
    for (size_t pi : n.inputs)
      if (status_mismatch(pairs[pi].status)) {
        measured = measured && pairs[pi].scale > 0 && !pairs[pi].by_stats;
        *in_err = std::max(*in_err, severity(pairs[pi]));
      }
    for (size_t pi : n.outputs)
      if (status_mismatch(pairs[pi].status)) {
        const bool no_scale = pairs[pi].reference_scale == 0 && std::isfinite(severity(pairs[pi]));
        measured = measured && !no_scale && !pairs[pi].by_stats;
        *out_err = std::max(*out_err, severity(pairs[pi]));
      }
    return measured;
  };
  for (size_t ni = 0; ni < g->nodes.size(); ++ni) {
    const op_node& n = g->nodes[ni];
    ++f.visits;
    if (!n.mismatch || is_root[ni] || n.inner_mismatch || !n.paired()) continue;
    double in_err = 0, out_err = 0;
    bool real = false;
    const bool measured = errors(n, &in_err, &out_err);
    for (size_t pi : n.outputs) real = real || (status_mismatch(pairs[pi].status) && !rounding_level(pairs[pi]));
    if (measured && real && std::isfinite(out_err) && out_err > 10 * in_err) f.amplifiers.push_back({ni, in_err, out_err});
  }
  // faulty instances by op type; every instance of a type listed once, so that finding the
  // others of a faulty type costs their number, not the graph's
  std::unordered_map<std::string, size_t> type_index;
  std::vector<std::vector<size_t>> members;
  std::vector<char> faulty(g->nodes.size(), 0);
  for (size_t ni = 0; ni < g->nodes.size(); ++ni) faulty[ni] = is_root[ni];
  for (const amplifier& a : f.amplifiers) faulty[a.node] = 1;
  for (size_t ni = 0; ni < g->nodes.size(); ++ni) {
    const op_node& n = g->nodes[ni];
    if (!n.paired()) continue;
    const std::string& t = n.type.empty() ? n.op : n.type;
    auto it = type_index.find(t);
    if (it == type_index.end()) {
      it = type_index.emplace(t, f.types.size()).first;
      f.types.push_back(type_group{t, {}, 0, {}, {}});
      members.emplace_back();
    }
    ++f.types[it->second].instances;
    members[it->second].push_back(ni);
    if (faulty[ni]) f.types[it->second].faulty.push_back(ni);
  }
  for (size_t ti = 0; ti < f.types.size(); ++ti) {
    type_group& t = f.types[ti];
    bool has_root = false;
    for (size_t ni : t.faulty) has_root = has_root || is_root[ni];
    if (!has_root) continue;
    for (size_t ni : members[ti]) {
      ++f.visits;
      const op_node& n = g->nodes[ni];
      if (faulty[ni] || !n.mismatch || n.inner_mismatch) continue;
      double in_err = 0, out_err = 0;
      errors(n, &in_err, &out_err);
      t.suspects.push_back(ni);
      t.growth.push_back(in_err > 0 ? out_err / in_err : __builtin_inf());
    }
  }
  {
    std::vector<type_group> kept;
    for (type_group& t : f.types)
      if (!t.faulty.empty()) kept.push_back(std::move(t));
    f.types.swap(kept);
  }
  // paired executions per op name, counted once
  std::unordered_map<std::string, size_t> executions;
  for (const op_node& n : g->nodes)
    if (n.paired()) ++executions[n.op];
  // op roots grouped by op name, input roots by kind, op and slot, in the order of the first
  // root of each
  std::unordered_map<std::string, size_t> group_index, input_index;
  f.group_of_root.assign(g->roots.size(), SIZE_MAX);
  for (size_t ri = 0; ri < g->roots.size(); ++ri) {
    const root_cause& r = g->roots[ri];
    const std::string& op = g->nodes[r.node].op;
    if (r.is_input) {
      const std::string& slot = pairs[r.input].slot;
      const std::string k = std::to_string(static_cast<int>(r.kind)) + "\n" + op + "\n" + slot;
      auto it = input_index.find(k);
      if (it == input_index.end()) {
        it = input_index.emplace(k, f.input_groups.size()).first;
        input_group ig;
        ig.kind = r.kind;
        ig.op = op;
        ig.slot = slot;
        ig.occurrences = executions[op];
        f.input_groups.push_back(std::move(ig));
      }
      f.input_groups[it->second].roots.push_back(ri);
      f.group_of_root[ri] = it->second;
      continue;
    }
    auto it = group_index.find(op);
    if (it == group_index.end()) {
      it = group_index.emplace(op, f.root_groups.size()).first;
      f.root_groups.push_back(root_group{op, {}, executions[op]});
    }
    f.root_groups[it->second].roots.push_back(ri);
    f.group_of_root[ri] = it->second;
  }
  auto by_seq = [&](size_t x, size_t y) { return g->nodes[g->roots[x].node].seq < g->nodes[g->roots[y].node].seq; };
  for (root_group& rg : f.root_groups) std::sort(rg.roots.begin(), rg.roots.end(), by_seq);
  for (input_group& ig : f.input_groups) std::sort(ig.roots.begin(), ig.roots.end(), by_seq);
  // alignment of the op sequences
  std::vector<size_t> paired;
  std::map<std::string, std::pair<size_t, size_t>> counts;  // op name -> executions in A, in B
  for (size_t ni = 0; ni < g->nodes.size(); ++ni) {
    const op_node& n = g->nodes[ni];
    // an op one run did not record because its dump stopped ran, as far as anyone knows, in both
    if (!n.paired() && n.cut) continue;
    if (n.in_a) ++counts[n.op].first;
    if (n.in_b) ++counts[n.op].second;
    if (n.paired()) paired.push_back(ni);
    else if (n.in_a) f.align.only_a.push_back(ni);
    else f.align.only_b.push_back(ni);
  }
  f.align.paired = paired.size();
  // Within each thread lineage: how the threads interleave is the scheduler's business.
  std::map<uint64_t, std::vector<size_t>> by_lane;
  for (size_t ni : paired) by_lane[g->nodes[ni].lane].push_back(ni);
  for (const auto& l : by_lane)
    for (size_t ni : findings_impl::out_of_order(g->nodes, l.second)) f.align.reordered.push_back(ni);
  std::sort(f.align.reordered.begin(), f.align.reordered.end());
  for (const auto& c : counts)
    if (c.second.first != c.second.second && c.second.first && c.second.second)
      f.align.count_notes.push_back(c.first + " ran " + std::to_string(c.second.first) +
                                    (c.second.first == 1 ? " time in A, " : " times in A, ") +
                                    std::to_string(c.second.second) + " in B");
  return f;
}

// The smallest "nice" number (one significant digit) not below v: 3.7e-5 -> 4e-5.
inline double round_up_1(double v) {
  if (!(v > 0) || !std::isfinite(v)) return v;
  const double e = std::pow(10.0, std::floor(std::log10(v)));
  double m = std::ceil(v / e - 1e-9);
  return m * e;
}

}  // namespace analysis
PROBE_END_NAMESPACE
