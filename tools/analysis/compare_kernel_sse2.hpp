// The fast pass of the compare kernel for float values, four at a time with SSE2 (every
// x86-64 has it): the divisions for the relative errors and tolerance ratios are the cost
// of this pass, and packed they cost a quarter. Sums of squares are kept in double, from
// exact products. Elsewhere the portable loop in compare_kernel.hpp runs. Standalone header.
#pragma once
#include "compare_block.hpp"

#if defined(__SSE2__) && !defined(PROBE_COMPARE_NO_SIMD)
#define PROBE_COMPARE_SSE2 1
#include <emmintrin.h>

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_impl {
namespace sse2 {

inline double hsum(__m128d v) {
  return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v)));
}
inline float lane_max(__m128 v) {
  v = _mm_max_ps(v, _mm_movehl_ps(v, v));
  v = _mm_max_ss(v, _mm_shuffle_ps(v, v, 1));
  return _mm_cvtss_f32(v);
}
inline float lane_min(__m128 v) {
  v = _mm_min_ps(v, _mm_movehl_ps(v, v));
  v = _mm_min_ss(v, _mm_shuffle_ps(v, v, 1));
  return _mm_cvtss_f32(v);
}
inline double lane_sum(__m128 v) {
  return hsum(_mm_add_pd(_mm_cvtps_pd(v), _mm_cvtps_pd(_mm_movehl_ps(v, v))));
}
// Adds the squares of v's four lanes, in double, to acc.
inline __m128d add_squares(__m128d acc, __m128 v) {
  const __m128d lo = _mm_cvtps_pd(v), hi = _mm_cvtps_pd(_mm_movehl_ps(v, v));
  return _mm_add_pd(acc, _mm_add_pd(_mm_mul_pd(lo, lo), _mm_mul_pd(hi, hi)));
}
// Order-preserving integers of float bit patterns: i >= 0 ? i : INT32_MIN - i.
inline __m128i ordered(__m128i i) {
  const __m128i sign = _mm_srai_epi32(i, 31);
  return _mm_sub_epi32(_mm_xor_si128(i, _mm_srli_epi32(sign, 1)), sign);
}
// |a - b| of ordered integers as unsigned 32-bit values (the true difference fits).
inline __m128i distance(__m128i a, __m128i b) {
  const __m128i le = _mm_xor_si128(_mm_cmpgt_epi32(a, b), _mm_set1_epi32(-1));
  const __m128i d = _mm_sub_epi32(a, b);
  return _mm_sub_epi32(_mm_xor_si128(d, le), le);
}
// Unsigned 32-bit maximum (SSE2 has only signed compares: flip the sign bits).
inline __m128i max_u32(__m128i a, __m128i b) {
  const __m128i flip = _mm_set1_epi32(INT32_MIN);
  const __m128i gt = _mm_cmpgt_epi32(_mm_xor_si128(a, flip), _mm_xor_si128(b, flip));
  return _mm_or_si128(_mm_and_si128(gt, a), _mm_andnot_si128(gt, b));
}

}  // namespace sse2

