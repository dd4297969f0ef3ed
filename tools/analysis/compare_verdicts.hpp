// What counts as matching when `probe compare` looks for root causes, per tensor pair, and
// when a difference shows code outside any op. The table's verdict (compare_types.hpp) is
// not always the right one for the graph:
// - a pass by statistics alone (a stats-only dump) does not show that the values agree: where
//   an input of the op already differs, the op's outputs are taken to carry that difference
//   on (unless their statistics are identical), as a comparison of the values would find.
//   So a stats-only dump and an .npy dump of the same runs name the same roots;
// - an input seen with another shape or dtype in the two runs, whose producers' outputs all
//   match, holds matching bytes read another way: it matches (the op reading it is judged);
// - an input the manifest's hashes show to hold exactly what its one producer wrote, in both
//   runs, is that output again and takes its verdict;
// - "stale" (bytes changed since their producer wrote them) is believed unless the hashes
//   show the input still holds that producer's bytes.
// Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "compare_inputs.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace verdicts_impl {

// The table's verdict: 1 mismatch, 0 match, -1 nothing to compare.
inline int raw_verdict(const compared_pair& p) {
  if (status_mismatch(p.status)) return 1;
  if (p.status == pair_status::ok) return 0;
  return -1;
}

// Every statistic the manifests recorded is the same on both sides.
inline bool identical_stats(const compared_pair& p) {
  if (!p.a.have_stats || !p.b.have_stats) return false;
  const health &x = p.a.stats, &y = p.b.stats;
  return x.count == y.count && x.nan == y.nan && x.pos_inf == y.pos_inf && x.neg_inf == y.neg_inf &&
         x.min == y.min && x.max == y.max && x.mean == y.mean && x.std == y.std;
}

// A pass that does not show the values agree: by statistics, which differ somewhere.
inline bool weak_pass(const compared_pair& p) { return p.status == pair_status::ok && p.by_stats && !identical_stats(p); }

inline bool same_hash(const pair_side& x, const pair_side& y) { return !x.hash.empty() && x.hash == y.hash; }

// The two pairs were judged alike: both by data or both by statistics, with one tolerance.
inline bool judged_alike(const compared_pair& x, const compared_pair& y) {
  return x.by_stats == y.by_stats && x.metrics.tol.atol == y.metrics.tol.atol && x.metrics.tol.rtol == y.metrics.tol.rtol;
}

}  // namespace verdicts_impl

// The verdicts of every pair of a run for root finding, and what the stale marks mean.
class pair_verdicts {
 public:
  explicit pair_verdicts(const std::vector<compared_pair>& pairs) : pairs_(pairs), v_(pairs.size(), 2) {
    for (size_t i = 0; i < pairs.size(); ++i)
      if (!pairs[i].is_input) output_.emplace(pairs[i].key, i);
  }

  // The output pair of a key (SIZE_MAX: none in this compare).
  size_t output(const std::string& key) const {
    auto it = output_.find(key);
    return it == output_.end() ? SIZE_MAX : it->second;
  }

  // The stale producer of an input the hashes do not contradict ("" when none).
  std::string stale(const compared_pair& in) const {
    const std::string& k = !in.a.stale_producer.empty() ? in.a.stale_producer : in.b.stale_producer;
    if (k.empty()) return k;
    const size_t o = output(k);
    if (o == SIZE_MAX) return k;
    const compared_pair& out = pairs_[o];
    // a side that says stale, while the input's hash is what the producer left, is wrong
    const bool a_says = in.a.stale_producer == k && !verdicts_impl::same_hash(in.a, out.a);
    const bool b_says = in.b.stale_producer == k && !verdicts_impl::same_hash(in.b, out.b);
    return a_says || b_says ? k : std::string();
  }

