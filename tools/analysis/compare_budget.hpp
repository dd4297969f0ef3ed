// A dump cut short by a budget (--probe_dump_max_ops, --probe_dump_max_bytes: its manifest
// has a "budget" record) recorded nothing from the point it stopped on. The tensors the other
// run has from there are not ops that ran in one run only: the cut-short run did not record
// them. They are marked here (compared_pair::past_budget); compare_pairs calls them no data,
// which is not a mismatch, and the alignment leaves their ops out (op_node::cut). Everything
// recorded before the stop is judged as ever. Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compare_inputs.hpp"
#include "dump_manifest.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace budget_impl {

// Marks the pairs only `full` has that `cut` (side A when cut_is_a) did not record because its
// dump stopped. Where it stopped is read off the other run, whose numbering the one-sided
// pairs carry: the last op (by `full`'s sequence number) that both runs recorded. Past it,
// every tensor missing from `cut` is past the budget. At it, and at the ops of `full` that
// enclose an op from there on (still open when dumping stopped: their outputs come after),
// only the missing tensors that come after everything `cut` recorded of that op are (a byte
// budget stops in the middle of an op; an enclosing op's inputs were recorded, its outputs
// were not); one missing before them is a difference of the runs, as before.
inline void mark_side(const dump_run& cut, const dump_run& full, bool cut_is_a, std::vector<compared_pair>* pairs) {
  if (!cut.stopped_early) return;
  auto cut_side = [cut_is_a](const compared_pair& p) -> const pair_side& { return cut_is_a ? p.a : p.b; };
  auto full_side = [cut_is_a](const compared_pair& p) -> const pair_side& { return cut_is_a ? p.b : p.a; };
  uint64_t last = 0;
  for (const compared_pair& p : *pairs)
    if (p.a.present && p.b.present && (!cut.budget_seq || cut_side(p).seq <= cut.budget_seq))
      last = std::max(last, full_side(p).seq);
  std::vector<uint64_t> later;
  for (const dump_tensor& t : full.tensors)
    if (t.seq >= last && (later.empty() || later.back() != t.seq)) later.push_back(t.seq);
  std::unordered_set<uint64_t> open = enclosing_ops(full, later);
  if (last) open.insert(last);
  // Per open op: the latest of its tensors `cut` recorded, in `full`'s order (inputs first,
  // then manifest lines).
  auto order = [&](const compared_pair& p) {
    return std::make_pair(p.is_input ? 0 : 1, full_side(p).line);
  };
  std::unordered_map<uint64_t, std::pair<int, size_t>> recorded_up_to;
  for (const compared_pair& p : *pairs) {
    if (!p.a.present || !p.b.present || !open.count(full_side(p).seq)) continue;
    auto it = recorded_up_to.find(full_side(p).seq);
    if (it == recorded_up_to.end()) recorded_up_to.emplace(full_side(p).seq, order(p));
    else it->second = std::max(it->second, order(p));
  }
  // The table shows what comes before " (" (compare_words.hpp, status_text); JSON all of it.
  const std::string why = std::string("past ") + (cut_is_a ? "A" : "B") + "'s dump budget (" +
                          (cut.budget_reason.empty() ? std::string("dumping stopped early") : cut.budget_reason) + ")";
  for (compared_pair& p : *pairs) {
    if (cut_side(p).present || !full_side(p).present) continue;
    const uint64_t seq = full_side(p).seq;
    bool past = seq > last;
    if (!past && open.count(seq)) {
      auto it = recorded_up_to.find(seq);
      past = it == recorded_up_to.end() || order(p) > it->second;
    }
    if (past) p.past_budget = why;
  }
}

}  // namespace budget_impl

// Marks the pairs of two runs that a budget left without one side (either run may be cut short).
inline void mark_past_budget(const dump_run& a, const dump_run& b, std::vector<compared_pair>* pairs) {
  budget_impl::mark_side(a, b, true, pairs);
  budget_impl::mark_side(b, a, false, pairs);
}

}  // namespace analysis
PROBE_END_NAMESPACE
