// The earlier output an input no op wrote was copied from (by code outside any op, or by an
// op that declared its result elsewhere), for compare_graph.hpp: the latest that holds the
// input's bytes (the manifest's hashes, in both
// runs), else its values cast to another float dtype (statistics, compare_converted.hpp),
// else part of its values, them among others, reordered, or a function of each (a x + b, or
// a monotone one), or a x + b y + c of its values and another tensor's (a residual added
// outside any op: values, compare_part_copy.hpp).
// An output its op made from the input's own bytes is never their source. Outputs are indexed
// on first use: most comparisons have no input without a producer that differs. Standalone
// header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compare_converted.hpp"
#include "compare_graph_types.hpp"
#include "compare_inputs.hpp"
#include "compare_part_copy.hpp"
#include "compare_verdicts.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// Whether a pair differs between the runs at all, within its tolerance or not (`verdict`:
// pair_verdicts::of).
inline bool pair_differs_at_all(const compared_pair& p, int verdict) {
  const tensor_metrics& m = p.metrics;
  return verdict == 1 || (m.compared && (m.max_abs > 0 || m.nan_mismatch || m.inf_mismatch));
}

// An earlier output whose values an input holds: pair index (SIZE_MAX: none), and how.
struct copy_found {
  size_t output = SIZE_MAX;
  part_relation part = part_relation::none;
  size_t with = SIZE_MAX;  // combined: the other tensor's pair index (an output, or an input read earlier)
};

class copy_lookup {
 public:
  // How many earlier outputs of an input's size the lookup for a cast copy tries (latest first).
  static constexpr size_t k_cast_candidates = 64;
  // How many earlier outputs of its dtype the lookup for a copy of part of one tries, by value.
  static constexpr size_t k_part_candidates = 16;

  copy_lookup(const std::vector<compared_pair>& pairs, const std::vector<op_node>& nodes,
              const std::vector<size_t>& node_of_output, pair_verdicts& verdict, open_side_values open,
              uint64_t value_budget)
      : pairs_(pairs), nodes_(nodes), node_of_output_(node_of_output), verdict_(verdict),
        parts_(std::move(open), value_budget), by_value_(parts_.can_read()) {}

  // Where input `in_index` was copied from, among earlier outputs that differ at all: a copy
  // may fail where its source passes (a cast to a finer dtype is judged at that dtype's
  // tolerance), and pass where its source fails (to a coarser one).
  copy_found source(size_t in_index) {
    const compared_pair& in = pairs_[in_index];
    const std::string h = hashes_of(in);
    copy_found found = with_bytes(in_index, h);
    if (found.output != SIZE_MAX) return found;
    // Values cast to another float dtype on the way: the latest earlier output that differs
    // and whose statistics the input's match in both runs, within the rounding of the cast.
    // Among the outputs of as many elements, the k_cast_candidates latest before it: a cast
    // copy is of a recent output, and a run whose inputs all differ (other weights) must not
    // scan every output for each of them.
    auto before_in = [&](size_t i, uint64_t seq) { return pairs_[i].seq < seq; };
    auto at = in.a.have_stats && in.b.have_stats ? by_count_.find(in.a.stats.count) : by_count_.end();
    if (at != by_count_.end()) {
      const std::vector<size_t>& list = at->second;  // in sequence order
      auto end = std::lower_bound(list.begin(), list.end(), in.seq, before_in);
      for (size_t tried = 0; end != list.begin() && tried < k_cast_candidates; ++tried) {
        const size_t i = *--end;
        ++cast_checks_;
        if (!made_from(i, in_index, h, false) && holds_converted(in, pairs_[i])) {
          found.output = i;
          return found;
        }
      }
    }
    // Part of an output's values, them among others, reordered, or a function of each (a x + b
    // or a monotone one, computed outside any op), in the same dtype or cast to another float dtype: by value, among the
    // k_part_candidates latest earlier outputs of a float dtype that differ (the values of
    // other dtypes are not looked up).
    if (!by_value_ || !part_copy_impl::float_type(in.a.type) || in.a.type != in.b.type) return found;
    auto end = std::lower_bound(differing_.begin(), differing_.end(), in.seq, before_in);
    std::vector<size_t> same_size;  // candidates as large as the input, for a combination
    for (size_t tried = 0; end != differing_.begin() && tried < k_part_candidates;) {
      const size_t i = *--end;
      if (!part_copy_impl::values_comparable(pairs_[i], in)) continue;
      ++tried;
      if (made_from(i, in_index, h, false)) continue;
      if (part_copy_impl::numel(pairs_[i].a) == part_copy_impl::numel(in.a)) same_size.push_back(i);
      const std::string key = std::to_string(in_index) + "\n" + std::to_string(i);
      auto known = part_seen_.find(key);
      if (known == part_seen_.end()) {
        part_relation rel = parts_.relation(in, pairs_[i]);
        if (rel == part_relation::none) rel = parts_.elementwise(in, pairs_[i]);
        if (rel != part_relation::none && made_from(i, in_index, h, true)) rel = part_relation::none;
        known = part_seen_.emplace(key, rel).first;
      }
      if (known->second != part_relation::none) {
        found.output = i;
        found.part = known->second;
        return found;
      }
    }
    return combination(in_index, h, same_size);
  }

