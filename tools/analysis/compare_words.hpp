// The answers of `probe compare` in words, for the terminal: counts, how the runs' op
// sequences align, the first divergence, root causes (a repeated one once, with its count),
// hints about code outside any op, amplifying ops, faulty op types, rounding-level failures.
// Lines stay within 120 columns (wrap_lines); details are in --json and --html. Colour
// (ANSI) only when asked; every text that came from a file is escaped. Standalone header.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <probe/util/text.hpp>
#include "compare_ranks_words.hpp"
#include "compare_run.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_text_impl {

inline std::string num(double v, int digits = 3) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char b[32];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

// Cosine near 1 as "1-4.8e-11": the distance from 1 is what tells runs apart.
inline std::string cosine_text(double c) {
  if (c == 1) return "1";
  if (c > 0.9999) return "1-" + num(1 - c, 2);
  return num(c, 6);
}

inline std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

inline std::string fit(const std::string& s, size_t width) {
  if (s.size() <= width) return s + std::string(width - s.size(), ' ');
  const size_t keep = width - 1, head = keep / 3;
  return s.substr(0, head) + "~" + s.substr(s.size() - (keep - head));
}

inline std::string right(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// fit() and right(), appended to out in place (a table row is many of them).
inline void pad_right(std::string& out, const std::string& s, size_t width) {
  if (s.size() > width) {
    out += fit(s, width);
    return;
  }
  out += s;
  out.append(width - s.size(), ' ');
}
inline void pad_left(std::string& out, const std::string& s, size_t width) {
  if (s.size() < width) out.append(width - s.size(), ' ');
  out += s;
}

inline std::string dtype_text(const compared_pair& p) {
  const dtype a = p.a.present ? p.a.type : p.b.type, b = p.b.present ? p.b.type : p.a.type;
  return a == b ? std::string(dtype_name(a)) : std::string(dtype_name(a)) + "/" + dtype_name(b);
}

inline std::string shape_text(const compared_pair& p) {
  const pair_side& s = p.a.present ? p.a : p.b;
  return shape_string(s.shape, s.ndim);
}

struct paint {
  bool on;
  std::string operator()(const std::string& s, const char* code) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

inline std::string status_text(const compared_pair& p) {
  switch (p.status) {
    case pair_status::ok: return p.by_stats ? "ok (stats)" : "ok";
    case pair_status::mismatch: return p.by_stats ? "MISMATCH (stats)" : "MISMATCH";
    case pair_status::shape: return "SHAPE " + p.why.substr(p.why.find(' ') + 1);
    case pair_status::dtype: return "DTYPE " + p.why.substr(p.why.find(' ') + 1);
    case pair_status::only_a: return "only in A";
    case pair_status::only_b: return "only in B";
    default:
      // past a budget: which budget the notes say, the JSON too; the row keeps to its column
      return "no data (" +
             ::probe::detail::printable(p.past_budget.empty() ? p.why : p.why.substr(0, p.why.find(" ("))) + ")";
  }
}

// 4e-05 -> 4e-5, 2.5e+10 -> 2.5e10: two significant digits, short exponents.
inline std::string short_num(double v) {
  std::string s = num(v, 2);
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string exp = s.substr(e + 1);
  const bool neg = !exp.empty() && exp[0] == '-';
  if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) exp = exp.substr(1);
  while (exp.size() > 1 && exp[0] == '0') exp = exp.substr(1);
  return s.substr(0, e + 1) + (neg ? "-" : "") + exp;
}

// The width the text report keeps to.
constexpr size_t compare_text_width = 120;

// Columns a line takes on a terminal: ANSI colour codes take none.
inline size_t visible_width(const std::string& s, size_t end = std::string::npos) {
  size_t n = 0;
  end = std::min(end, s.size());
  for (size_t i = 0; i < end; ++i) {
    if (s[i] == '\x1b') {
      while (i < end && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;  // UTF-8: count lead bytes
  }
  return n;
}

// Lines longer than the width wrap at a space, continued with an indent of four. Each cut
// is found in one pass over the line (widths summed as it goes): a report of many long
// paragraphs wraps in time linear in its length.
inline std::string wrap_lines(const std::string& text, size_t width = compare_text_width) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    while (visible_width(line) > width) {
      // the last space that leaves the part within the width; else the longest part that fits
      size_t cut = std::string::npos, fits = 0, w = 0;
      for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == ' ' && w <= width && i > 8) cut = i;
        if (line[i] == '\x1b') {  // a colour code takes no column
          while (i + 1 < line.size() && line[i] != 'm') ++i;
          continue;
        }
        if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++w;
        if (w > width) break;
        fits = i + 1;
      }
      if (cut == std::string::npos) cut = fits;
      out += line.substr(0, cut) + "\n";
      size_t next = cut;
      while (next < line.size() && line[next] == ' ') ++next;
      line = "    " + line.substr(next);
    }
    out += line;
    if (end < text.size()) out += "\n";
    at = end + 1;
  }
  return out;
}

