// Comparing one pair of tensors: the plan (can they be compared, with which tolerance and
// kernel), the metrics from the kernel's partial sums, and compare_tensors() for a user's
// own tests:
//
//   auto c = probe::analysis::compare_tensors(probe::view(out), probe::view(reference));
//   CHECK_MESSAGE(c.metrics.pass, probe::analysis::describe(c));
//
// Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <probe/core/tensor.hpp>
#include "compare_source.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// The tolerance in effect: explicit values where given (>= 0), the dtype default elsewhere.
inline tolerance resolve_tolerance(tolerance asked, dtype a, dtype b) {
  const tolerance d = default_tolerance(a, b);
  return {asked.atol >= 0 ? asked.atol : d.atol, asked.rtol >= 0 ? asked.rtol : d.rtol};
}

// What the comparison of a pair needs before it reads any value.
struct pair_plan {
  pair_status status = pair_status::ok;  // ok: to be compared; shape or dtype: not comparable
  std::string why;
  tolerance tol;
  compare_impl::kernel_choice kernel;
  compare_impl::kernel_settings settings;
  int64_t count = 0;  // positions (complex: components)
  int ndim = 0;       // shape for indices (complex: one more dimension of 2)
  int64_t shape[max_dims + 1] = {};
};

inline pair_plan plan_pair(dtype ta, const int64_t* sa, int na, dtype tb, const int64_t* sb, int nb,
                           tolerance asked, const check_settings& check) {
  pair_plan p;
  const bool same_shape = na == nb && std::equal(sa, sa + na, sb);
  if (!same_shape) {
    p.status = pair_status::shape;
    p.why = "shape " + shape_string(sa, na) + " vs " + shape_string(sb, nb);
    return p;
  }
  const bool ca = dtype_is_complex(ta), cb = dtype_is_complex(tb);
  const bool ba = ta == dtype::boolean, bb = tb == dtype::boolean;
  if (ca != cb || ba != bb || ta == dtype::invalid || tb == dtype::invalid) {
    p.status = pair_status::dtype;
    p.why = std::string("dtype ") + dtype_name(ta) + " vs " + dtype_name(tb);
    return p;
  }
  const dtype ea = compare_impl::component_type(ta), eb = compare_impl::component_type(tb);
  p.tol = resolve_tolerance(asked, ta, tb);
  p.kernel = compare_impl::choose_kernel(ea, eb);
  p.ndim = na;
  for (int i = 0; i < na; ++i) p.shape[i] = sa[i];
  if (ca) p.shape[p.ndim++] = 2;
  p.count = 1;
  for (int i = 0; i < p.ndim; ++i) p.count *= p.shape[i];
  auto& s = p.settings;
  s.atol = p.tol.atol;
  s.rtol = p.tol.rtol;
  s.equal_nan = check.equal_nan;
  s.inf_equal = check.inf_equal;
  s.want_rel_hist = check.mode == check_mode::quantile;
  // |b| below the floor counts as the floor in the relative error: atol when there is one
  // (errors that small pass anyway), else the smallest normal of the coarser float type.
  const dtype u = compare_impl::ulp_type(ea, eb);
  s.rel_floor = p.tol.atol > 0                 ? p.tol.atol
                : u == dtype::float16          ? 6.103515625e-05
                : u == dtype::bfloat16 || u == dtype::float32 ? 1.1754943508222875e-38
                : u == dtype::float64          ? 2.2250738585072014e-308
                                               : 1.0;
  return p;
}

