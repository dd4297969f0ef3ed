// What `probe compare` decides with and what it finds for one pair of tensors: tolerances
// (with per-dtype defaults), the check modes, and the per-tensor metrics. Standalone header,
// plain inline; docs/cli-compare.md explains every field.
#pragma once
#include <stdint.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <probe/core/dtype.hpp>
#include <probe/core/tensor_view.hpp>
#include <probe/core/tolerance.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

// An element passes when |a - b| <= atol + rtol * |b| (numpy's allclose; b is the reference).
// The tolerance type and the per-dtype defaults are the library's (core/tolerance.hpp), so
// that a replayed op in the host binary is judged as probe compare judges a dump.
using ::probe::tolerance;
using ::probe::default_tolerance;

// How a tensor's errors are judged (Polygraphy's modes). elementwise: every element must
// pass. max / mean / quantile: the statistic of the absolute errors is held against atol and
// that of the relative errors against rtol; the tensor fails only when both exceed.
// NaN/Inf disagreements fail in every mode.
enum class check_mode : uint8_t { elementwise, max, mean, quantile };

inline const char* check_mode_name(check_mode m) {
  switch (m) {
    case check_mode::max: return "max";
    case check_mode::mean: return "mean";
    case check_mode::quantile: return "quantile";
    default: return "elementwise";
  }
}

struct check_settings {
  check_mode mode = check_mode::elementwise;
  double quantile = 0.99;  // for check_mode::quantile
  bool equal_nan = true;   // NaN against NaN passes
  bool inf_equal = false;  // +inf against +inf (and -inf against -inf) passes; otherwise fails
};

// Errors of one tensor on a log scale: bins of the float32 bit pattern of the error with 5
// mantissa bits, i.e. 32 bins per octave, each at most 3.2% wide relative to its value.
// Quantiles read from it are interpolated inside a bin (exact at 0 and for the maximum).
struct error_histogram {
  static constexpr int mantissa_bits = 5;
  static constexpr int shift = 23 - mantissa_bits;
  static constexpr int bins = (0x7F800000 >> shift) + 1;  // the last one holds +inf
  uint32_t first = 0;            // bin of counts[0]
  std::vector<uint64_t> counts;  // bins first, first+1, ...

  static int bin_of(float e) noexcept {
    uint32_t u;
    __builtin_memcpy(&u, &e, 4);
    return static_cast<int>(u >> shift);
  }
  static float bin_low(int bin) noexcept {
    const uint32_t u = static_cast<uint32_t>(bin) << shift;
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
  }
  uint64_t total() const noexcept {
    uint64_t n = 0;
    for (uint64_t c : counts) n += c;
    return n;
  }
  void merge(const error_histogram& o) {
    if (o.counts.empty()) return;
    if (counts.empty()) {
      *this = o;
      return;
    }
    const uint32_t lo = first < o.first ? first : o.first;
    const uint32_t hi_a = first + static_cast<uint32_t>(counts.size());
    const uint32_t hi_b = o.first + static_cast<uint32_t>(o.counts.size());
    const uint32_t hi = hi_a > hi_b ? hi_a : hi_b;
    std::vector<uint64_t> merged(hi - lo, 0);
    for (size_t i = 0; i < counts.size(); ++i) merged[first - lo + i] += counts[i];
    for (size_t i = 0; i < o.counts.size(); ++i) merged[o.first - lo + i] += o.counts[i];
    counts.swap(merged);
    first = lo;
  }
  // Estimate of the k-th smallest value (0-based): inside its bin, the j-th of c values sits
  // at (j + 0.5) / c of the bin's width.
  double order_statistic(uint64_t k) const noexcept {
    uint64_t before = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      const uint64_t c = counts[i];
      if (c && k < before + c) {
        const int bin = static_cast<int>(first + i);
        if (bin == 0) return 0;  // zero and errors below 2^-131 (bin 0)
        const double b0 = bin_low(bin);
        const double b1 = bin + 1 >= bins ? b0 : bin_low(bin + 1);
        return b0 + (b1 - b0) * ((static_cast<double>(k - before) + 0.5) / static_cast<double>(c));
      }
      before += c;
    }
    return 0;
  }
  // The q-quantile as numpy's default 'linear' method computes it: rank q*(n-1), interpolated
  // between the order statistics on either side (they may sit in distant bins when errors are
  // sparse). hi is the exact largest value (the last order statistic); the result is clamped
  // to [lo, hi].
  double quantile(double q, double lo, double hi) const noexcept {
    const uint64_t n = total();
    if (n == 0) return 0;
    const double rank = q * static_cast<double>(n - 1);
    const uint64_t k = static_cast<uint64_t>(rank);
    auto at = [&](uint64_t j) { return j + 1 >= n ? hi : order_statistic(j); };
    double v = at(k);
    const double frac = rank - static_cast<double>(k);
    if (frac > 0 && k + 1 < n) v += frac * (at(k + 1) - v);
    return v < lo ? lo : v > hi ? hi : v;
  }
};

