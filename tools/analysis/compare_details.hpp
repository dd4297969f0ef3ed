// A second look at the pairs that mismatch, element by element, for what the per-pair
// metrics cannot say: the tensor's scale (how big an error is next to the values), whether
// every failure lies in one slice ("all 784 failures in channel 15"), and, for an op that
// overwrites a buffer (inout, implicit), how many elements of its output fail where the
// buffer's earlier state passed: the errors the op made itself. Only mismatching pairs are
// read again, whole, and only those up to max_elements. Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include <probe/formats/npy.hpp>
#include "compare_inputs.hpp"
#include "compare_source.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace details_impl {

constexpr int64_t max_elements = int64_t{1} << 25;

// The values of a side as doubles (complex: components); empty when it cannot be read.
inline std::vector<double> values_of(const pair_side& s) {
  std::vector<double> out;
  std::string error;
  const tensor t = npy::read(s.file, &error);
  if (t.empty() || t.numel() > max_elements) return out;
  const dtype c = compare_impl::component_type(t.type());
  const size_t n = static_cast<size_t>(t.numel()) * (c == t.type() ? 1 : 2);
  out.resize(n);
  compare_impl::to_values<double>(c, t.data(), n, out.data());
  return out;
}

inline bool element_fails(double a, double b, const tolerance& tol, const check_settings& check) {
  if (std::isnan(a) || std::isnan(b)) return !(std::isnan(a) && std::isnan(b) && check.equal_nan);
  if (std::isinf(a) || std::isinf(b)) return !(a == b && check.inf_equal);
  return !(std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b));
}

struct side_values {
  std::vector<double> a, b;
  bool ok() const { return !a.empty() && a.size() == b.size(); }
};

inline bool comparable(const compared_pair& p) {
  return (p.status == pair_status::ok || p.status == pair_status::mismatch) && p.metrics.compared && !p.by_stats &&
         !p.a.file.empty() && !p.b.file.empty();
}

inline side_values load(const compared_pair& p) {
  side_values v;
  if (!comparable(p)) return v;
  v.a = values_of(p.a);
  if (!v.a.empty()) v.b = values_of(p.b);
  return v;
}

}  // namespace details_impl

// Fills scale, slice_dim/slice_index and fresh_fail of the mismatching pairs of one run.
inline void measure_details(std::vector<compared_pair>* pairs, const check_settings& check) {
  using namespace details_impl;
  // the prior state of each overwritten slot: "op#k\nslot" -> input pair
  std::unordered_map<std::string, size_t> prior;
  for (size_t i = 0; i < pairs->size(); ++i)
    if ((*pairs)[i].prior_state()) prior.emplace((*pairs)[i].op_key() + "\n" + (*pairs)[i].slot, i);
  for (size_t i = 0; i < pairs->size(); ++i) {
    compared_pair& p = (*pairs)[i];
    if (p.status != pair_status::mismatch || !comparable(p)) continue;
    const side_values v = load(p);
    if (!v.ok()) continue;
    double scale = 0, scale_a = 0;
    for (size_t k = 0; k < v.b.size(); ++k) {
      if (std::isfinite(v.b[k])) scale = std::max(scale, std::fabs(v.b[k]));
      if (std::isfinite(v.a[k])) scale_a = std::max(scale_a, std::fabs(v.a[k]));
    }
    p.scale = scale > 0 ? scale : scale_a;
    // one slice: the index each dimension has at every failure (-1: several)
    const bool complex = v.a.size() != static_cast<size_t>(p.metrics.count) || p.a.ndim == 0;
    std::vector<int64_t> common(static_cast<size_t>(p.a.ndim), -2);
    int64_t fails = 0;
    for (size_t k = 0; k < v.a.size(); ++k) {
      if (!element_fails(v.a[k], v.b[k], p.metrics.tol, check)) continue;
      ++fails;
      if (complex) continue;
      int64_t flat = static_cast<int64_t>(k);
      for (int d = p.a.ndim - 1; d >= 0; --d) {
        const int64_t n = p.a.shape[d] > 0 ? p.a.shape[d] : 1, idx = flat % n;
        flat /= n;
        int64_t& c = common[static_cast<size_t>(d)];
        c = c == -2 || c == idx ? idx : -1;
      }
    }
    if (!complex && fails > 1)
      for (int d = 0; d < p.a.ndim; ++d)
        if (p.a.shape[d] > 1 && common[static_cast<size_t>(d)] >= 0) {
          p.slice_dim = d;
          p.slice_index = common[static_cast<size_t>(d)];
          break;
        }
    // the op's own errors: failing elements whose prior state passed
    if (p.is_input) continue;
    auto it = prior.find(p.op_key() + "\n" + p.slot);
    if (it == prior.end()) continue;
    const compared_pair& before = (*pairs)[it->second];
    if (before.status == pair_status::ok) {
      p.fresh_fail = fails;
      continue;
    }
    const side_values w = load(before);
    if (!w.ok() || w.a.size() != v.a.size()) continue;
    int64_t fresh = 0;
    for (size_t k = 0; k < v.a.size(); ++k)
      if (element_fails(v.a[k], v.b[k], p.metrics.tol, check) && !element_fails(w.a[k], w.b[k], before.metrics.tol, check))
        ++fresh;
    p.fresh_fail = fresh;
  }
}

}  // namespace analysis
PROBE_END_NAMESPACE
