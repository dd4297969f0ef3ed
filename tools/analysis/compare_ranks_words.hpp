// The answers across the ranks of an MPI run in words (compare_ranks.hpp): the first
// divergence in time over all ranks, the ops reached through a message instead of being roots,
// what each root reaches on other ranks, the notes when messages were not recorded, and the
// ranks missing or cut short. Printed before each rank's own answers. Standalone header.
#pragma once
#include <string>
#include <vector>

#include <probe/util/text.hpp>
#include "compare_run.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace ranks_words_impl {

inline std::string op_words(const op_node& n) {
  return ::probe::detail::printable(n.op_key) + (n.type.empty() ? "" : " (" + ::probe::detail::printable(n.type) + ")") +
         " at seq " + std::to_string(n.seq);
}

inline std::string rank_name(const compared_run& run) { return "rank " + std::to_string(run.ranks.a.rank); }

// "halo#2, stencil#2, ... and 3 more" from a list of nodes of one run.
inline std::string node_list(const compared_run& run, const std::vector<size_t>& nodes, size_t most = 8) {
  std::string s;
  for (size_t i = 0; i < nodes.size() && i < most; ++i)
    s += (i ? ", " : "") + ::probe::detail::printable(run.graph.nodes[nodes[i]].op_key);
  if (nodes.size() > most) s += ", and " + std::to_string(nodes.size() - most) + " more";
  return s;
}

}  // namespace ranks_words_impl

inline std::string rank_summary_text(const compare_report& r) {
  using namespace ranks_words_impl;
  const rank_answers& k = r.ranks;
  if (!k.multi) return std::string();
  std::string out;
  out += "Across " + std::to_string(r.runs.size()) + " ranks" +
         (k.messages ? " (messages recorded by probe::mpi)" : " (no message records: probe::mpi was not linked)") + ":";
  if (k.first_run >= 0) {
    const compared_run& run = r.runs[static_cast<size_t>(k.first_run)];
    out += " first divergence in time: " + rank_name(run) + ", op " +
           op_words(run.graph.nodes[static_cast<size_t>(k.first_node)]) + ".";
  } else {
    out += " no op diverges.";
  }
  // As each rank's answers count them: an op each, and the inputs that differ by op and slot.
  size_t roots = 0;
  for (const compared_run& run : r.runs) {
    for (const root_cause& c : run.graph.roots) roots += !c.is_input;
    for (const input_group& g : run.findings.input_groups) roots += !g.roots.empty();
  }
  out += " " + std::to_string(roots) + " root cause" + (roots == 1 ? "" : "s") + " over all ranks.\n";
  for (const rank_link& l : k.links) {
    const compared_run& run = r.runs[l.run];
    const compared_run& from = r.runs[l.from_run];
    out += rank_name(run) + ": op " + op_words(run.graph.nodes[l.node]) + " is not a root: ";
    if (l.tag >= 0)
      out += "what it received from rank " + std::to_string(l.peer) + " differs (" + ::probe::detail::printable(l.call) +
             ", tag " + std::to_string(l.tag) + ")";
    else  // a collective: what it got back differs, and so does what another rank gave
      out += "what " + ::probe::detail::printable(l.call) + " gave it differs, and so does rank " + std::to_string(l.peer) +
             "'s contribution";
    if (l.from_node >= 0) {
      const std::string op = ::probe::detail::printable(from.graph.nodes[static_cast<size_t>(l.from_node)].op_key);
      if (!l.via.empty())
        out += ": received from rank " + std::to_string(l.peer) + " `" + op + "`'s output (" +
               ::probe::detail::printable(l.via) + ")";
      else  // the op in flight: no recorded op wrote those bytes, so none is named as their maker
        out += ": sent by rank " + std::to_string(l.peer) + " while `" + op + "` ran (no recorded op produced the bytes)";
    }
    if (l.origin_run >= 0) {
      const compared_run& o = r.runs[static_cast<size_t>(l.origin_run)];
      if (!l.origin_input.empty())
        out += "; on " + rank_name(o) + " they come from an input that differs there, " +
               ::probe::detail::printable(l.origin_input);
      else
        out += "; from the root " + ::probe::detail::printable(o.graph.nodes[static_cast<size_t>(l.origin_node)].op_key) +
               " on " + rank_name(o);
    }
    out += ".\n";
  }
  // Per root, what it reaches on other ranks through the links.
  for (size_t ri = 0; ri < r.runs.size(); ++ri)
    for (const root_cause& root : r.runs[ri].graph.roots) {
      std::string reach;
      const std::string input = root.is_input ? r.runs[ri].pairs[root.input].key : std::string();
      for (const rank_link& l : k.links) {
        if (l.origin_run != static_cast<long>(ri) || l.origin_node != static_cast<long>(root.node) ||
            l.origin_input != input)
          continue;
        std::vector<size_t> nodes{l.node};
        for (size_t x : l.reaches)
          if (x != l.node) nodes.push_back(x);
        reach += (reach.empty() ? "" : "; ") + rank_name(r.runs[l.run]) + ": " + node_list(r.runs[l.run], nodes);
      }
      if (!reach.empty())
        out += (input.empty() ? "Root " + ::probe::detail::printable(r.runs[ri].graph.nodes[root.node].op_key)
                              : "The differing input " + ::probe::detail::printable(input)) +
               " on " + rank_name(r.runs[ri]) + " reaches other ranks: " + reach + ".\n";
    }
  for (const std::string& n : k.notes) out += "Note: " + n + ".\n";
  for (const std::string& m : k.missing) out += "Missing: " + m + ".\n";
  for (const std::string& i : k.incomplete) out += "Incomplete: " + i + ".\n";
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
