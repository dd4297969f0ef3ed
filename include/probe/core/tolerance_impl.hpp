// tolerance: definitions (see tolerance.hpp).
#pragma once
#include "half.hpp"
#include "tensor.hpp"
#include "tolerance.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
namespace close_impl {

inline dtype component_type(dtype t) noexcept {
  return t == dtype::complex64 ? dtype::float32 : t == dtype::complex128 ? dtype::float64 : t;
}

// Mantissa bits of a float type (0: not a float type).
inline int precision_bits(dtype t) noexcept {
  switch (t) {
    case dtype::bfloat16: return 8;
    case dtype::float16: return 11;
    case dtype::float32: return 24;
    case dtype::float64: return 53;
    default: return 0;
  }
}

// |b| below the floor counts as the floor in the relative error: atol when there is one
// (errors that small pass anyway), else the smallest normal of the less precise float type.
inline double relative_floor(dtype a, dtype b, double atol) noexcept {
  if (atol > 0) return atol;
  const int pa = precision_bits(a), pb = precision_bits(b);
  if (!pa || !pb) return 1.0;
  const dtype u = pa <= pb ? a : b;
  return u == dtype::float16 ? 6.103515625e-05 : u == dtype::float64 ? 2.2250738585072014e-308 : 1.1754943508222875e-38;
}

// n values of a real component type, from raw memory, as doubles.
inline void to_doubles(dtype t, const void* raw, size_t n, double* out) noexcept {
  switch (t) {
#define PROBE_CLOSE_CASE(DT, CT)                                               \
  case DT: {                                                                    \
    const CT* p = static_cast<const CT*>(raw);                                  \
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(p[i]);         \
    break;                                                                      \
  }
    PROBE_CLOSE_CASE(dtype::int8, int8_t)
    PROBE_CLOSE_CASE(dtype::uint8, uint8_t)
    PROBE_CLOSE_CASE(dtype::int16, int16_t)
    PROBE_CLOSE_CASE(dtype::uint16, uint16_t)
    PROBE_CLOSE_CASE(dtype::int32, int32_t)
    PROBE_CLOSE_CASE(dtype::uint32, uint32_t)
    PROBE_CLOSE_CASE(dtype::int64, int64_t)
    PROBE_CLOSE_CASE(dtype::uint64, uint64_t)
    PROBE_CLOSE_CASE(dtype::float32, float)
    PROBE_CLOSE_CASE(dtype::float64, double)
#undef PROBE_CLOSE_CASE
    case dtype::boolean: {
      const uint8_t* p = static_cast<const uint8_t*>(raw);
      for (size_t i = 0; i < n; ++i) out[i] = p[i] ? 1.0 : 0.0;
      break;
    }
    case dtype::float16: {
      const uint16_t* p = static_cast<const uint16_t*>(raw);
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(half_bits_to_float(p[i]));
      break;
    }
    case dtype::bfloat16: {
      const uint16_t* p = static_cast<const uint16_t*>(raw);
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(bfloat16_bits_to_float(p[i]));
      break;
    }
    default:
      for (size_t i = 0; i < n; ++i) out[i] = 0;
  }
}

// Compiler builtins, not <math.h>: it would cost every header-only TU ~90 ms.
inline bool finite_(double v) noexcept { return __builtin_isfinite(v); }
inline bool nan_(double v) noexcept { return __builtin_isnan(v); }
inline double abs_(double v) noexcept { return __builtin_fabs(v); }

// One block of pairs, judged as probe compare's element path judges them.
inline void judge(const double* x, const double* y, size_t n, int64_t first_index, double atol, double rtol,
                  double floor, bool equal_nan, bool inf_equal, closeness& c) noexcept {
  const double inf = __builtin_inf();
  for (size_t i = 0; i < n; ++i) {
    const double a = x[i], b = y[i];
    const int64_t index = first_index + static_cast<int64_t>(i);
    if (finite_(a) && finite_(b)) {
      const double e = abs_(a - b), ab = abs_(b);
      const double tol = atol + rtol * ab;
      const double rel = e / (ab > floor ? ab : floor), ratio = e / tol;
      if (e > c.max_abs) c.max_abs = e;
      if (rel > c.max_rel) c.max_rel = rel;
      if (e > tol) {
        c.fail += 1;
        if (c.first_fail < 0) c.first_fail = index;
        if (c.worst_fail < 0 || ratio > c.worst_ratio) c.worst_fail = index;
      }
      if (ratio > c.worst_ratio) c.worst_ratio = ratio;
      continue;
    }
    bool ok;
    if (nan_(a) || nan_(b)) {
      ok = nan_(a) && nan_(b) && equal_nan;
      if (!ok) c.nan_mismatch += 1;
    } else {
      ok = inf_equal && a == b;
      if (!ok) c.inf_mismatch += 1;
    }
    if (ok) continue;
    c.fail += 1;
    if (c.first_fail < 0) c.first_fail = index;
    if (c.worst_ratio < inf || c.worst_fail < 0) {
      if (c.worst_ratio < inf) c.worst_fail = index;
      c.worst_ratio = inf;
    }
  }
}

// The common case, a block where every pair is finite and passes, without a branch per
// element; false (and nothing counted) when the block needs judge's element path.
inline bool judge_passing(const double* x, const double* y, size_t n, double atol, double rtol, double floor,
                          closeness& c) noexcept {
  double max_e = 0, max_rel = 0, max_ratio = 0;
  bool bad = false;
  for (size_t i = 0; i < n; ++i) {
    const double e = abs_(x[i] - y[i]), ab = abs_(y[i]);
    const double tol = atol + rtol * ab;
    bad |= !(e <= tol);  // a failure, a NaN or an infinity
    const double rel = e / (ab > floor ? ab : floor), ratio = e / tol;
    max_e = e > max_e ? e : max_e;
    max_rel = rel > max_rel ? rel : max_rel;
    max_ratio = ratio > max_ratio ? ratio : max_ratio;
  }
  if (bad) return false;
  if (max_e > c.max_abs) c.max_abs = max_e;
  if (max_rel > c.max_rel) c.max_rel = max_rel;
  if (max_ratio > c.worst_ratio) c.worst_ratio = max_ratio;
  return true;
}

}  // namespace close_impl
}  // namespace detail