// Counts of absolute errors per decade, from the fine histogram (errors past float's range,
// in its last bin, count in the decade of FLT_MAX).
inline decade_histogram decades_of(const error_histogram& h) {
  auto decade = [](int bin) {
    const int last_finite = error_histogram::bins - 2;
    return static_cast<int>(std::floor(std::log10(error_histogram::bin_low(bin < last_finite ? bin : last_finite))));
  };
  decade_histogram d;
  int lo = 1000, hi = -1000;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    const int bin = static_cast<int>(h.first + i);
    if (!h.counts[i] || bin == 0) continue;
    lo = std::min(lo, decade(bin));
    hi = std::max(hi, decade(bin));
  }
  if (hi < lo) lo = hi = 0;
  d.lowest = lo;
  d.counts.assign(static_cast<size_t>(hi - lo + 2), 0);
  for (size_t i = 0; i < h.counts.size(); ++i) {
    const int bin = static_cast<int>(h.first + i);
    if (!h.counts[i]) continue;
    d.counts[bin == 0 ? 0 : static_cast<size_t>(decade(bin) - lo + 1)] += h.counts[i];
  }
  if (d.counts.size() == 2 && d.counts[1] == 0) d.counts.resize(1);
  return d;
}

// The metrics of a compared pair from its merged partial sums.
inline tensor_metrics finish_metrics(const compare_impl::partial& p, const pair_plan& plan, const check_settings& check) {
  const double inf = std::numeric_limits<double>::infinity();
  tensor_metrics m;
  m.compared = true;
  m.tol = plan.tol;
  m.count = p.count;
  m.finite_pairs = p.finite;
  const double n = p.finite > 0 ? static_cast<double>(p.finite) : 1;
  m.max_abs = p.max_e;
  m.mean_abs = p.sum_e / n;
  m.rmse = std::sqrt(p.sum_e2 / n);
  m.max_rel = p.max_rel;
  m.mean_rel = p.sum_rel / n;
  if (p.sum_aa == 0 && p.sum_bb == 0) {
    m.cosine = 1;
  } else if (p.sum_aa == 0 || p.sum_bb == 0) {
    m.cosine = 0;
  } else {
    // 1 - cos = (|a-b|^2 - (|a| - |b|)^2) / (2|a||b|): stays accurate when cos is near 1
    const double na = std::sqrt(p.sum_aa), nb = std::sqrt(p.sum_bb);
    const double c = 1 - (p.sum_e2 - (na - nb) * (na - nb)) / (2 * na * nb);
    m.cosine = c > 1 ? 1 : c < -1 ? -1 : c;
  }
  m.snr_db = p.sum_e2 == 0 ? inf : p.sum_bb == 0 ? -inf : 10 * std::log10(p.sum_bb / p.sum_e2);
  m.ulp_valid = plan.kernel.ulp != compare_impl::ulp_mode::none;
  m.max_ulp = p.max_ulp;
  m.fail = p.fail;
  m.fail_fraction = p.count ? static_cast<double>(p.fail) / static_cast<double>(p.count) : 0;
  m.nan_mismatch = p.nan_mismatch;
  m.inf_mismatch = p.inf_mismatch;
  if (p.first_fail >= 0) m.first_fail = unravel(p.first_fail, plan.shape, plan.ndim);
  if (p.worst_fail >= 0) m.worst_fail = unravel(p.worst_fail, plan.shape, plan.ndim);
  m.worst_ratio = p.worst_ratio;
  const double lo = p.finite ? p.min_e : 0;
  m.p50 = p.abs_hist.quantile(0.50, lo, p.max_e);
  m.p90 = p.abs_hist.quantile(0.90, lo, p.max_e);
  m.p99 = p.abs_hist.quantile(0.99, lo, p.max_e);
  const bool nonfinite_fail = p.nan_mismatch + p.inf_mismatch > 0;
  switch (check.mode) {
    case check_mode::elementwise:
      m.check_abs = p.max_e;
      m.check_rel = p.max_q;
      m.pass = p.fail == 0;
      break;
    case check_mode::max:
      m.check_abs = p.max_e;
      m.check_rel = p.max_rel;
      break;
    case check_mode::mean:
      m.check_abs = m.mean_abs;
      m.check_rel = m.mean_rel;
      break;
    case check_mode::quantile:
      m.check_abs = p.abs_hist.quantile(check.quantile, lo, p.max_e);
      m.check_rel = p.rel_hist.quantile(check.quantile, 0, p.max_rel);
      break;
  }
  if (check.mode != check_mode::elementwise)
    m.pass = !nonfinite_fail && !(m.check_abs > plan.tol.atol && m.check_rel > plan.tol.rtol);
  // with rtol = 0 an element passes when its error <= atol; with atol = 0, when <= rtol|b|
  m.min_atol = nonfinite_fail ? inf : (check.mode == check_mode::elementwise || m.check_rel > 0 ? m.check_abs : 0);
  m.min_rtol = nonfinite_fail ? inf : (check.mode == check_mode::elementwise || m.check_abs > 0 ? m.check_rel : 0);
  m.hist = decades_of(p.abs_hist);
  return m;
}