inline std::string node_name(const op_node& n) {
  return ::probe::detail::printable(n.op_key) + (n.type.empty() ? "" : " (" + ::probe::detail::printable(n.type) + ")") +
         " at seq " + std::to_string(n.seq);
}

// "all 784 failures in channel 15": when every failure lies in one slice of the tensor.
inline std::string slice_words(const compared_pair& p) {
  if (p.slice_dim < 0 || p.metrics.fail < 2) return "";
  const std::string where = p.a.ndim == 4 && p.slice_dim == 1 ? "channel " + std::to_string(p.slice_index)
                                                              : "index " + std::to_string(p.slice_index) + " of dimension " +
                                                                    std::to_string(p.slice_dim);
  return "all " + std::to_string(p.metrics.fail) + " failures in " + where;
}

inline std::string failing_words(const compared_pair& p) {
  const tensor_metrics& m = p.metrics;
  if (p.by_stats) return ::probe::detail::printable(p.why);
  if (p.status != pair_status::mismatch) return ::probe::detail::printable(p.why);
  std::string s = std::to_string(m.fail) + " of " + std::to_string(m.count) + " elements fail";
  if (m.nan_mismatch || m.inf_mismatch)
    s += " (" + std::to_string(m.nan_mismatch) + " NaN, " + std::to_string(m.inf_mismatch) + " Inf disagreements)";
  if (m.finite_pairs) s += ", max abs err " + num(m.max_abs, 4);
  if (!m.worst_fail.empty()) s += ", worst at " + index_text(m.worst_fail);
  s += " (atol " + num(m.tol.atol) + ", rtol " + num(m.tol.rtol) + ")";
  const std::string slice = slice_words(p);
  if (!slice.empty()) s += "; " + slice;
  if (!p.tol_note.empty()) s += "; " + ::probe::detail::printable(p.tol_note);
  return s;
}

inline void list_nodes(std::string& out, const graph_answers& g, const std::vector<size_t>& nodes, size_t most = 12) {
  for (size_t i = 0; i < nodes.size() && i < most; ++i) {
    const op_node& n = g.nodes[nodes[i]];
    out += (i ? ", " : "") + ::probe::detail::printable(own_op_key(n)) + " (seq " + std::to_string(n.seq) + ")";
  }
  if (nodes.size() > most) out += ", and " + std::to_string(nodes.size() - most) + " more";
}

inline void reach_words(std::string& out, const graph_answers& g, const std::vector<size_t>& reaches) {
  if (reaches.empty()) {
    out += "\n  Its error reaches no other op.\n";
    return;
  }
  out += "\n  Its error reaches " + std::to_string(reaches.size()) + " op" + (reaches.size() > 1 ? "s" : "") + ": ";
  list_nodes(out, g, reaches);
  out += ".\n";
}

