// Health statistics of a tensor: how many values, how many NaN / infinite / zero / subnormal,
// and min, max, mean and standard deviation of the finite ones. What the dump manifest
// records for every tensor, what breakpoints and `probe show` print.
//
//   probe::health h = probe::compute_health(probe::view(x));
//   if (h.nan + h.pos_inf + h.neg_inf) ...
//
// Semantics (docs/stats.md):
// - min, max, mean and std (population, ddof = 0) cover the finite values only; they are NaN
//   when there is none (empty tensor, all NaN/Inf).
// - zero + negative + positive == finite; nan + pos_inf + neg_inf + finite == values, where
//   values is count for real types and 2 * count for complex types (each complex element
//   contributes its real and imaginary part as two values: statistics are per component).
// - subnormal counts nonzero values below the smallest normal of the element type (float16's
//   is 2^-14); those are also counted as negative or positive.
// - integers and bool: nan, pos_inf, neg_inf and subnormal are 0; bool is 0/1. 64-bit integers
//   beyond 2^53 are rounded to double in min/max/mean/std.
// Views must be on the host; device views give valid = false.
//
// One pass over memory: blocks that fit in L1 are read twice while hot (stats_kernel.hpp).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "half.hpp"
#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE

struct health {
  bool valid = false;  // false: invalid view, device memory, or null data
  dtype type = dtype::invalid;
  int64_t count = 0;   // elements (numel)
  int64_t finite = 0;  // finite values: what min/max/mean/std cover
  int64_t nan = 0;
  int64_t pos_inf = 0;
  int64_t neg_inf = 0;
  int64_t zero = 0;       // +0 and -0
  int64_t subnormal = 0;  // nonzero and below the type's smallest normal
  int64_t negative = 0;   // finite, < 0
  int64_t positive = 0;   // finite, > 0
  double min = __builtin_nan("");
  double max = __builtin_nan("");
  double mean = __builtin_nan("");
  double std = __builtin_nan("");  // population standard deviation

  int64_t nonfinite() const noexcept { return nan + pos_inf + neg_inf; }
  bool all_finite() const noexcept { return valid && nonfinite() == 0; }
};

#if defined(PROBE_DISABLE)
inline health compute_health(const tensor_view&) noexcept { return health{}; }
#else
PROBE_API health compute_health(const tensor_view& v) noexcept;
#endif

PROBE_END_NAMESPACE