  // The producers that are edges of an input: stale ones are not (their bytes were overwritten).
  std::vector<std::string> edges(const compared_pair& in) const {
    const std::string gone = stale(in);
    std::vector<std::string> out;
    auto add = [&](const std::string& k) {
      if (!k.empty() && k != gone && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    };
    for (const dump_producer& pr : in.producers) add(pr.key);
    // a stale mark the hashes contradict: the producer is an edge after all
    if (gone.empty()) add(!in.a.stale_producer.empty() ? in.a.stale_producer : in.b.stale_producer);
    return out;
  }

  // The verdict on an output key for its consumers: 1 differs, 0 matches, -1 unknown.
  int of_output(const std::string& key) {
    const size_t o = output(key);
    return o == SIZE_MAX ? -1 : of(o);
  }

  // 1 differs, 0 matches, -1 nothing known. Asked in sequence order (producers first), the
  // recursion stays shallow; set_inputs tells an output's verdict which inputs its op has.
  int of(size_t i) {
    if (v_[i] != 2) return v_[i];
    v_[i] = -1;  // a cycle (a nested op's input read from its enclosing op) reads as unknown
    const compared_pair& p = pairs_[i];
    int v = verdicts_impl::raw_verdict(p);
    if (p.is_input) {
      v = input(p, v);
    } else if (verdicts_impl::weak_pass(p)) {
      auto it = inputs_of_.find(p.op_key());
      if (it != inputs_of_.end())
        for (size_t k : *it->second)
          if (of(k) == 1) v = 1;
    }
    v_[i] = static_cast<signed char>(v);
    return v;
  }

  // The inputs of op `op_key` (pair indices, kept by the caller while verdicts are asked).
  void set_inputs(const std::string& op_key, const std::vector<size_t>* inputs) { inputs_of_[op_key] = inputs; }

  // An input with another shape or dtype that was taken to match (its producers matched).
  bool another_view(size_t i) {
    const compared_pair& p = pairs_[i];
    return p.is_input && (p.status == pair_status::shape || p.status == pair_status::dtype) && of(i) == 0;
  }

  // Whether an input that differs while its producers `from` all matched shows code outside
  // any op: compared by value, judged as each producer was, not an implicit prior state
  // (which may hold the op's own result), not shown by the hashes to hold a producer's bytes.
  bool shows_outside_code(const compared_pair& in, const std::vector<std::string>& from) {
    if (in.status != pair_status::mismatch || in.implicit) return false;
    for (const std::string& k : from) {
      const size_t o = output(k);
      if (o == SIZE_MAX || of(o) != 0) return false;
      const compared_pair& out = pairs_[o];
      if (!verdicts_impl::judged_alike(in, out) || verdicts_impl::weak_pass(out)) return false;
    }
    return !from.empty();
  }

 private:
  int input(const compared_pair& in, int v) {
    const std::vector<std::string> from = edges(in);
    auto producers_verdict = [&](bool all_known) {
      int out = 0;
      for (const std::string& k : from) {
        const int pv = of_output(k);
        if (pv == 1) return 1;
        if (pv != 0) out = -1;
      }
      return all_known ? out : (out < 0 ? 0 : out);
    };
    if (v == -1) return producers_verdict(false);  // nothing to compare: its producers say
    if (v == 0 && verdicts_impl::weak_pass(in)) return producers_verdict(false) == 1 ? 1 : 0;
    if (v == 1 && in.status != pair_status::mismatch && !from.empty() && !partly_unproduced(in))
      return producers_verdict(true) == 0 ? 0 : 1;  // another view of matching bytes
    if (v == 1 && from.size() == 1 && in.producers.size() == 1) {
      const size_t o = output(from[0]);
      if (o != SIZE_MAX && verdicts_impl::same_hash(in.a, pairs_[o].a) && verdicts_impl::same_hash(in.b, pairs_[o].b))
        return of(o);  // the producer's bytes, judged again
    }
    return v;
  }

 public:
  // Some bytes of the input were written by no op (the producers' byte counts cover less than
  // the input); unknown (false) when a producer has no byte count (old dumps).
  static bool partly_unproduced(const compared_pair& in) {
    uint64_t covered = 0;
    for (const dump_producer& p : in.producers) {
      if (!p.bytes) return false;
      covered += p.bytes;
    }
    const pair_side& s = in.a.present ? in.a : in.b;
    uint64_t bytes = dtype_size(s.type);
    for (int i = 0; i < s.ndim; ++i) bytes *= static_cast<uint64_t>(s.shape[i]);
    return bytes > 0 && covered < bytes;
  }

 private:
  const std::vector<compared_pair>& pairs_;
  std::vector<signed char> v_;
  std::unordered_map<std::string, size_t> output_;
  std::unordered_map<std::string, const std::vector<size_t>*> inputs_of_;
};

}  // namespace analysis
PROBE_END_NAMESPACE