// n is a multiple of 4. Same contract as fast_pass_scalar.
template <ulp_mode U>
inline bool fast_pass_sse2(const float* a, const float* b, const int32_t* oa, const int32_t* ob, size_t n,
                           const kernel_settings& s, block_sums& r, float* ebuf, float* rbuf) {
  const __m128 absmask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  const __m128 atol = _mm_set1_ps(static_cast<float>(s.atol)), rtol = _mm_set1_ps(static_cast<float>(s.rtol));
  const __m128 floor = _mm_set1_ps(static_cast<float>(s.rel_floor));
  const __m128 big = _mm_set1_ps(std::numeric_limits<float>::max());
  const __m128 inf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  const __m128 zero = _mm_setzero_ps();
  __m128 finite = _mm_castsi128_ps(_mm_set1_epi32(-1));
  __m128 mx = zero, mn = inf, mnz = inf, mrel = zero, near = zero, mratio = zero, se = zero, srel = zero;
  __m128d se2 = _mm_setzero_pd(), saa = se2, sbb = se2;
  __m128i fails = _mm_setzero_si128(), mulp = fails;
  for (size_t i = 0; i < n; i += 4) {
    const __m128 x = _mm_loadu_ps(a + i), y = _mm_loadu_ps(b + i);
    const __m128 e = _mm_and_ps(_mm_sub_ps(x, y), absmask), ay = _mm_and_ps(y, absmask);
    finite = _mm_and_ps(finite, _mm_cmple_ps(e, big));
    const __m128 tol = _mm_add_ps(atol, _mm_mul_ps(rtol, ay));
    fails = _mm_sub_epi32(fails, _mm_castps_si128(_mm_cmpgt_ps(e, tol)));
    // maxps(v, m) returns m when v is NaN (0/0): those lanes do not count
    // |b| below the floor with an error: max |a-b|/|b| needs those few lanes apart
    near = _mm_or_ps(near, _mm_and_ps(_mm_cmplt_ps(ay, floor), _mm_cmpgt_ps(e, zero)));
    const __m128 rel = _mm_div_ps(e, _mm_max_ps(ay, floor));
    mrel = _mm_max_ps(rel, mrel);
    mratio = _mm_max_ps(_mm_div_ps(e, tol), mratio);
    mx = _mm_max_ps(e, mx);
    mn = _mm_min_ps(e, mn);
    const __m128 nz = _mm_cmpgt_ps(e, zero);
    mnz = _mm_min_ps(_mm_or_ps(_mm_and_ps(nz, e), _mm_andnot_ps(nz, inf)), mnz);
    se = _mm_add_ps(se, e);  // float lanes over one block (<= 256 terms each), then double
    srel = _mm_add_ps(srel, rel);
    se2 = sse2::add_squares(se2, e);
    saa = sse2::add_squares(saa, x);
    sbb = sse2::add_squares(sbb, y);
    _mm_storeu_ps(ebuf + i, e);
    _mm_storeu_ps(rbuf + i, rel);
    if constexpr (U == ulp_mode::f32_bits) {
      const __m128i d = sse2::distance(sse2::ordered(_mm_castps_si128(x)), sse2::ordered(_mm_castps_si128(y)));
      mulp = sse2::max_u32(d, mulp);
    } else if constexpr (U == ulp_mode::staged) {
      const __m128i d = sse2::distance(_mm_loadu_si128(reinterpret_cast<const __m128i*>(oa + i)),
                                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(ob + i)));
      mulp = sse2::max_u32(d, mulp);
    }
  }
  if (_mm_movemask_ps(finite) != 0xf) return false;
  r.se += sse2::lane_sum(se);
  r.srel += sse2::lane_sum(srel);
  r.se2 += sse2::hsum(se2);
  r.saa += sse2::hsum(saa);
  r.sbb += sse2::hsum(sbb);
  r.mx = sse2::lane_max(mx);
  r.mn = sse2::lane_min(mn);
  r.mnz = sse2::lane_min(mnz);
  r.mrel = sse2::lane_max(mrel);
  r.mq = max_q(a, b, n, s.rel_floor, r.mrel, _mm_movemask_ps(near) != 0);
  r.mratio = sse2::lane_max(mratio);
  alignas(16) int32_t f[4];
  alignas(16) uint32_t u[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(f), fails);
  _mm_store_si128(reinterpret_cast<__m128i*>(u), mulp);
  r.fails += int64_t{f[0]} + f[1] + f[2] + f[3];
  for (uint32_t v : u) r.mulp = v > r.mulp ? v : r.mulp;
  return true;
}

}  // namespace compare_impl
}  // namespace analysis
PROBE_END_NAMESPACE
#else
#define PROBE_COMPARE_SSE2 0
#endif
