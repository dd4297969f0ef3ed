// The fast pass of the compare kernel for float values, eight at a time with AVX2, chosen
// at run time on x86-64 CPUs that have it (the code is compiled for AVX2 whatever the
// build's flags, and only called after the CPU said yes). Same contract and arithmetic as
// the SSE2 pass; only the float partial sums of |a-b| and of the relative errors are
// grouped differently (8 lanes instead of 4). Standalone header.
#pragma once
#include "compare_block.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PROBE_COMPARE_NO_SIMD)
#define PROBE_COMPARE_AVX2 1
#include <immintrin.h>

#define PROBE_AVX2 __attribute__((target("avx2")))

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_impl {
namespace avx2 {

PROBE_AVX2 inline __m256d add_squares(__m256d acc, __m256 v) {
  const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
  return _mm256_add_pd(acc, _mm256_add_pd(_mm256_mul_pd(lo, lo), _mm256_mul_pd(hi, hi)));
}
PROBE_AVX2 inline __m256i ordered(__m256i i) {
  const __m256i sign = _mm256_srai_epi32(i, 31);
  return _mm256_sub_epi32(_mm256_xor_si256(i, _mm256_srli_epi32(sign, 1)), sign);
}
PROBE_AVX2 inline __m256i distance(__m256i a, __m256i b) {
  const __m256i le = _mm256_xor_si256(_mm256_cmpgt_epi32(a, b), _mm256_set1_epi32(-1));
  return _mm256_sub_epi32(_mm256_xor_si256(_mm256_sub_epi32(a, b), le), le);
}

}  // namespace avx2

// n is a multiple of 8.
template <ulp_mode U>
PROBE_AVX2 inline bool fast_pass_avx2(const float* a, const float* b, const int32_t* oa, const int32_t* ob, size_t n,
                                      const kernel_settings& s, block_sums& r, float* ebuf, float* rbuf) {
  const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256 atol = _mm256_set1_ps(static_cast<float>(s.atol)), rtol = _mm256_set1_ps(static_cast<float>(s.rtol));
  const __m256 floor = _mm256_set1_ps(static_cast<float>(s.rel_floor));
  const __m256 big = _mm256_set1_ps(std::numeric_limits<float>::max());
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m256 zero = _mm256_setzero_ps();
  __m256 finite = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
  __m256 mx = zero, mn = inf, mnz = inf, mrel = zero, near = zero, mratio = zero, se = zero, srel = zero;
  __m256d se2 = _mm256_setzero_pd(), saa = se2, sbb = se2;
  __m256i fails = _mm256_setzero_si256(), mulp = fails;
  for (size_t i = 0; i < n; i += 8) {
    const __m256 x = _mm256_loadu_ps(a + i), y = _mm256_loadu_ps(b + i);
    const __m256 e = _mm256_and_ps(_mm256_sub_ps(x, y), absmask), ay = _mm256_and_ps(y, absmask);
    finite = _mm256_and_ps(finite, _mm256_cmp_ps(e, big, _CMP_LE_OQ));
    const __m256 tol = _mm256_add_ps(atol, _mm256_mul_ps(rtol, ay));
    fails = _mm256_sub_epi32(fails, _mm256_castps_si256(_mm256_cmp_ps(e, tol, _CMP_GT_OQ)));
    // |b| below the floor with an error: max |a-b|/|b| needs those few lanes apart
    near = _mm256_or_ps(near, _mm256_and_ps(_mm256_cmp_ps(ay, floor, _CMP_LT_OQ), _mm256_cmp_ps(e, zero, _CMP_GT_OQ)));
    const __m256 rel = _mm256_div_ps(e, _mm256_max_ps(ay, floor));
    mrel = _mm256_max_ps(rel, mrel);
    mratio = _mm256_max_ps(_mm256_div_ps(e, tol), mratio);
    mx = _mm256_max_ps(e, mx);
    mn = _mm256_min_ps(e, mn);
    mnz = _mm256_min_ps(_mm256_blendv_ps(inf, e, _mm256_cmp_ps(e, zero, _CMP_GT_OQ)), mnz);
    se = _mm256_add_ps(se, e);
    srel = _mm256_add_ps(srel, rel);
    se2 = avx2::add_squares(se2, e);
    saa = avx2::add_squares(saa, x);
    sbb = avx2::add_squares(sbb, y);
    _mm256_storeu_ps(ebuf + i, e);
    _mm256_storeu_ps(rbuf + i, rel);
    if constexpr (U == ulp_mode::f32_bits) {
      mulp = _mm256_max_epu32(avx2::distance(avx2::ordered(_mm256_castps_si256(x)), avx2::ordered(_mm256_castps_si256(y))), mulp);
    } else if constexpr (U == ulp_mode::staged) {
      mulp = _mm256_max_epu32(avx2::distance(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(oa + i)),
                                             _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ob + i))),
                              mulp);
    }
  }
  if (_mm256_movemask_ps(finite) != 0xff) return false;
  alignas(32) float f[8][8] = {};
  _mm256_store_ps(f[0], se);
  _mm256_store_ps(f[1], srel);
  _mm256_store_ps(f[2], mx);
  _mm256_store_ps(f[3], mn);
  _mm256_store_ps(f[4], mnz);
  _mm256_store_ps(f[5], mrel);
  _mm256_store_ps(f[7], mratio);
  alignas(32) double d[3][4];
  _mm256_store_pd(d[0], se2);
  _mm256_store_pd(d[1], saa);
  _mm256_store_pd(d[2], sbb);
  alignas(32) int32_t fc[8];
  alignas(32) uint32_t u[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(fc), fails);
  _mm256_store_si256(reinterpret_cast<__m256i*>(u), mulp);
  for (int k = 0; k < 8; ++k) {
    r.se += static_cast<double>(f[0][k]);
    r.srel += static_cast<double>(f[1][k]);
  }
  r.se2 += (d[0][0] + d[0][2]) + (d[0][1] + d[0][3]);
  r.saa += (d[1][0] + d[1][2]) + (d[1][1] + d[1][3]);
  r.sbb += (d[2][0] + d[2][2]) + (d[2][1] + d[2][3]);
  float vmx = 0, vmn = f[3][0], vmnz = f[4][0], vrel = 0, vratio = 0;
  for (int k = 0; k < 8; ++k) {
    vmx = f[2][k] > vmx ? f[2][k] : vmx;
    vmn = f[3][k] < vmn ? f[3][k] : vmn;
    vmnz = f[4][k] < vmnz ? f[4][k] : vmnz;
    vrel = f[5][k] > vrel ? f[5][k] : vrel;
    vratio = f[7][k] > vratio ? f[7][k] : vratio;
    r.fails += fc[k];
    r.mulp = u[k] > r.mulp ? u[k] : r.mulp;
  }
  r.mx = vmx, r.mn = vmn, r.mnz = vmnz, r.mrel = vrel, r.mratio = vratio;
  r.mq = max_q(a, b, n, s.rel_floor, vrel, _mm256_movemask_ps(near) != 0);
  return true;
}

inline bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

}  // namespace compare_impl
}  // namespace analysis
PROBE_END_NAMESPACE
#undef PROBE_AVX2
#else
#define PROBE_COMPARE_AVX2 0
#endif
