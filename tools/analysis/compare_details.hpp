// A second look at the pairs that mismatch, element by element, for what the per-pair
// metrics cannot say: the tensor's scale (how big an error is next to the values), whether
// every failure lies in one slice ("all 784 failures in channel 15"), and, for an op that
// overwrites a buffer (inout, implicit), how many elements of its output fail where the
// buffer's earlier state passed: the errors the op made itself. Only mismatching pairs are
// read again, block by block. Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compare_inputs.hpp"
#include "compare_source.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace details_impl {

// The values of one side, block by block as doubles (complex: components), read with
// pread into buffers that stay small: a second look costs one read of the files, no
// whole-tensor allocation.
class value_stream {
 public:
  explicit value_stream(const pair_side& s) {
    src_.path = s.file;
    src_.offset = s.data_offset;
    src_.swap = s.swap;
    src_.type = compare_impl::component_type(s.type);
    ok_ = !s.file.empty() && !s.fortran && src_.type != dtype::invalid && s.data_offset > 0;
    if (ok_) reader_.reset(new compare_impl::side_reader(src_, &error_));
    ok_ = ok_ && error_.empty();
  }
  bool ok() const { return ok_; }
  // Values [at, at + n) into out; false on a read error.
  bool read(int64_t at, size_t n, std::vector<double>* out) {
    const void* raw = reader_->read(at, n, raw_, &error_);
    if (!raw) return false;
    out->resize(n);
    compare_impl::to_values<double>(src_.type, raw, n, out->data());
    return true;
  }

 private:
  compare_impl::tensor_source src_;
  std::unique_ptr<compare_impl::side_reader> reader_;
  std::vector<char> raw_;
  std::string error_;
  bool ok_ = false;
};

inline bool element_fails(double a, double b, const tolerance& tol, const check_settings& check) {
  if (std::isnan(a) || std::isnan(b)) return !(std::isnan(a) && std::isnan(b) && check.equal_nan);
  if (std::isinf(a) || std::isinf(b)) return !(a == b && check.inf_equal);
  return !(std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b));
}

inline bool comparable(const compared_pair& p) {
  return (p.status == pair_status::ok || p.status == pair_status::mismatch) && p.metrics.compared && !p.by_stats &&
         !p.a.file.empty() && !p.b.file.empty();
}

}  // namespace details_impl

// Fills scale, slice_dim/slice_index and fresh_fail of the mismatching pairs of one run.
inline void measure_details(std::vector<compared_pair>* pairs, const check_settings& check) {
  using namespace details_impl;
  // the prior state of each overwritten slot: "op#k\nslot" -> input pair
  std::unordered_map<std::string, size_t> prior;
  for (size_t i = 0; i < pairs->size(); ++i)
    if ((*pairs)[i].prior_state()) prior.emplace((*pairs)[i].op_key() + "\n" + (*pairs)[i].slot, i);
  constexpr size_t block = 32768;
  std::vector<double> va, vb, wa, wb;
  for (size_t i = 0; i < pairs->size(); ++i) {
    compared_pair& p = (*pairs)[i];
    if (p.status != pair_status::mismatch || !comparable(p)) continue;
    // the prior state of an overwritten slot, read alongside when it differs too
    const compared_pair* before = nullptr;
    if (!p.is_input) {
      auto it = prior.find(p.op_key() + "\n" + p.slot);
      if (it != prior.end()) before = &(*pairs)[it->second];
    }
    const bool both_differ = before && before->status == pair_status::mismatch && comparable(*before) &&
                             before->metrics.count == p.metrics.count;
    value_stream sa(p.a), sb(p.b);
    std::unique_ptr<value_stream> pa, pb;
    if (both_differ) {
      pa.reset(new value_stream(before->a));
      pb.reset(new value_stream(before->b));
    }
    if (!sa.ok() || !sb.ok()) continue;
    const bool with_prior = both_differ && pa->ok() && pb->ok();
    // complex values are read as components: their positions are not the tensor's indices
    const bool complex = dtype_is_complex(p.a.type) || dtype_is_complex(p.b.type) || p.a.ndim == 0;
    std::vector<int64_t> common(static_cast<size_t>(p.a.ndim), -2);
    double scale = 0, scale_a = 0;
    int64_t fails = 0, fresh = 0;
    bool read_ok = true;
    const int64_t n = p.metrics.count;
    for (int64_t at = 0; at < n && read_ok; at += static_cast<int64_t>(block)) {
      const size_t m = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(block), n - at));
      read_ok = sa.read(at, m, &va) && sb.read(at, m, &vb) && (!with_prior || (pa->read(at, m, &wa) && pb->read(at, m, &wb)));
      if (!read_ok) break;
      for (size_t k = 0; k < m; ++k) {
        if (std::isfinite(vb[k])) scale = std::max(scale, std::fabs(vb[k]));
        if (std::isfinite(va[k])) scale_a = std::max(scale_a, std::fabs(va[k]));
        if (!element_fails(va[k], vb[k], p.metrics.tol, check)) continue;
        ++fails;
        if (with_prior && !element_fails(wa[k], wb[k], before->metrics.tol, check)) ++fresh;
        if (complex) continue;
        int64_t flat = at + static_cast<int64_t>(k);
        for (int d = p.a.ndim - 1; d >= 0; --d) {
          const int64_t len = p.a.shape[d] > 0 ? p.a.shape[d] : 1, idx = flat % len;
          flat /= len;
          int64_t& c = common[static_cast<size_t>(d)];
          c = c == -2 || c == idx ? idx : -1;
        }
      }
    }
    if (!read_ok) continue;
    p.scale = scale > 0 ? scale : scale_a;
    p.reference_scale = scale;
    if (!complex && fails > 1)
      for (int d = 0; d < p.a.ndim; ++d)
        if (p.a.shape[d] > 1 && common[static_cast<size_t>(d)] >= 0) {
          p.slice_dim = d;
          p.slice_index = common[static_cast<size_t>(d)];
          break;
        }
    // the op's own errors: failing elements whose prior state passed
    if (before && before->status == pair_status::ok) p.fresh_fail = fails;
    else if (with_prior) p.fresh_fail = fresh;
  }
}

}  // namespace analysis
PROBE_END_NAMESPACE