PROBE_API closeness check_close(const tensor_view& a, const tensor_view& b, tolerance asked, bool equal_nan,
                                bool inf_equal) noexcept {
  namespace ci = detail::close_impl;
  closeness c;
  if (!a.valid() || !b.valid() || !a.where.is_host() || !b.where.is_host() || (!a.data && a.numel()) ||
      (!b.data && b.numel())) {
    c.why = "memory";
    return c;
  }
  bool same_shape = a.ndim == b.ndim;
  for (int i = 0; same_shape && i < a.ndim; ++i) same_shape = a.shape[i] == b.shape[i];
  if (!same_shape) {
    c.why = "shape";
    return c;
  }
  const bool ca = dtype_is_complex(a.type), cb = dtype_is_complex(b.type);
  const bool ba = a.type == dtype::boolean, bb = b.type == dtype::boolean;
  if (ca != cb || ba != bb) {
    c.why = "dtype";
    return c;
  }
  c.comparable = true;
  const tolerance d = default_tolerance(a.type, b.type);
  c.tol.atol = asked.atol >= 0 ? asked.atol : d.atol;
  c.tol.rtol = asked.rtol >= 0 ? asked.rtol : d.rtol;
  const dtype ea = ci::component_type(a.type), eb = ci::component_type(b.type);
  const double floor = ci::relative_floor(ea, eb, c.tol.atol);
  try {
    // Strided views are gathered first; contiguous ones are read in place.
    tensor ga, gb;
    const char* pa = static_cast<const char*>(a.data);
    const char* pb = static_cast<const char*>(b.data);
    if (!a.is_contiguous()) {
      ga = tensor::copy_of(a);
      pa = static_cast<const char*>(ga.data());
    }
    if (!b.is_contiguous()) {
      gb = tensor::copy_of(b);
      pb = static_cast<const char*>(gb.data());
    }
    const int64_t n = a.numel() * (ca ? 2 : 1);
    const size_t sa = dtype_size(ea), sb = dtype_size(eb);
    constexpr size_t k_block = 2048;
    double x[k_block], y[k_block];
    for (int64_t at = 0; at < n; at += static_cast<int64_t>(k_block)) {
      const size_t m = static_cast<size_t>(n - at < static_cast<int64_t>(k_block) ? n - at : static_cast<int64_t>(k_block));
      ci::to_doubles(ea, pa + static_cast<size_t>(at) * sa, m, x);
      ci::to_doubles(eb, pb + static_cast<size_t>(at) * sb, m, y);
      if (!ci::judge_passing(x, y, m, c.tol.atol, c.tol.rtol, floor, c))
        ci::judge(x, y, m, at, c.tol.atol, c.tol.rtol, floor, equal_nan, inf_equal, c);
    }
    c.count = n;
    c.pass = c.fail == 0;
  } catch (...) {
    c.comparable = false;  // out of memory gathering a strided view
    c.why = "memory";
  }
  return c;
}

PROBE_END_NAMESPACE