// Counts of absolute errors per decade, for pictures: bucket 0 is "exactly 0", bucket k >= 1
// holds errors in [10^(lowest+k-1), 10^(lowest+k)).
struct decade_histogram {
  int lowest = 0;
  std::vector<uint64_t> counts;
};

// Everything measured on one pair of tensors (a = the run under test, b = the reference).
// Error metrics cover the positions where both values are finite; NaN/Inf are counted apart.
struct tensor_metrics {
  bool compared = false;     // false: not compared (see the pair's status)
  tolerance tol;             // the tolerance it was judged with
  int64_t count = 0;         // elements (complex: components)
  int64_t finite_pairs = 0;  // positions where both are finite
  double max_abs = 0, mean_abs = 0, rmse = 0;
  double max_rel = 0;        // max |a-b| / max(|b|, floor); floor = atol, or the dtype's smallest normal if atol is 0
  double mean_rel = 0;
  double cosine = 1;         // of the finite positions; 1 when both are all zero
  double snr_db = 0;         // 10 log10(sum b^2 / sum (a-b)^2); +inf when equal
  bool ulp_valid = false;    // both float types
  uint64_t max_ulp = 0;      // in units of the less precise of the two float types
  int64_t fail = 0;          // elements failing |a-b| > atol + rtol|b|, NaN/Inf disagreements included
  double fail_fraction = 0;
  int64_t nan_mismatch = 0;  // a NaN on one side only (or on both, with equal_nan off)
  int64_t inf_mismatch = 0;  // an infinity not matched by the same infinity (or matched, with inf_equal off)
  std::vector<int64_t> first_fail, worst_fail;  // multi-dim indices; empty when nothing fails
  double worst_ratio = 0;    // max |a-b| / (atol + rtol|b|): > 1 means some element fails; inf for NaN/Inf
  double p50 = 0, p90 = 0, p99 = 0;  // quantiles of |a-b| (from error_histogram)
  double check_abs = 0, check_rel = 0;  // the statistics the check mode held against atol / rtol
  double min_atol = 0;  // the smallest atol that passes with rtol = 0 (+inf: none)
  double min_rtol = 0;  // the smallest rtol that passes with atol = 0 (+inf: none)
  bool pass = true;
  decade_histogram hist;
};

// Why a paired key was or was not compared.
enum class pair_status : uint8_t {
  ok,            // compared, within tolerance
  mismatch,      // compared, out of tolerance
  shape,         // shapes differ: a mismatch, not compared
  dtype,         // kinds cannot be compared (bool against float, complex against real)
  only_a,        // in A only
  only_b,        // in B only
  no_data,       // paired, but one side has no data file (stats-only dump, budget reached)
};

inline const char* pair_status_name(pair_status s) {
  switch (s) {
    case pair_status::ok: return "ok";
    case pair_status::mismatch: return "mismatch";
    case pair_status::shape: return "shape";
    case pair_status::dtype: return "dtype";
    case pair_status::only_a: return "only_a";
    case pair_status::only_b: return "only_b";
    default: return "no_data";
  }
}

// A mismatch for root finding: compared out of tolerance, or shapes/kinds differ.
inline bool status_mismatch(pair_status s) {
  return s == pair_status::mismatch || s == pair_status::shape || s == pair_status::dtype;
}

// "[2,3,4]"
inline std::string shape_string(const int64_t* shape, int ndim) {
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// C-order index of a flat position.
inline std::vector<int64_t> unravel(int64_t flat, const int64_t* shape, int ndim) {
  std::vector<int64_t> idx(static_cast<size_t>(ndim > 0 ? ndim : 0), 0);
  for (int d = ndim - 1; d >= 0; --d) {
    const int64_t n = shape[d] > 0 ? shape[d] : 1;
    idx[static_cast<size_t>(d)] = flat % n;
    flat /= n;
  }
  return idx;
}

}  // namespace analysis
PROBE_END_NAMESPACE