  // The latest earlier output whose bytes input `in_index` holds in both runs, whether or not
  // they differ, when its values vary in both (bytes of one repeated value, zeros, match by
  // chance): for an input that matches, what was copied into bytes no op wrote last.
  copy_found same_bytes(size_t in_index) {
    const compared_pair& in = pairs_[in_index];
    auto varies = [](const pair_side& s) { return s.have_stats && s.stats.finite > 1 && s.stats.max > s.stats.min; };
    if (!varies(in.a) || !varies(in.b)) return copy_found();
    return with_bytes(in_index, hashes_of(in));
  }

  uint64_t cast_checks() const { return cast_checks_; }
  uint64_t part_checks() const { return parts_.checks(); }
  uint64_t part_values_read() const { return parts_.values_read(); }

 private:
  static std::string hashes_of(const compared_pair& p) {
    return p.a.present && p.b.present && !p.a.hash.empty() && !p.b.hash.empty() ? p.a.hash + "\n" + p.b.hash
                                                                                 : std::string();
  }
  bool differs_at_all(size_t i) { return pair_differs_at_all(pairs_[i], verdict_.of(i)); }

  // Input `in_index` as a x + b y + c of an output that differs (`outputs`, latest first) and
  // another tensor as large read or written before it (an output or an input, whether or not
  // it differs: the residual stream a layer's result is added to): among the
  // k_part_candidates latest tensors of each, tensors of the same bytes tried once.
  copy_found combination(size_t in_index, const std::string& h, const std::vector<size_t>& outputs) {
    copy_found found;
    if (outputs.empty()) return found;
    const compared_pair& in = pairs_[in_index];
    const int64_t n = part_copy_impl::numel(in.a);
    auto at = by_numel_.find(n);
    if (at == by_numel_.end()) return found;
    const std::vector<size_t>& list = at->second;  // in sequence order
    auto end = std::lower_bound(list.begin(), list.end(), in.seq,
                                [&](size_t i, uint64_t seq) { return pairs_[i].seq < seq; });
    std::vector<size_t> others;
    std::vector<std::string> seen{h};
    while (end != list.begin() && others.size() < k_part_candidates) {
      const size_t j = *--end;
      const std::string hj = hashes_of(pairs_[j]);
      if (!hj.empty() && std::find(seen.begin(), seen.end(), hj) != seen.end()) continue;
      if (!hj.empty()) seen.push_back(hj);
      if (part_copy_impl::values_comparable(pairs_[j], in) && (pairs_[j].is_input || !made_from(j, in_index, h, false)))
        others.push_back(j);
    }
    for (size_t i : outputs) {
      const std::string hi = hashes_of(pairs_[i]);
      for (size_t j : others) {
        if (j == i || (!hi.empty() && hi == hashes_of(pairs_[j]))) continue;
        if (!parts_.combined(in, pairs_[i], pairs_[j])) continue;
        found.output = i;
        found.part = part_relation::combined;
        found.with = j;
        return found;
      }
    }
    return found;
  }