// A compared (or refused) pair of tensors.
struct tensor_comparison {
  pair_status status = pair_status::ok;
  std::string why;  // for shape and dtype
  std::string error;
  tensor_metrics metrics;
};

// One line in words: "max abs err 0.5 at [3, 1], 12 of 64 elements fail (atol 1e-05, rtol 1e-05)".
inline std::string describe(const tensor_comparison& c) {
  if (!c.error.empty()) return c.error;
  if (c.status == pair_status::shape || c.status == pair_status::dtype) return c.why;
  const tensor_metrics& m = c.metrics;
  char buf[256];
  std::snprintf(buf, sizeof buf, "max abs err %.6g, max rel err %.6g, %lld of %lld elements fail (atol %g, rtol %g)",
                m.max_abs, m.max_rel, static_cast<long long>(m.fail), static_cast<long long>(m.count), m.tol.atol,
                m.tol.rtol);
  std::string s = buf;
  if (!m.worst_fail.empty()) s += ", worst at " + shape_string(m.worst_fail.data(), static_cast<int>(m.worst_fail.size()));
  if (m.nan_mismatch || m.inf_mismatch)
    s += ", " + std::to_string(m.nan_mismatch) + " NaN and " + std::to_string(m.inf_mismatch) + " Inf disagreements";
  return s;
}

// Compares two host views (a: under test, b: the reference). Negative tolerance fields take
// the dtype default. Strided views are gathered first.
inline tensor_comparison compare_tensors(const tensor_view& a, const tensor_view& b, tolerance tol = {-1, -1},
                                         const check_settings& check = check_settings()) {
  tensor_comparison out;
  if (!a.valid() || !b.valid() || !a.where.is_host() || !b.where.is_host()) {
    out.status = pair_status::dtype;
    out.why = "invalid or device view";
    out.metrics.pass = false;
    return out;
  }
  const pair_plan plan = plan_pair(a.type, a.shape, a.ndim, b.type, b.shape, b.ndim, tol, check);
  out.status = plan.status;
  out.why = plan.why;
  if (plan.status != pair_status::ok) {
    out.metrics.pass = false;
    return out;
  }
  tensor ca, cb;
  auto source = [&](const tensor_view& v, tensor& copy) {
    compare_impl::tensor_source s;
    s.type = compare_impl::component_type(v.type);
    if (v.is_contiguous() || v.ndim == 0) {
      s.memory = static_cast<const char*>(v.data);
    } else {
      copy = tensor::copy_of(v);
      s.memory = static_cast<const char*>(copy.data());
    }
    return s;
  };
  const compare_impl::tensor_source sa = source(a, ca), sb = source(b, cb);
  compare_impl::worker_space w;
  compare_impl::partial p;
  compare_impl::run_chosen(plan.kernel, sa, sb, 0, plan.count, plan.settings, w, &p);
  out.metrics = finish_metrics(p, plan, check);
  out.status = out.metrics.pass ? pair_status::ok : pair_status::mismatch;
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