// The runs' op sequences, when they differ: what pairs up, before any root cause.
inline void alignment_words(std::string& out, const std::string& prefix, const compared_run& run) {
  const alignment& al = run.findings.align;
  if (!al.differs()) return;
  const graph_answers& g = run.graph;
  out += prefix + "The runs' op sequences differ:";
  std::string sep = " ";
  if (!al.only_a.empty()) {
    out += sep + std::to_string(al.only_a.size()) + " op" + (al.only_a.size() > 1 ? "s" : "") + " only in A (";
    list_nodes(out, g, al.only_a, 8);
    out += ")";
    sep = "; ";
  }
  if (!al.only_b.empty()) {
    out += sep + std::to_string(al.only_b.size()) + " only in B (";
    list_nodes(out, g, al.only_b, 8);
    out += ")";
    sep = "; ";
  }
  if (!al.reordered.empty()) {
    out += sep + std::to_string(al.reordered.size()) + " in another order in B (";
    list_nodes(out, g, al.reordered, 8);
    out += ")";
    sep = "; ";
  }
  for (const std::string& c : al.count_notes) out += sep + ::probe::detail::printable(c), sep = "; ";
  out += ". Root causes are judged over the " + std::to_string(al.paired) + " ops both runs have.\n";
}

inline std::string op_root_words(const compared_run& run, const root_cause& r) {
  const graph_answers& g = run.graph;
  const op_node& n = g.nodes[r.node];
  // Inputs that pass yet differ (a tolerance the user loosened, rounding upstream): said, since
  // the op may only have grown that difference past the tolerance of its output.
  const compared_pair* differs = nullptr;
  for (size_t pi : n.inputs) {
    const compared_pair& in = run.pairs[pi];
    if (in.status == pair_status::ok && in.metrics.compared && in.metrics.max_abs > 0 &&
        (!differs || in.metrics.max_abs > differs->metrics.max_abs))
      differs = &in;
  }
  std::string out = "op " + node_name(n) + ": its inputs match";
  if (differs)
    out += " within tolerance (they differ by up to " + short_num(differs->metrics.max_abs) + ", input " +
           ::probe::detail::printable(differs->slot) + ")";
  out += ", and";
  bool first = true;
  for (size_t pi : n.outputs)
    if (status_mismatch(run.pairs[pi].status)) {
      out += std::string(first ? "" : ";") + " output " + ::probe::detail::printable(run.pairs[pi].key) + " does not: " +
             failing_words(run.pairs[pi]);
      first = false;
    }
  for (size_t pi : n.inputs) {
    const compared_pair& in = run.pairs[pi];
    if (in.status == pair_status::shape || in.status == pair_status::dtype)
      out += "; input " + ::probe::detail::printable(in.slot) + " is read with another " +
             (in.status == pair_status::shape ? "shape" : "dtype") + " (" + status_text(in) + ") from bytes that match";
  }
  return out;
}

// The reaches of several roots, once each, in sequence order.
inline std::vector<size_t> joined_reach(const graph_answers& g, const std::vector<size_t>& roots) {
  std::vector<size_t> reach;
  for (size_t x : roots) reach.insert(reach.end(), g.roots[x].reaches.begin(), g.roots[x].reaches.end());
  std::sort(reach.begin(), reach.end());
  reach.erase(std::unique(reach.begin(), reach.end()), reach.end());
  return reach;
}

// "at 3 of 3 occurrences (steps 0 to 2): a#0 (seq 1), a#1 (seq 4), a#2 (seq 7)"
inline std::string occurrence_words(const graph_answers& g, const std::vector<size_t>& roots, size_t occurrences) {
  int64_t first_step = 0, last_step = 0;
  std::vector<size_t> nodes;
  for (size_t k = 0; k < roots.size(); ++k) {
    const op_node& n = g.nodes[g.roots[roots[k]].node];
    if (k == 0 || n.step < first_step) first_step = n.step;
    if (k == 0 || n.step > last_step) last_step = n.step;
    if (nodes.empty() || nodes.back() != g.roots[roots[k]].node) nodes.push_back(g.roots[roots[k]].node);
  }
  std::string out = "at " + std::to_string(nodes.size()) + " of " + std::to_string(occurrences) + " occurrences";
  if (first_step != last_step) out += " (steps " + std::to_string(first_step) + " to " + std::to_string(last_step) + ")";
  out += ": ";
  list_nodes(out, g, nodes);
  return out;
}