  // The latest earlier output holding the bytes of hashes `h` in both runs, not made from them.
  copy_found with_bytes(size_t in_index, const std::string& h) {
    index();
    copy_found found;
    auto it = h.empty() ? by_hashes_.end() : by_hashes_.find(h);
    if (it != by_hashes_.end())
      for (size_t i : it->second)
        if (pairs_[i].seq < pairs_[in_index].seq && (found.output == SIZE_MAX || pairs_[i].seq > pairs_[found.output].seq) &&
            !made_from(i, in_index, h, false))
          found.output = i;
    return found;
  }

  void index() {
    if (indexed_) return;
    indexed_ = true;
    for (size_t i = 0; i < pairs_.size(); ++i) {
      const compared_pair& p = pairs_[i];
      if (by_value_ && p.a.present && p.b.present && p.a.type == p.b.type && part_copy_impl::float_type(p.a.type) &&
          part_copy_impl::numel(p.a) > 0 && part_copy_impl::numel(p.a) == part_copy_impl::numel(p.b))
        by_numel_[part_copy_impl::numel(p.a)].push_back(i);
      if (pairs_[i].is_input) continue;
      const std::string h = hashes_of(pairs_[i]);
      if (!h.empty()) by_hashes_[h].push_back(i);
      if (!differs_at_all(i)) continue;
      differing_.push_back(i);
      if (pairs_[i].a.have_stats && pairs_[i].b.have_stats) by_count_[pairs_[i].a.stats.count].push_back(i);
    }
    auto by_seq = [&](size_t x, size_t y) { return pairs_[x].seq < pairs_[y].seq; };
    for (auto& c : by_count_) std::stable_sort(c.second.begin(), c.second.end(), by_seq);
    for (auto& c : by_numel_) std::stable_sort(c.second.begin(), c.second.end(), by_seq);
    std::stable_sort(differing_.begin(), differing_.end(), by_seq);
  }

  // Whether output `out`'s op made it from input `in_index`'s own bytes (hashes `h`): an
  // identity, a pad of a graph input read again later holds them because they were there
  // first. `by_value`: also from an input no op wrote whose values these share (a slice of
  // the same graph input, read by the op through another view).
  bool made_from(size_t out, size_t in_index, const std::string& h, bool by_value) {
    const size_t ni = node_of_output_[out];
    if (ni == SIZE_MAX) return false;
    for (size_t x : nodes_[ni].inputs) {
      if (!h.empty() && hashes_of(pairs_[x]) == h) return true;
      if (by_value && x != in_index && pairs_[x].producers.empty() && differs_at_all(x) &&
          parts_.relation(pairs_[in_index], pairs_[x]) != part_relation::none)
        return true;
    }
    return false;
  }

  const std::vector<compared_pair>& pairs_;
  const std::vector<op_node>& nodes_;
  const std::vector<size_t>& node_of_output_;
  pair_verdicts& verdict_;
  part_copy_finder parts_;
  bool by_value_ = false;
  bool indexed_ = false;
  std::unordered_map<std::string, std::vector<size_t>> by_hashes_;
  std::unordered_map<int64_t, std::vector<size_t>> by_count_;  // outputs that differ at all, with statistics
  std::vector<size_t> differing_;                              // outputs that differ at all, in sequence order
  std::unordered_map<int64_t, std::vector<size_t>> by_numel_;  // float tensors by elements, in sequence order
  std::unordered_map<std::string, part_relation> part_seen_;   // "input\noutput" pair indices -> relation
  uint64_t cast_checks_ = 0;
};

}  // namespace analysis
PROBE_END_NAMESPACE
