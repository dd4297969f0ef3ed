// `probe compare` across the ranks of an MPI run: each rank's graph is answered alone first
// (compare_graph.hpp); this links them.
// - Messages (probe::mpi's records, dump_messages.hpp): a receive on rank R pairs with the send
//   on its peer of the same tag and order (MPI keeps one sender's messages of a tag in order).
//   A root of R whose inputs match but who received, while it ran, bytes that differ between
//   the runs is no root: it is reached from the op that produced those bytes on the sender
//   ("received from rank 2 `stencil#1`'s output"), and followed on to that rank's root.
// - The first divergence in time across ranks (the wall clock of each op's outputs; the ranks
//   of one host share it).
// - Without message records: a root that comes after another rank's first divergence carries
//   a note that it may have received that rank's data.
// - Ranks missing on a side (from the run records' world size) and ranks whose run did not end.
// Templates over the report's run type (compare_run.hpp), so that this file stands apart.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compare_findings.hpp"
#include "compare_graph.hpp"
#include "rank_records.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// An op that would be a root on its rank, reached instead through a message.
struct rank_link {
  size_t run = 0, node = 0;            // the receiving op
  int peer = -1, tag = 0;              // the message that differs (tag -1: a collective)
  std::string call;
  size_t from_run = 0;                 // the sender's run
  long from_node = -1;                 // the op whose output was sent, else the op in flight (-1: none)
  std::string via;                     // that output's key ("stencil#1/out/u"); "": no recorded producer
  std::vector<size_t> reaches;         // what the demoted root reached on its rank
  long origin_run = -1, origin_node = -1;  // the root it comes from, followed across ranks
  std::string origin_input;  // that root is an input that differs (its key), not an op: or ""
};

struct rank_answers {
  bool multi = false;   // several ranks: the answers below are given
  bool messages = false;  // some rank has probe::mpi's records
  long first_run = -1, first_node = -1;  // first divergence in time over all ranks
  std::vector<rank_link> links;
  std::vector<std::string> notes;    // roots that may have received another rank's data
  std::vector<std::string> missing;  // "rank 3 has no dump in B"
  std::vector<std::string> incomplete;
};

namespace ranks_impl {

inline std::string op_of_key(const std::string& key) {
  const size_t at = key.find("/out/");
  return at == std::string::npos ? key : key.substr(0, at);
}

template <class Run>
long node_by(const Run& run, uint64_t seq, bool side_b) {
  const std::vector<op_node>& nodes = run.graph.nodes;
  for (size_t i = 0; i < nodes.size(); ++i)
    if ((side_b ? nodes[i].seq_b : nodes[i].seq) == seq && seq) return static_cast<long>(i);
  return -1;
}

template <class Run>
long node_by_key(const Run& run, const std::string& op_key) {
  const std::vector<op_node>& nodes = run.graph.nodes;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].op_key == op_key) return static_cast<long>(i);
  return -1;
}

using message_key = std::tuple<int, int, uint64_t>;  // peer, tag, order

// The receives of one side made while the op of sequence `seq` ran.
inline std::map<message_key, const dump_message*> receives_in(const rank_side& s, uint64_t seq) {
  std::map<message_key, const dump_message*> out;
  if (!seq) return out;
  for (const dump_message& m : s.messages)
    if (!m.collective && !m.send && m.seq == seq) out[message_key(m.peer, m.tag, m.order)] = &m;
  return out;
}

inline const dump_message* send_to(const rank_side& s, int peer, int tag, uint64_t order) {
  for (const dump_message& m : s.messages)
    if (!m.collective && m.send && m.peer == peer && m.tag == tag && m.order == order) return &m;
  return nullptr;
}

inline const dump_message* collective_at(const rank_side& s, uint64_t order) {
  for (const dump_message& m : s.messages)
    if (m.collective && m.order == order) return &m;
  return nullptr;
}