// Differing graph inputs and weights: one finding, by op and slot.
inline void graph_input_words(std::string& out, const std::string& prefix, const compared_run& run, const paint& p) {
  const graph_answers& g = run.graph;
  std::vector<size_t> all;
  std::string names;
  size_t shown = 0, groups = 0;
  for (const input_group& ig : run.findings.input_groups) {
    if (ig.kind != root_kind::graph_input) continue;
    std::vector<size_t> real;
    for (size_t x : ig.roots)
      if (!g.roots[x].rounding) real.push_back(x);
    if (real.empty()) continue;
    ++groups;
    all.insert(all.end(), real.begin(), real.end());
    if (shown == 12) continue;
    ++shown;
    names += std::string(names.empty() ? "" : ", ") + ::probe::detail::printable(ig.slot) + " of " +
             ::probe::detail::printable(ig.op);
    if (ig.occurrences > 1 || real.size() > 1)
      names += " (" + std::to_string(real.size()) + " of " + std::to_string(ig.occurrences) + " occurrences)";
  }
  if (all.empty()) return;
  if (groups > shown) names += ", and " + std::to_string(groups - shown) + " more";
  out += prefix + p("Root cause:", "1;31") + " graph inputs or weights differ, the runs were fed different data: " +
         names + ".";
  reach_words(out, g, joined_reach(g, all));
}

// The rounding-level roots, in one line: no paragraph each.
inline void rounding_roots_words(std::string& out, const std::string& prefix, const compared_run& run) {
  const graph_answers& g = run.graph;
  std::vector<size_t> nodes;
  double largest = 0;
  for (const root_cause& r : g.roots)
    if (r.rounding) {
      nodes.push_back(r.node);
      largest = std::max(largest, r.severity);
    }
  if (nodes.empty()) return;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  out += prefix + "Rounding-level differences (largest error " + short_num(largest) + " of a tensor's scale) " +
         (run.same_build ? "between runs of the same build, non-deterministic?, " : "") + "start at " +
         std::to_string(nodes.size()) + " op" + (nodes.size() > 1 ? "s" : "") + ": ";
  list_nodes(out, g, nodes);
  out += ".\n";
}

// The ops among a root's reach that grew its difference back past the tolerance while their
// inputs passed (graph_answers::regrown): named, since their inputs alone look right.
// `regrown`: g.regrown, or g.regrown_by_hint with a hint's index.
inline void regrown_words(std::string& out, const graph_answers& g, const std::vector<size_t>& roots,
                          const std::vector<std::pair<size_t, size_t>>& regrown) {
  std::vector<size_t> nodes;
  for (const auto& a : regrown)
    if (std::find(roots.begin(), roots.end(), a.second) != roots.end()) nodes.push_back(a.first);
  if (nodes.empty()) return;
  out += "  Within tolerance on the way, its difference grows past it again at ";
  list_nodes(out, g, nodes);
  out += " (their inputs pass but carry it; probe replay judges such an op alone).\n";
}

