// The answers across MPI ranks (compare_ranks.hpp) in `probe compare --json`: the "ranks"
// member, null for a single run. Runs are named by their rank; ops by op#occurrence and seq.
// Standalone header.
#pragma once
#include <string>

#include <probe/formats/json_write.hpp>
#include "compare_run.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace ranks_json_impl {

inline void op_ref(json::writer& w, const compared_run& run, size_t node) {
  const op_node& n = run.graph.nodes[node];
  w.begin_object().member("rank", run.ranks.a.rank).member("op", n.op_key);
  w.member("seq", static_cast<unsigned long long>(n.seq)).end_object();
}

inline void strings(json::writer& w, const char* key, const std::vector<std::string>& v) {
  w.key(key).begin_array();
  for (const std::string& s : v) w.value(s);
  w.end_array();
}

}  // namespace ranks_json_impl

inline void ranks_json(json::writer& w, const compare_report& r) {
  using namespace ranks_json_impl;
  const rank_answers& k = r.ranks;
  if (!k.multi) {
    w.null();
    return;
  }
  w.begin_object().member("messages", k.messages);
  w.key("first_divergence");
  if (k.first_run >= 0) op_ref(w, r.runs[static_cast<size_t>(k.first_run)], static_cast<size_t>(k.first_node));
  else w.null();
  w.key("roots").begin_array();
  for (const compared_run& run : r.runs)
    for (const root_cause& c : run.graph.roots) op_ref(w, run, c.node);
  w.end_array();
  // Ops that would be roots of their rank, reached through a message instead.
  w.key("received").begin_array();
  for (const rank_link& l : k.links) {
    const compared_run& run = r.runs[l.run];
    w.begin_object().key("op"), op_ref(w, run, l.node);
    w.member("from_rank", l.peer).member("tag", l.tag).member("call", l.call);
    w.key("sent_by");
    if (l.from_node >= 0) op_ref(w, r.runs[l.from_run], static_cast<size_t>(l.from_node));
    else w.null();
    w.member("output", l.via);
    w.key("root");
    if (l.origin_run >= 0) op_ref(w, r.runs[static_cast<size_t>(l.origin_run)], static_cast<size_t>(l.origin_node));
    else w.null();
    w.key("root_input");  // the root is an input that differs on its rank: its key
    if (l.origin_input.empty()) w.null();
    else w.value(l.origin_input);
    w.key("reaches").begin_array();
    for (size_t x : l.reaches) op_ref(w, run, x);
    w.end_array().end_object();
  }
  w.end_array();
  strings(w, "notes", k.notes);
  strings(w, "missing", k.missing);
  strings(w, "incomplete", k.incomplete);
  w.end_object();
}

}  // namespace analysis
PROBE_END_NAMESPACE
