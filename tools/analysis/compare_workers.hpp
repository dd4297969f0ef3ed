// Pairing worker ops by the data they read.
//
// Workers that adopt an op's context (a thread pool computing tiles of one op) run ops of one
// name under one parent, and start them in whatever order the scheduler gives: their
// occurrences follow that order, so pairing by key compares tile 2 of run A with tile 0 of
// run B. What tells the tiles apart is the part of the data each reads: for every input, the
// op outputs that wrote its bytes and where in those outputs they lie (manifest "producers"
// with "at"), or, for bytes no op wrote, their content hash. Those do not depend on the
// values computed, so a tile that differs is still paired with the same tile.
//
// Only siblings that ran on more than one thread are re-paired: the order of ops that one
// thread runs is the program's, and pairing them by key stays (a change that makes a layer
// read another layer's weights must be found, not paired away). Siblings whose reads are
// the same for several of them keep their key order among themselves. Standalone header,
// plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "compare_lanes.hpp"
#include "dump_manifest.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace workers_impl {

struct exec {
  std::string key;  // "L1.matvec.tile#2"
  uint64_t seq = 0, occurrence = 0;
  std::vector<const dump_tensor*> inputs;
};

struct sibling_group {
  std::vector<size_t> a, b;  // exec indices of each run, occurrence order
  std::set<uint64_t> threads_a, threads_b;
  uint64_t first_seq_b = UINT64_MAX;
};

struct run_execs {
  std::vector<exec> execs;
  std::unordered_map<std::string, size_t> index;  // op key -> execs index
  std::unordered_map<uint64_t, std::string> key_of_seq;
};

inline run_execs collect(const dump_run& run) {
  run_execs r;
  for (const dump_tensor& t : run.tensors) {
    const std::string k = t.op_key();
    auto it = r.index.find(k);
    if (it == r.index.end()) {
      it = r.index.emplace(k, r.execs.size()).first;
      exec e;
      e.key = k;
      e.seq = t.seq;
      e.occurrence = t.occurrence;
      r.execs.push_back(std::move(e));
      r.key_of_seq.emplace(t.seq, k);
    }
    if (t.is_input) r.execs[it->second].inputs.push_back(&t);
  }
  return r;
}

// What an op read, in words that do not depend on the values: per input slot, each byte
// range's writer (its key through `to`) and place in that writer's output, or the content
// hash of bytes no op wrote. Implicit prior states (inferred from what the memory held
// before, so present in one run and not the other when the allocator reused a block in one
// only) are left out unless asked.
inline std::string reads(const exec& e, const std::unordered_map<std::string, std::string>* to, bool implicit) {
  std::vector<std::string> parts;
  auto writer = [to](const std::string& key) { return to ? lanes_impl::renamed(key, *to) : key; };
  for (const dump_tensor* t : e.inputs)
    if (implicit || !t->implicit) parts.push_back(lanes_impl::read_signature(*t, writer, true));
  std::sort(parts.begin(), parts.end());
  std::string s;
  for (const std::string& p : parts) s += p + "\n";
  return s;
}

}  // namespace workers_impl

// Renames run b's worker ops to the key of the worker of run a that read the same data (see
// the top of this file); a note says how many moved.
inline void pair_workers(dump_run* a, dump_run* b, std::vector<std::string>* notes, const std::string& prefix = "") {
  using namespace workers_impl;
  const run_execs ra = collect(*a), rb = collect(*b);
  // (name, parent key) -> siblings; parents are named by key, which pairing made common
  std::map<std::pair<std::string, std::string>, sibling_group> groups;
  auto add = [&](const run_execs& r, const dump_run& run, bool side_b) {
    std::set<std::string> seen;
    for (const dump_tensor& t : run.tensors) {
      if (!t.parent) continue;
      const std::string k = t.op_key();
      if (!seen.insert(k).second) continue;
      auto parent = r.key_of_seq.find(t.parent);
      if (parent == r.key_of_seq.end()) continue;
      sibling_group& g = groups[{t.op, parent->second}];
      const size_t i = r.index.at(k);
      (side_b ? g.b : g.a).push_back(i);
      (side_b ? g.threads_b : g.threads_a).insert(t.thread);
      if (side_b) g.first_seq_b = std::min(g.first_seq_b, t.seq);
    }
  };
  add(ra, *a, false);
  add(rb, *b, true);
  std::vector<sibling_group*> order;
  for (auto& g : groups)
    if (g.second.a.size() > 1 && g.second.b.size() > 1 && (g.second.threads_a.size() > 1 || g.second.threads_b.size() > 1))
      order.push_back(&g.second);
  // producers first: a group's reads name earlier groups' keys, already renamed
  std::sort(order.begin(), order.end(), [](const sibling_group* x, const sibling_group* y) { return x->first_seq_b < y->first_seq_b; });
  std::unordered_map<std::string, std::string> to;
  size_t moved = 0;
  std::string example;
  for (sibling_group* g : order) {
    auto by_occurrence = [](const run_execs& r) {
      return [&r](size_t x, size_t y) { return r.execs[x].occurrence < r.execs[y].occurrence; };
    };
    std::sort(g->a.begin(), g->a.end(), by_occurrence(ra));
    std::sort(g->b.begin(), g->b.end(), by_occurrence(rb));
    // a permutation of the group's own keys, or no renaming: a key taken from outside the
    // group would be held twice
    bool same_keys = g->a.size() == g->b.size();
    for (size_t k = 0; same_keys && k < g->a.size(); ++k) same_keys = ra.execs[g->a[k]].key == rb.execs[g->b[k]].key;
    if (!same_keys) continue;
    std::map<size_t, size_t> pair;  // b exec -> a exec
    std::set<size_t> used_a;
    // by everything read, then those left by what they were given (their implicit prior
    // states aside): an in-place tile is told apart by the region it updates, a tile whose
    // output block the allocator reused in one run only by its declared inputs
    for (bool implicit : {true, false}) {
      std::map<std::string, std::vector<size_t>> sig_a, sig_b;
      for (size_t i : g->a)
        if (!used_a.count(i)) sig_a[reads(ra.execs[i], nullptr, implicit)].push_back(i);
      for (size_t i : g->b)
        if (!pair.count(i)) sig_b[reads(rb.execs[i], &to, implicit)].push_back(i);
      for (const auto& s : sig_b) {
        auto it = sig_a.find(s.first);
        if (s.second.size() != 1 || it == sig_a.end() || it->second.size() != 1) continue;
        pair[s.second[0]] = it->second[0];
        used_a.insert(it->second[0]);
      }
    }
    if (pair.empty()) continue;
    // the rest in key order among themselves
    std::vector<size_t> rest_a;
    for (size_t i : g->a)
      if (!used_a.count(i)) rest_a.push_back(i);
    size_t next = 0;
    for (size_t i : g->b)
      if (!pair.count(i) && next < rest_a.size()) pair[i] = rest_a[next++];
    for (const auto& p : pair) {
      const std::string& from = rb.execs[p.first].key;
      const std::string& now = ra.execs[p.second].key;
      if (from == now) continue;
      to[from] = now;
      if (!moved++) example = "B's " + ::probe::detail::printable(from) + " as A's " + ::probe::detail::printable(now);
    }
  }
  if (to.empty()) return;
  lanes_impl::rename_ops(b, to);
  notes->push_back(prefix + "worker threads began their ops in another order in B: " + std::to_string(moved) +
                   " worker op executions of B are compared with the worker of A that read the same data (" + example +
                   (moved > 1 ? ", ..." : "") + ")");
}

}  // namespace analysis
PROBE_END_NAMESPACE