// The op on the sender whose output the message carried: the producer of its buffer, else the
// op in flight when it was sent.
template <class Run>
void sent_by(const Run& from, const dump_message& m, rank_link* l) {
  for (const std::string& p : m.producers) {
    const long pn = node_by_key(from, op_of_key(p));
    if (pn >= 0) {
      l->from_node = pn;
      l->via = p;
      return;
    }
  }
  l->from_node = node_by(from, m.seq, false);
}

template <class Run>
double op_time(const Run& run, size_t node) {
  auto it = run.ranks.a.op_time.find(run.graph.nodes[node].op_key);
  return it == run.ranks.a.op_time.end() ? 0 : it->second;
}

// Why a rank cut short was, by its records, blocked in MPI ("" when they do not say): its last
// record is the send half of a call that returns only once its peer takes part (the receive
// half is recorded when the call returns).
inline std::string waiting_in(const rank_side& s) {
  if (!s.messages.empty()) {
    const dump_message& m = s.messages.back();
    if (m.send && !m.collective && m.wall_time >= s.last_time && !(m.call == "MPI_Sendrecv" && m.recv_from == -1)) {
      if (m.call == "MPI_Ssend") return "it was waiting in MPI_Ssend to rank " + std::to_string(m.peer);
      if (m.call == "MPI_Sendrecv")
        return "it was waiting in MPI_Sendrecv" + (m.recv_from >= 0 ? " for rank " + std::to_string(m.recv_from) : "") +
               " (its send" + (m.peer >= 0 ? " to rank " + std::to_string(m.peer) : " half, to MPI_PROC_NULL,") +
               " recorded, its receive not)";
    }
  }
  return "";
}

// The rank a waiting rank waited for (its MPI_Sendrecv's receive side), or -1.
inline int waited_for(const rank_side& s) {
  if (waiting_in(s).empty()) return -1;
  const dump_message& m = s.messages.back();
  return m.call == "MPI_Sendrecv" ? m.recv_from : m.peer;
}

// Takes the roots of `drop` out of a graph; the indices that name roots (regrown) follow.
inline void drop_roots(graph_answers* g, const std::vector<char>& drop) {
  std::vector<size_t> new_index(g->roots.size(), SIZE_MAX);
  std::vector<root_cause> kept;
  for (size_t i = 0; i < g->roots.size(); ++i)
    if (!drop[i]) {
      new_index[i] = kept.size();
      kept.push_back(std::move(g->roots[i]));
    }
  g->roots = std::move(kept);
  std::vector<std::pair<size_t, size_t>> regrown;
  for (const auto& x : g->regrown)
    if (new_index[x.second] != SIZE_MAX) regrown.emplace_back(x.first, new_index[x.second]);
  g->regrown = std::move(regrown);
}

}  // namespace ranks_impl

