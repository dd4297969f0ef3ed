// Whether an input holds an earlier output's values converted to another float dtype (a cast
// outside any op: float32 activations widened to float64, or narrowed to float16 for the next
// layer), judged from the statistics the manifest records of both, in both runs: their bytes
// differ, so their hashes cannot tell. For compare_graph.hpp's copy lookup. Standalone header.
#pragma once
#include <math.h>
#include "compare_inputs.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace converted_impl {

// Rounding to nearest in dtype t moves a value by at most this share of it; 0 for dtypes this
// lookup does not judge.
inline double unit_roundoff(dtype t) {
  switch (t) {
    case dtype::float16: return 0x1p-11;
    case dtype::bfloat16: return 0x1p-8;
    case dtype::float32: return 0x1p-24;
    case dtype::float64: return 0x1p-53;
    default: return 0;
  }
}

// The smallest positive subnormal of t: below it, rounding moves a value by up to half of it.
inline double smallest_step(dtype t) {
  switch (t) {
    case dtype::float16: return 0x1p-24;
    case dtype::bfloat16: return 0x1p-133;
    case dtype::float32: return 0x1p-149;
    default: return 0x1p-1074;
  }
}

// Whether the values of `in` can be those of `out` after rounding each to the narrower of the
// two dtypes: the same counts of elements, NaN and infinities, and min, max and mean within
// that rounding. A constant tensor is no evidence (any constant copy of the same size would
// pass), so both must spread.
inline bool side_converted(const pair_side& in, const pair_side& out) {
  if (!in.present || !out.present || !in.have_stats || !out.have_stats || in.type == out.type) return false;
  const double u_in = unit_roundoff(in.type), u_out = unit_roundoff(out.type);
  if (u_in == 0 || u_out == 0) return false;
  const dtype narrow = u_in > u_out ? in.type : out.type;
  const double u = u_in > u_out ? u_in : u_out, step = smallest_step(narrow);
  const health &a = in.stats, &b = out.stats;
  if (a.count != b.count || a.finite != b.finite || a.nan != b.nan ||
      a.pos_inf != b.pos_inf || a.neg_inf != b.neg_inf || a.finite == 0)
    return false;
  if (!(b.max > b.min) || !(a.max > a.min)) return false;
  const double scale = fmax(fabs(b.min), fabs(b.max));
  auto near = [&](double x, double y, double within) { return fabs(x - y) <= within; };
  // the mean of rounded values: each moved by at most u of the largest magnitude, and the two
  // means were summed in double over n values
  const double mean_within = (u + 1e-12) * scale + step;
  return near(a.min, b.min, u * fabs(b.min) + step) && near(a.max, b.max, u * fabs(b.max) + step) &&
         near(a.mean, b.mean, mean_within);
}

}  // namespace converted_impl

// Whether input `in` holds output `out`'s values converted to another float dtype in both runs.
inline bool holds_converted(const compared_pair& in, const compared_pair& out) {
  return converted_impl::side_converted(in.a, out.a) && converted_impl::side_converted(in.b, out.b);
}

}  // namespace analysis
PROBE_END_NAMESPACE