// A paragraph per root that is not rounding-level; a root repeated at several occurrences or
// steps, and the differing inputs of one op and slot, are one paragraph each. Past
// `most` paragraphs, the other roots are one line: their count and the first of them.
inline void root_words(std::string& out, const std::string& prefix, const compared_run& run, const paint& p,
                       size_t most = SIZE_MAX) {
  const graph_answers& g = run.graph;
  const run_findings& f = run.findings;
  std::vector<char> done(g.roots.size(), 0);
  std::vector<size_t> rest;  // nodes of the roots past `most` paragraphs
  size_t said = 0;
  bool fed_said = false;
  for (size_t ri = 0; ri < g.roots.size(); ++ri) {
    const root_cause& r = g.roots[ri];
    if (done[ri] || r.rounding) continue;
    const op_node& n = g.nodes[r.node];
    if (r.kind == root_kind::graph_input) {
      if (!fed_said) graph_input_words(out, prefix, run, p);
      fed_said = true;
      continue;
    }
    if (said == most) {
      rest.push_back(r.node);
      continue;
    }
    ++said;
    const size_t gi = ri < f.group_of_root.size() ? f.group_of_root[ri] : SIZE_MAX;
    std::vector<size_t> members;  // the root's group, less its rounding-level roots
    if (gi != SIZE_MAX)
      for (size_t x : r.is_input ? f.input_groups[gi].roots : f.root_groups[gi].roots)
        if (!g.roots[x].rounding) members.push_back(x);
    if (members.empty()) members.push_back(ri);
    for (size_t x : members) done[x] = 1;
    const bool jitter = run.same_build && !r.is_input;  // two runs of one build: not a bug
    out += prefix + (jitter ? p("Differs between runs of the same build, non-deterministic?", "1;33") : p("Root cause:", "1;31")) + " ";
    const root_cause& first = g.roots[members[0]];
    if (r.is_input) {
      const compared_pair& in = run.pairs[first.input];
      out += "input " + ::probe::detail::printable(in.slot) + " of op " + node_name(g.nodes[first.node]) + " (" +
             ::probe::detail::printable(in.key) + ") differs, and its producer " + ::probe::detail::printable(in.producer) +
             " was not dumped";
      if (members.size() > 1) out += "; the same " + occurrence_words(g, members, f.input_groups[gi].occurrences);
      out += ".";
    } else if (members.size() == 1) {
      out += op_root_words(run, r) + ".";
    } else {
      // an op that is a root at several occurrences or steps: one finding, every instance named
      out += ::probe::detail::printable(n.op) + ": root cause " + occurrence_words(g, members, f.root_groups[gi].occurrences) +
             "; first at step " + std::to_string(g.nodes[first.node].step) + ": " + op_root_words(run, first) + ".";
    }
    reach_words(out, g, joined_reach(g, members));
    regrown_words(out, g, members, g.regrown);
  }
  if (!rest.empty()) {
    out += prefix + p("And " + std::to_string(rest.size()) + " more root causes", "1;31") +
           " (--all says each in full; the JSON report lists them all): ";
    list_nodes(out, g, rest);
    out += ".\n";
  }
  rounding_roots_words(out, prefix, run);
}

inline void hint_words(std::string& out, const std::string& prefix, const compared_run& run, const paint& p) {
  const graph_answers& g = run.graph;
  for (size_t hi = 0; hi < g.hints.size(); ++hi) {
    const graph_hint& h = g.hints[hi];
    const std::string consumer = ::probe::detail::printable(h.consumer_op), slot = ::probe::detail::printable(h.slot);
    const std::string producer = ::probe::detail::printable(h.producer_key);
    // An occurrence whose difference the overwritten output already had is not counted as
    // differing (the code is not blamed for it), but it is not said to match either.
    const std::string times =
        h.inputs.size() > 1 ? " (" + std::to_string(h.differing + h.carried) + " of " + std::to_string(h.inputs.size()) +
                                  " occurrences differ" +
                                  (h.carried ? ", " + std::to_string(h.carried) + " as the output they overwrote did" : "") + ")"
        : h.differing       ? " (it differs)"
        : h.carried         ? " (it differs, as " + producer + " did)"
                            : " (it matches)";
    out += prefix + p("Hint:", "1;33") + " ";
    if (h.kind == hint_kind::outside_op) {
      out += "input " + slot + " of " + consumer + times + " was written by code outside any op between " + producer +
             " and " + consumer;
      if (!h.last_op.empty()) out += " (the last op before it: " + ::probe::detail::printable(h.last_op) + ")";
      out += ": mark that code as an op.";
    } else if (h.kind == hint_kind::unlinked_copy) {
      const std::string cast = h.converted.empty() ? "" : ", cast " + h.converted;
      out += "input " + slot + " of " + consumer + times +
             (h.part == part_relation::part_of     ? " holds part of the values " + producer + " wrote" + cast + " (by their values)"
              : h.part == part_relation::among     ? " holds the values " + producer + " wrote among others" + cast + " (by their values)"
              : h.part == part_relation::reordered ? " holds the values " + producer + " wrote, reordered" + cast + " (by their values)"
              : h.part == part_relation::affine    ? " holds values computed from those " + producer +
                                                      " wrote, each a x + b of the one at its index" + cast + " (by their values)"
              : h.part == part_relation::monotone  ? " holds values computed from those " + producer +
                                                      " wrote, each a monotone function of the one at its index" + cast +
                                                      " (by their values)"
              : h.part == part_relation::combined  ? " holds values computed from those " + producer + " wrote and those of " +
                                                      ::probe::detail::printable(h.with_key) +
                                                      ", each a x + b y + c of the two at its index" + cast + " (by their values)"
              : h.converted.empty()                ? " holds the bytes " + producer + " wrote"
                                   : " holds the values " + producer + " wrote, cast " + h.converted + " (by their statistics)") +
             (h.part == part_relation::affine || h.part == part_relation::monotone || h.part == part_relation::combined
                  ? ", in both runs, but no op declared them there: computed outside any op? Mark that code as an op, "
                    "or link the input to " + producer + " (op.link, probe_op_link)."
                  : ", in both runs, but no op declared them there: copied outside any op, or by an op that declared "
                    "its result elsewhere (a scratch copied into place)? Mark the copy as an op, declare the bytes the "
                    "result ends in as the op's output, or link the input to " + producer + " (op.link, probe_op_link).");
    } else if (h.kind == hint_kind::outside_step) {
      out += "input " + slot + " of " + consumer + times + " comes from " + producer + ", outside --step (step " +
             std::to_string(h.producer_step) + "): compare without --step to follow it.";
    } else {
      out += "input " + slot + " of " + consumer + times + " comes from " + producer + ", which ran in " + h.only_in +
             " only: the graphs differ there, so it is not judged.";
    }
    if (h.differing) {
      reach_words(out, g, h.reaches);
      regrown_words(out, g, {hi}, g.regrown_by_hint);
    } else {
      out += "\n";
    }
  }
}

