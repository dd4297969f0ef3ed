// Pairing the executions of an op when one run has more of them.
//
// Keys number an op's executions in the order they began ("affine#2"): when run A runs an op
// once more than B (a check added, a layer repeated), every later execution of that name is
// numbered one higher in A, and pairing by key compares each with the execution of B that
// computed something else. Where the counts differ, the executions of the name are aligned as
// two sequences (longest common subsequence) by what each is, independent of the values: its
// step, its attributes, and for each input the names of the ops that wrote it and where in
// their outputs, or the content hash of bytes no op wrote (of an op a killed run stopped
// inside, whose attributes were never written, only the step and inputs). B's executions
// take the key of the A execution they align with; the rest of B take keys A does not use,
// and show as ops only in one run. Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compare_lanes.hpp"
#include "dump_manifest.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace realign_impl {

struct execution {
  std::string key;
  uint64_t occurrence = 0;
  std::vector<std::string> reads;  // per input: "slot=writer name@at+bytes;..." or "slot=#hash"
  std::string inputs;              // its step and reads, filled once all inputs are seen
  std::string what;                // inputs and attributes: the whole description
  // The last op of a thread in a run that never ended (killed, crashed): it may have stopped
  // inside, before the attributes written at its end, so only its inputs describe it.
  bool unfinished = false;
};

// Two executions are the same computation: the same description, or the same inputs where
// one of them never finished.
inline bool same_execution(const execution& x, const execution& y) {
  return x.unfinished || y.unfinished ? x.inputs == y.inputs : x.what == y.what;
}

// The op keys a run without an end record may have stopped inside: each thread's last op.
inline std::unordered_set<std::string> unfinished_keys(const dump_run& run) {
  std::unordered_set<std::string> keys;
  if (run.has_end) return keys;
  std::unordered_map<uint64_t, const dump_tensor*> last;  // lane -> its last tensor record
  for (const dump_tensor& t : run.tensors) {
    const dump_tensor*& l = last[t.lane];
    if (!l || t.seq >= l->seq) l = &t;
  }
  for (const auto& l : last) keys.insert(l.second->op_key());
  return keys;
}

// The op name of an output key ("L7.add" of "L7.add#0/out/y"): its occurrence changes when
// the runs' execution counts differ, its name does not.
inline std::string writer_name(const std::string& key) {
  const size_t n = lanes_impl::op_part_length(key);
  return n == std::string::npos ? key : key.substr(0, key.rfind('#', n));
}

// How many executions each op name has (distinct occurrences).
inline std::unordered_map<std::string, std::unordered_set<uint64_t>> executions_per_name(const dump_run& run) {
  std::unordered_map<std::string, std::unordered_set<uint64_t>> n;
  for (const dump_tensor& t : run.tensors) n[t.op].insert(t.occurrence);
  return n;
}

// The op names whose execution counts differ between the runs: the only ones to align.
inline std::unordered_set<std::string> names_to_align(const dump_run& a, const dump_run& b) {
  const auto na = executions_per_name(a), nb = executions_per_name(b);
  std::unordered_set<std::string> out;
  for (const auto& x : nb) {
    auto y = na.find(x.first);
    if (y != na.end() && y->second.size() != x.second.size()) out.insert(x.first);
  }
  return out;
}

// Executions per op name, in occurrence order, of the names given.
inline std::map<std::string, std::vector<execution>> collect(const dump_run& run, const std::unordered_set<std::string>& names) {
  std::map<std::string, std::vector<execution>> by_name;
  std::unordered_map<std::string, std::pair<std::string, size_t>> index;  // op key -> (name, position)
  std::unordered_map<std::string, int64_t> step_of;
  for (const dump_tensor& t : run.tensors) {
    if (!names.count(t.op)) continue;
    const std::string k = t.op_key();
    auto it = index.find(k);
    if (it == index.end()) {
      std::vector<execution>& v = by_name[t.op];
      it = index.emplace(k, std::make_pair(t.op, v.size())).first;
      execution e;
      e.key = k;
      e.occurrence = t.occurrence;
      v.push_back(std::move(e));
      step_of[k] = t.step;
    }
    if (!t.is_input) continue;
    by_name[it->second.first][it->second.second].reads.push_back(lanes_impl::read_signature(t, writer_name, false));
  }
  std::unordered_map<std::string, std::string> attrs;
  for (const dump_attrs& x : run.attrs) attrs[x.key] = attrs_text(x.attrs);
  const std::unordered_set<std::string> unfinished = unfinished_keys(run);
  for (auto& n : by_name) {
    std::sort(n.second.begin(), n.second.end(), [](const execution& x, const execution& y) { return x.occurrence < y.occurrence; });
    for (execution& e : n.second) {
      std::sort(e.reads.begin(), e.reads.end());
      e.inputs = std::to_string(step_of[e.key]);
      for (const std::string& r : e.reads) e.inputs += "\n" + r;
      e.what = e.inputs + "\n\n" + attrs[e.key];
      e.unfinished = unfinished.count(e.key) != 0;
    }
  }
  return by_name;
}

}  // namespace realign_impl

// Renames run b's executions of each op name that ran a different number of times in the two
// runs to the key of the execution of run a they align with (see the top of this file).
inline void realign_executions(const dump_run& a, dump_run* b) {
  using namespace realign_impl;
  const std::unordered_set<std::string> names = names_to_align(a, *b);
  if (names.empty()) return;  // every name ran as often in both: keys pair them
  const auto ea = collect(a, names), eb = collect(*b, names);
  std::unordered_map<std::string, std::string> to;
  for (const auto& nb : eb) {
    auto na = ea.find(nb.first);
    if (na == ea.end() || na->second.size() == nb.second.size()) continue;
    const std::vector<execution>& xa = na->second;
    const std::vector<execution>& xb = nb.second;
    const size_t n = xa.size(), m = xb.size();
    if (n * m > (size_t{1} << 22)) continue;  // too long to align: key order stays
    // lcs[i][j]: the longest common subsequence of xa[i..] and xb[j..]
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = same_execution(xa[i], xb[j]) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    if (at(0, 0) == 0) continue;  // nothing in common: no better than key order
    uint64_t fresh = std::max(xa.back().occurrence, xb.back().occurrence) + 1;
    size_t i = 0, j = 0;
    while (j < m) {
      if (i < n && same_execution(xa[i], xb[j]) && at(i, j) == at(i + 1, j + 1) + 1) {
        to[xb[j].key] = xa[i].key;  // aligned (the earliest such pairing)
        ++i, ++j;
      } else if (i < n && at(i + 1, j) >= at(i, j + 1)) {
        ++i;  // only in A
      } else {
        to[xb[j].key] = nb.first + "#" + std::to_string(fresh++);  // only in B
        ++j;
      }
    }
  }
  for (auto it = to.begin(); it != to.end();) it = it->first == it->second ? to.erase(it) : std::next(it);
  if (!to.empty()) lanes_impl::rename_ops(b, to);
}

}  // namespace analysis
PROBE_END_NAMESPACE
