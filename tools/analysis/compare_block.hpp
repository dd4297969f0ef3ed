// The pieces the block kernels share: ULP modes, the settings, what a block of all-finite
// pairs sums up, and order-preserving integers of IEEE bit patterns. Standalone header.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <limits>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_impl {

// How the ULP distance is measured: not at all, from float32 or float64 bits of the values,
// from the values rounded to float32, or from ordered integers staged with the values
// (float16 and bfloat16).
enum class ulp_mode : uint8_t { none, f32_bits, f64_bits, f32_round, staged };

struct kernel_settings {
  double atol = 0, rtol = 0;
  double rel_floor = 0;  // |b| below this counts as this, for the relative error
  bool equal_nan = true, inf_equal = false;
  bool want_rel_hist = false;
};

// The widest vector pass the kernel may use: 2 AVX2 (when the CPU has it), 1 SSE2, 0 the
// portable loop. Tests lower it to check that every pass gives the same answers.
inline int simd_limit = 2;

// Pairs per kernel block: the block's errors stay in L1 for the histogram pass.
constexpr size_t block = 1024;

// The sums and extremes of one block of all-finite pairs.
struct block_sums {
  double se = 0, se2 = 0, saa = 0, sbb = 0, srel = 0;
  double mx = 0, mn = std::numeric_limits<double>::infinity(), mnz = mn, mrel = 0, mq = 0, mratio = 0;
  int64_t fails = 0;
  uint64_t mulp = 0;
};

// max |a-b|/|b| of a block of finite float pairs, from the max relative error (equal to it
// wherever |b| >= floor) and, when some lane had |b| < floor with an error, those lanes.
inline double max_q(const float* a, const float* b, size_t n, double rel_floor, double max_rel, bool near) {
  float m = static_cast<float>(max_rel);
  if (!near) return m;
  const float floor = static_cast<float>(rel_floor);
  for (size_t i = 0; i < n; ++i) {
    const float e = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i], ay = b[i] < 0 ? -b[i] : b[i];
    if (ay < floor && e > 0) {
      const float q = e / ay;
      m = q > m ? q : m;
    }
  }
  return m;
}

// Order-preserving integers of IEEE bit patterns; +0 and -0 both map to 0.
inline int64_t ordered(int32_t bits) { return bits >= 0 ? bits : int64_t{INT32_MIN} - bits; }
inline int64_t ordered16(uint16_t bits) {
  const int32_t s = static_cast<int16_t>(bits);
  return s >= 0 ? s : int32_t{INT16_MIN} - s;
}
inline uint64_t distance_ordered(int64_t a, int64_t b) {
  return a >= b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b) : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}
inline int32_t bits32(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i;
}
inline int64_t bits64(double d) {
  int64_t i;
  memcpy(&i, &d, 8);
  return i;
}
inline uint64_t ulp_distance_f64(double x, double y) {
  // ordered for 64-bit patterns, without overflow: both halves of the line handled apart
  const int64_t a = bits64(x), b = bits64(y);
  const bool na = a < 0, nb = b < 0;
  const uint64_t ma = static_cast<uint64_t>(a) & 0x7fffffffffffffffull, mb = static_cast<uint64_t>(b) & 0x7fffffffffffffffull;
  if (na == nb) return ma >= mb ? ma - mb : mb - ma;
  return ma + mb;  // across zero
}

}  // namespace compare_impl
}  // namespace analysis
PROBE_END_NAMESPACE