// Links the ranks' answers through messages; takes the roots reached through one out of their
// rank's graph. Call between analyze_graph and find_more.
// `only_a`, `only_b`: the run folders present on one side only (compare_report).
template <class Run>
rank_answers link_ranks(std::vector<Run>* runs, const std::vector<std::string>& only_a = {},
                        const std::vector<std::string>& only_b = {}) {
  using namespace ranks_impl;
  rank_answers out;
  std::unordered_map<int, size_t> run_of_rank;
  for (size_t i = 0; i < runs->size(); ++i)
    if ((*runs)[i].ranks.a.rank >= 0) run_of_rank[(*runs)[i].ranks.a.rank] = i;
  if (run_of_rank.size() < 2) return out;
  out.multi = true;
  for (const Run& run : *runs) out.messages = out.messages || !run.ranks.a.messages.empty() || !run.ranks.b.messages.empty();

  // 1. Roots that received differing bytes while they ran.
  std::vector<std::vector<long>> link_of(runs->size());  // per run, per root: links index or -1
  for (size_t ri = 0; ri < runs->size(); ++ri) {
    Run& run = (*runs)[ri];
    link_of[ri].assign(run.graph.roots.size(), -1);
    for (size_t k = 0; k < run.graph.roots.size(); ++k) {
      const root_cause& root = run.graph.roots[k];
      if (root.is_input) continue;
      const op_node& n = run.graph.nodes[root.node];
      const auto ra = receives_in(run.ranks.a, n.seq), rb = receives_in(run.ranks.b, n.seq_b);
      for (const auto& x : ra) {
        auto y = rb.find(x.first);
        if (y == rb.end() || x.second->hash == y->second->hash) continue;
        auto sender = run_of_rank.find(std::get<0>(x.first));
        if (sender == run_of_rank.end()) continue;
        const Run& from = (*runs)[sender->second];
        rank_link l;
        l.run = ri;
        l.node = root.node;
        l.peer = std::get<0>(x.first);
        l.tag = std::get<1>(x.first);
        l.call = x.second->call;
        l.from_run = sender->second;
        l.reaches = root.reaches;
        if (const dump_message* s = send_to(from.ranks.a, run.ranks.a.rank, l.tag, std::get<2>(x.first)))
          sent_by(from, *s, &l);
        link_of[ri][k] = static_cast<long>(out.links.size());
        out.links.push_back(std::move(l));
        break;
      }
      if (link_of[ri][k] >= 0) continue;
      // A collective in flight whose result differs while another rank's contribution does.
      for (const dump_message& ca : run.ranks.a.messages) {
        if (!ca.collective || ca.seq != n.seq || !n.seq) continue;
        const dump_message* cb = collective_at(run.ranks.b, ca.order);
        if (!cb || cb->seq != n.seq_b || ca.result_hash == cb->result_hash) continue;
        long from = -1;
        const dump_message* given = nullptr;
        for (size_t pi = 0; pi < runs->size() && from < 0; ++pi) {
          if (pi == ri) continue;
          const dump_message* pa = collective_at((*runs)[pi].ranks.a, ca.order);
          const dump_message* pb = collective_at((*runs)[pi].ranks.b, ca.order);
          if (pa && pb && pa->hash != pb->hash) from = static_cast<long>(pi), given = pa;
        }
        if (from < 0) continue;
        rank_link l;
        l.run = ri;
        l.node = root.node;
        l.peer = (*runs)[static_cast<size_t>(from)].ranks.a.rank;
        l.tag = -1;
        l.call = ca.call;
        l.from_run = static_cast<size_t>(from);
        l.reaches = root.reaches;
        sent_by((*runs)[l.from_run], *given, &l);
        link_of[ri][k] = static_cast<long>(out.links.size());
        out.links.push_back(std::move(l));
        break;
      }
    }
  }

  // 2. Each link's origin: the root on the sender that reaches the op whose bytes were sent,
  // followed through further links (a chain of ranks), never around a cycle.
  for (size_t li = 0; li < out.links.size(); ++li) {
    size_t r = out.links[li].from_run;
    long node = out.links[li].from_node;
    std::vector<size_t> seen{li};
    while (node >= 0) {
      const graph_answers& g = (*runs)[r].graph;
      long found = -1;  // root index on run r
      for (size_t k = 0; k < g.roots.size() && found < 0; ++k) {
        const root_cause& root = g.roots[k];
        if (root.node == static_cast<size_t>(node) ||
            std::find(root.reaches.begin(), root.reaches.end(), static_cast<size_t>(node)) != root.reaches.end())
          found = static_cast<long>(k);
      }
      if (found < 0) break;  // nothing on that rank explains it: the op itself is named
      const long next = link_of[r][static_cast<size_t>(found)];
      if (next < 0) {
        const root_cause& root = g.roots[static_cast<size_t>(found)];
        out.links[li].origin_run = static_cast<long>(r);
        out.links[li].origin_node = static_cast<long>(root.node);
        if (root.is_input) out.links[li].origin_input = (*runs)[r].pairs[root.input].key;
        break;
      }
      if (std::find(seen.begin(), seen.end(), static_cast<size_t>(next)) != seen.end()) break;
      seen.push_back(static_cast<size_t>(next));
      r = out.links[static_cast<size_t>(next)].from_run;
      node = out.links[static_cast<size_t>(next)].from_node;
    }
  }
  for (size_t ri = 0; ri < runs->size(); ++ri) {
    std::vector<char> drop(link_of[ri].size(), 0);
    bool any = false;
    for (size_t k = 0; k < drop.size(); ++k) {
      drop[k] = link_of[ri][k] >= 0;
      any = any || drop[k];
    }
    if (any) drop_roots(&(*runs)[ri].graph, drop);
  }

  // 3. The first divergence in time over all ranks.
  double first_time = 0;
  for (size_t ri = 0; ri < runs->size(); ++ri) {
    const Run& run = (*runs)[ri];
    if (run.graph.first_divergence < 0) continue;
    const double t = op_time(run, static_cast<size_t>(run.graph.first_divergence));
    if (out.first_run < 0 || (t > 0 && (first_time <= 0 || t < first_time))) {
      out.first_run = static_cast<long>(ri);
      out.first_node = run.graph.first_divergence;
      first_time = t;
    }
  }

  // 4. Without message records, a root after another rank's divergence may be its data.
  for (size_t ri = 0; ri < runs->size() && !out.messages; ++ri) {
    const Run& run = (*runs)[ri];
    for (const root_cause& root : run.graph.roots) {
      if (root.is_input) continue;
      const double t = op_time(run, root.node);
      long earliest = -1;
      double at = 0;
      for (size_t pi = 0; pi < runs->size(); ++pi) {
        const Run& other = (*runs)[pi];
        if (pi == ri || other.graph.first_divergence < 0) continue;
        const double u = op_time(other, static_cast<size_t>(other.graph.first_divergence));
        if (u > 0 && t > 0 && u < t && (earliest < 0 || u < at)) {
          earliest = static_cast<long>(pi);
          at = u;
        }
      }
      if (earliest < 0) continue;
      const Run& other = (*runs)[static_cast<size_t>(earliest)];
      out.notes.push_back(
          "root " + ::probe::detail::printable(run.graph.nodes[root.node].op_key) + " on rank " +
          std::to_string(run.ranks.a.rank) + " comes after rank " + std::to_string(other.ranks.a.rank) +
          "'s first divergence (" +
          ::probe::detail::printable(other.graph.nodes[static_cast<size_t>(other.graph.first_divergence)].op_key) +
          "): it may have received that rank's data; link probe::mpi to record messages and follow them");
    }
  }

  // 5. Ranks missing on a side, and runs that did not end.
  int world_a = 0, world_b = 0;
  for (const Run& run : *runs) {
    world_a = std::max(world_a, run.ranks.a.world);
    world_b = std::max(world_b, run.ranks.b.world);
  }
  const int world = std::max(world_a, world_b);
  for (int side = 0; side < 2; ++side) {
    // When one rank dies, the launcher ends the others. Which one failed is not in the records'
    // times alone: a rank blocked in MPI waiting for the failed one recorded nothing since it
    // began waiting, maybe before the failed rank's last record. A rank whose last record is
    // the send half of a call that waits for its peer (MPI_Sendrecv, MPI_Ssend) was waiting
    // there, for the rank its receive takes from; the rank such waits lead to, itself waiting
    // for no one, stopped first.
    std::map<int, const rank_side*> cut_ranks;
    for (const Run& run : *runs) {
      const rank_side& s = side ? run.ranks.b : run.ranks.a;
      if (s.present && !s.has_end) cut_ranks[s.rank] = &s;
    }
    int first = -1, waiter = -1;
    bool agreed = true;
    for (const auto& c : cut_ranks) {
      int at = c.first, steps = 0, last_waiter = -1;
      while (steps++ <= static_cast<int>(cut_ranks.size())) {
        auto it = cut_ranks.find(at);
        if (it == cut_ranks.end()) break;
        const int next = waited_for(*it->second);
        if (next < 0) break;
        last_waiter = at;
        at = next;
      }
      auto end = cut_ranks.find(at);
      if (last_waiter < 0 || end == cut_ranks.end() || waited_for(*end->second) >= 0) continue;  // no chain, or a cycle
      if (first >= 0 && first != at) agreed = false;
      first = at;
      waiter = last_waiter;
    }
    // Only when every other rank cut short is shown waiting: one blocked where nothing is
    // recorded (a collective) may be what the others wait for.
    size_t waiting = 0;
    for (const auto& c : cut_ranks) waiting += !waiting_in(*c.second).empty();
    if (!agreed || waiting + 1 != cut_ranks.size()) first = -1;
    for (const auto& c : cut_ranks) {
      const rank_side& s = *c.second;
      std::string line = "rank " + std::to_string(s.rank) + " in " + (side ? "B" : "A") +
                         " is incomplete: no end record (killed, or still running); its last recorded op: " +
                         ::probe::detail::printable(s.last_op) + " at step " + std::to_string(s.last_step) + ", seq " +
                         std::to_string(s.last_seq);
      const std::string waited = waiting_in(s);
      if (!waited.empty())
        line += "; " + waited;
      else if (s.rank == first)
        line += "; it stopped first: rank " + std::to_string(waiter) + " was waiting for it in MPI";
      out.incomplete.push_back(line);
    }
  }
  for (int side = 0; side < 2; ++side) {
    std::vector<char> has(static_cast<size_t>(std::max(world, 0)), 0);
    for (const Run& run : *runs) {
      const int r = (side ? run.ranks.b : run.ranks.a).rank;
      if (r >= 0 && r < world) has[static_cast<size_t>(r)] = 1;
    }
    for (const std::string& name : side ? only_b : only_a) {
      dump_run named;
      named.name = name;
      const int r = rank_of_run(named);
      if (r >= 0 && r < world) has[static_cast<size_t>(r)] = 1;
    }
    // A job of fewer ranks lacks nothing past its own world size: the jobs differ (below).
    const int own = (side ? world_b : world_a) > 0 ? (side ? world_b : world_a) : world;
    for (int r = 0; r < own; ++r)
      if (!has[static_cast<size_t>(r)])
        out.missing.push_back("rank " + std::to_string(r) + " of " + std::to_string(own) + " has no dump in " +
                              (side ? "B" : "A"));
  }
  if (world_a > 0 && world_b > 0 && world_a != world_b) {
    const bool a_larger = world_a > world_b;
    const int lo = std::min(world_a, world_b), hi = std::max(world_a, world_b);
    out.missing.push_back("A is a job of " + std::to_string(world_a) + " ranks and B of " + std::to_string(world_b) +
                          ": rank" + (hi - lo == 1 ? " " + std::to_string(lo) : "s " + std::to_string(lo) + " to " +
                                                                                   std::to_string(hi - 1)) +
                          " only in " + (a_larger ? "A" : "B") + "; ranks of one number hold different parts of the "
                          "work, so their tensors compare only where the decomposition is the same");
  }
  return out;
}

// An op reached through a message adds error beyond its inputs by nature (its output is what it
// received): it is neither an amplifier nor a faulty instance of its type. Call after find_more.
template <class Run>
void forget_linked_findings(std::vector<Run>* runs, const rank_answers& k) {
  for (const rank_link& l : k.links) {
    run_findings& f = (*runs)[l.run].findings;
    f.amplifiers.erase(std::remove_if(f.amplifiers.begin(), f.amplifiers.end(),
                                      [&](const amplifier& a) { return a.node == l.node; }),
                       f.amplifiers.end());
    for (type_group& t : f.types) t.faulty.erase(std::remove(t.faulty.begin(), t.faulty.end(), l.node), t.faulty.end());
    f.types.erase(std::remove_if(f.types.begin(), f.types.end(), [](const type_group& t) { return t.faulty.empty(); }),
                  f.types.end());
  }
}

}  // namespace analysis
PROBE_END_NAMESPACE