inline void more_words(std::string& out, const std::string& prefix, const compared_run& run) {
  const graph_answers& g = run.graph;
  for (const amplifier& a : run.findings.amplifiers)
    out += prefix + "Adds error beyond its inputs: op " + node_name(g.nodes[a.node]) + ": output error " +
           num(a.out_error, 2) + " of its scale, inputs " + num(a.in_error, 2) + ".\n";
  for (const type_group& t : run.findings.types) {
    if (t.faulty.size() < 2 && t.suspects.empty()) continue;
    out += prefix + "Op type " + ::probe::detail::printable(t.type) + ": faulty at " + std::to_string(t.faulty.size()) +
           " of " + std::to_string(t.instances) + " instances: ";
    list_nodes(out, g, t.faulty);
    if (!t.suspects.empty()) {
      // every other mismatching instance: a bug there may add less error than it inherits
      out += "; not judged, their inputs differ already (probe replay judges each alone): ";
      for (size_t i = 0; i < t.suspects.size() && i < 12; ++i) {
        const op_node& n = g.nodes[t.suspects[i]];
        out += (i ? ", " : "") + ::probe::detail::printable(n.op_key) + " (seq " + std::to_string(n.seq) + ", error x" +
               (std::isfinite(t.growth[i]) ? num(t.growth[i], 2) : std::string("inf")) + ")";
      }
      if (t.suspects.size() > 12) out += ", and " + std::to_string(t.suspects.size() - 12) + " more";
    }
    out += ".\n";
  }
}

inline void answers(std::string& out, const compared_run& run, const paint& p, size_t most_roots) {
  const graph_answers& g = run.graph;
  const std::string prefix = run.name.empty() ? "" : ::probe::detail::printable(run.name) + ": ";
  if (!g.available) return;
  alignment_words(out, prefix, run);
  if (g.first_divergence < 0 && g.roots.empty() && g.hints.empty()) {
    out += prefix + "no op diverges.\n";
    return;
  }
  if (g.first_divergence >= 0) {
    const op_node& n = g.nodes[static_cast<size_t>(g.first_divergence)];
    out += prefix + p("First divergence:", "1") + " op " + node_name(n) + ".";
    for (size_t pi : n.outputs)
      if (status_mismatch(run.pairs[pi].status)) {
        out += " Output " + ::probe::detail::printable(run.pairs[pi].key) + ": " + failing_words(run.pairs[pi]) + ".";
        break;
      }
    out += "\n";
  }
  root_words(out, prefix, run, p, most_roots);
  hint_words(out, prefix, run, p);
  more_words(out, prefix, run);
  if (!g.unexplained.empty()) {
    out += prefix + "Mismatching ops no root explains: ";
    list_nodes(out, g, g.unexplained);
    out += ".\n";
  }
}

