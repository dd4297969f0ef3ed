// Whether two tensors agree within a tolerance: numpy's allclose rule with the per-dtype
// default tolerances, NaN and Inf rules and error figures of `probe compare`, in the library
// so that a replayed op can be judged inside the host binary. probe compare's analysis uses
// the same tolerance type and defaults (tools/analysis/compare_types.hpp).
//
//   probe::closeness c = probe::check_close(probe::view(out), probe::view(expected));
//   if (!c.pass) ... c.fail, c.max_abs, c.worst_index ...
//
// An element passes when |a - b| <= atol + rtol * |b| (b: the reference). A NaN passes only
// against a NaN (with equal_nan), an infinity only against the same infinity (with
// inf_equal). Complex tensors are compared per component.
#pragma once
#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE

struct tolerance {
  double atol = 0;
  double rtol = 0;
};

// Defaults follow the less precise dtype of the pair, so that an f16 run against an f32
// reference is judged at f16's precision: f64 1e-8/1e-7, f32 1e-5/1e-5, f16 1e-2/1e-2 and
// bf16 5e-2/5e-2 (about ten and six units of their machine epsilon: a whole graph
// accumulates several roundings); integers and bool compare exactly.
inline tolerance default_tolerance(dtype a, dtype b) noexcept {
  auto rank = [](dtype t) {
    switch (t) {
      case dtype::bfloat16: return 0;
      case dtype::float16: return 1;
      case dtype::float32: case dtype::complex64: return 2;
      case dtype::float64: case dtype::complex128: return 3;
      default: return 4;  // integers and bool
    }
  };
  const int r = rank(a) < rank(b) ? rank(a) : rank(b);
  switch (r) {
    case 0: return {5e-2, 5e-2};
    case 1: return {1e-2, 1e-2};
    case 2: return {1e-5, 1e-5};
    case 3: return {1e-8, 1e-7};
    default: return {0, 0};
  }
}

struct closeness {
  bool comparable = false;  // same shape, kinds that compare (not bool against float, ...), host memory
  const char* why = "";     // when not comparable: "shape", "dtype" or "memory"
  tolerance tol;            // what it was judged with
  int64_t count = 0;        // values compared (complex: components)
  int64_t fail = 0;         // failing values, NaN/Inf disagreements included
  int64_t nan_mismatch = 0, inf_mismatch = 0;
  double max_abs = 0;       // over pairs where both are finite
  double max_rel = 0;       // max |a-b| / max(|b|, floor): floor = atol, or the smallest normal
  double worst_ratio = 0;   // max |a-b| / (atol + rtol|b|); +inf for a NaN/Inf disagreement
  int64_t first_fail = -1;  // flat C-order index of a value (complex: component); -1 if none
  int64_t worst_fail = -1;
  bool pass = false;
};

#if !defined(PROBE_DISABLE)
// a: under test, b: the reference. A negative atol or rtol takes the dtype default.
PROBE_API closeness check_close(const tensor_view& a, const tensor_view& b, tolerance asked = {-1, -1},
                                bool equal_nan = true, bool inf_equal = false) noexcept;
#endif

PROBE_END_NAMESPACE