// "all failures are rounding-level: --atol 4e-5 passes; largest relative error 2e-6", when
// every out-of-tolerance tensor is; "" otherwise.
inline std::string rounding_words(const compare_report& r) {
  if (!r.all_rounding) return "";
  return "All failures are rounding-level: --atol " + short_num(round_up_1(r.rounding_atol)) +
         " passes; largest relative error " + short_num(r.rounding_rel) + " (of each tensor's largest value)" +
         (r.settings.accept_rounding ? "; accepted (--accept-rounding)." : ".");
}

}  // namespace compare_text_impl

inline std::string tolerance_words(const compare_settings& s) {
  std::string t;
  if (s.tol.atol >= 0 && s.tol.rtol >= 0)
    t = "atol " + compare_text_impl::num(s.tol.atol) + ", rtol " + compare_text_impl::num(s.tol.rtol);
  else
    t = std::string("per-dtype defaults") + (s.tol.atol >= 0 ? " with atol " + compare_text_impl::num(s.tol.atol) : "") +
        (s.tol.rtol >= 0 ? " with rtol " + compare_text_impl::num(s.tol.rtol) : "");
  if (!s.overrides.empty()) t += ", " + std::to_string(s.overrides.size()) + " --tol override(s)";
  std::string check = check_mode_name(s.check.mode);
  if (s.check.mode == check_mode::quantile) check += ":" + compare_text_impl::num(s.check.quantile);
  return t + "; check " + check + "; NaN " + (s.check.equal_nan ? "==" : "!=") + " NaN; Inf " +
         (s.check.inf_equal ? "==" : "!=") + " Inf";
}

// The answers in words: notes, counts, alignment, first divergence, root causes, hints;
// past `most_roots` root-cause paragraphs per run, the rest are counted and named in one line.
inline std::string compare_summary_text(const compare_report& r, bool color = false, size_t most_roots = SIZE_MAX) {
  using namespace compare_text_impl;
  const paint p{color};
  std::string out;
  for (const std::string& n : r.notes) out += "note: " + ::probe::detail::printable(n) + "\n";
  const compare_counts& k = r.counts;
  out += std::to_string(k.pairs) + " tensors: " + std::to_string(k.ok) + " within tolerance, " +
         std::to_string(k.mismatch) + " out of tolerance";
  if (k.shape) out += ", " + std::to_string(k.shape) + " with different shapes";
  if (k.dtype) out += ", " + std::to_string(k.dtype) + " with incomparable dtypes";
  if (k.only_a) out += ", " + std::to_string(k.only_a) + " only in A";
  if (k.only_b) out += ", " + std::to_string(k.only_b) + " only in B";
  if (k.no_data) out += ", " + std::to_string(k.no_data) + " without data";
  out += ".";
  if (k.by_stats)
    out += " " + std::to_string(k.by_stats) + " of them compared by their statistics only (no data files): " +
           "min, max, mean, std, NaN/Inf counts.";
  out += "\n";
  for (const std::string& n : r.runs_only_a) out += "Run folder " + ::probe::detail::printable(n) + " is only in A.\n";
  for (const std::string& n : r.runs_only_b) out += "Run folder " + ::probe::detail::printable(n) + " is only in B.\n";
  const std::string rounding = rounding_words(r);
  if (!rounding.empty()) out += p(rounding, "33") + "\n";
  out += rank_summary_text(r);
  for (const compared_run& run : r.runs) answers(out, run, p, most_roots);
  if (r.kind == "npy folders" || r.kind == "npy files") {
    for (const compared_run& run : r.runs)
      for (const compared_pair& q : run.pairs)
        if (status_mismatch(q.status)) {
          out += "First mismatching file (in name order): " + ::probe::detail::printable(q.key) + ": " + failing_words(q) + ".\n";
          break;
        }
  }
  if (r.exit_code() == 0) out += p(r.counts.bad() ? "Accepted: every failure is rounding-level." : "All within tolerance.", "32") + "\n";
  return wrap_lines(out);
}

}  // namespace analysis
PROBE_END_NAMESPACE
