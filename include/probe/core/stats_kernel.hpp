// The block kernel behind probe::compute_health (stats.hpp): classification counts, min, max,
// and the mean and sum of squared deviations (M2) of one block of floats or doubles small
// enough to stay in the L1 cache.
//
// Accuracy: pass 2 sums d = x - c and d*d around a centre c close to the mean (the running
// mean of the blocks before, or the block's mid-range for the first); the block's mean and M2
// are c + S1/n and S2 - S1^2/n. Deviations from a nearby centre never cancel catastrophically
// (a large offset with a small spread stays exact). If the centre was far off (the offset
// term is more than half of S2), pass 2 runs again around the block's mean. Float partial
// sums are folded into doubles every few additions, so their rounding error stays near float
// precision whatever the block length or the data's structure. Blocks combine with Chan's
// pairwise update in long double, relative to a fixed shift (totals, below). A pass that
// overflows (values near the top of the range) is redone in a wider type.
//
// Speed: the common block (no NaN or infinity) is read twice from L1 with no masks; pass 1
// notes any NaN or infinity, and such blocks are redone with full classification.
//
// Floating-point flags: every NaN/infinity test reads the bits (integer compares), never a
// float comparison, so the counts stay right when the including program is built with
// -ffast-math / -ffinite-math-only, which let the compiler assume there is no NaN or Inf.
// Standalone, no standard library.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "../util/config.hpp"

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(PROBE_STATS_SCALAR)
#define PROBE_STATS_SIMD 1
#else
#define PROBE_STATS_SIMD 0
#endif

PROBE_BEGIN_NAMESPACE
namespace detail {
namespace stats {

template <class F>
struct limits;
template <>
struct limits<float> {
  static constexpr float max = 3.40282346638528859812e+38f;
  static constexpr float min_normal = 1.17549435082228750797e-38f;
  using wide = double;  // the overflow fallback's type
  using bits = uint32_t;
  static constexpr uint32_t exponent = 0x7f800000u;  // the bits of +inf
  static constexpr uint32_t sign = 0x80000000u;
};
template <>
struct limits<double> {
  static constexpr double max = 1.79769313486231570815e+308;
  static constexpr double min_normal = 2.22507385850720138309e-308;
  using wide = long double;
  using bits = uint64_t;
  static constexpr uint64_t exponent = 0x7ff0000000000000ull;
  static constexpr uint64_t sign = 0x8000000000000000ull;
};

template <class F>
inline typename limits<F>::bits bits_of(F x) noexcept {
  typename limits<F>::bits b;
  __builtin_memcpy(&b, &x, sizeof b);
  return b;
}
// Finite, from the bits (see "Floating-point flags" above).
template <class F>
inline bool finite_bits(F x) noexcept {
  return (bits_of(x) & ~limits<F>::sign) < limits<F>::exponent;
}
// A long double sum is finite when it is finite as a double: a sum finite in long double but
// past double's range takes the (correct, slower) wider fallback.
inline bool is_finite(long double x) noexcept { return finite_bits(static_cast<double>(x)); }
inline bool is_finite(float x) noexcept { return finite_bits(x); }
inline bool is_finite(double x) noexcept { return finite_bits(x); }

// One block's results. "small" counts |x| < min_normal, zeros included; the caller passes
// the smallest normal of the type the values came from (float16's is above float's).
template <class F>
struct block_result {
  int64_t finite = 0, zero = 0, small = 0, negative = 0, pos_inf = 0, neg_inf = 0;
  F min = limits<F>::max * 2, max = -limits<F>::max * 2;  // +inf / -inf until a finite value
  F centre = 0;                  // the finite values' mean is centre + offset
  long double offset = 0, m2 = 0;
};

// Wider-precision two-pass over the finite values: the overflow fallback, and the moments of
// the scalar kernel.
template <class F>
inline void moments_wide(const F* p, size_t n, block_result<F>& r) noexcept {
  using W = typename limits<F>::wide;
  W sum = 0;
  int64_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (finite_bits(p[i])) {
      sum += static_cast<W>(p[i]);
      ++k;
    }
  }
  r.centre = 0;
  r.offset = r.m2 = 0;
  if (!k) return;
  // Deviations from a centre of type F (exact, so the mean keeps every digit as centre +
  // offset): mean = c + S1/k, M2 = S2 - S1^2/k.
  F c = static_cast<F>(sum / static_cast<W>(k));
  if (!finite_bits(c)) c = 0;
  W s1 = 0, s2 = 0;
  for (size_t i = 0; i < n; ++i) {
    if (finite_bits(p[i])) {
      const W d = static_cast<W>(p[i]) - static_cast<W>(c);
      s1 += d;
      s2 += d * d;
    }
  }
  const W m2 = s2 - s1 * s1 / static_cast<W>(k);
  r.centre = c;
  r.offset = static_cast<long double>(s1 / static_cast<W>(k));
  r.m2 = static_cast<long double>(m2 > 0 ? m2 : 0);
}

template <class F>
inline void block_scalar(const F* p, size_t n, F min_normal, block_result<F>& r) noexcept {
  for (size_t i = 0; i < n; ++i) {
    const F x = p[i];
    const F a = x < 0 ? -x : x;
    const typename limits<F>::bits b = bits_of(x);
    if ((b & ~limits<F>::sign) < limits<F>::exponent) {
      ++r.finite;
      r.zero += a == 0;
      r.small += a < min_normal;
      r.negative += x < 0;
      if (x < r.min) r.min = x;
      if (x > r.max) r.max = x;
    } else {
      r.pos_inf += b == limits<F>::exponent;
      r.neg_inf += b == (limits<F>::exponent | limits<F>::sign);
    }
  }
  moments_wide(p, n, r);
}

#if PROBE_STATS_SIMD

// 16-byte vectors: the SSE2 and NEON baselines, and no ABI warnings for inline helpers.
template <class F>
struct vec;
template <>
struct vec<float> {
  typedef float V __attribute__((vector_size(16)));
  typedef int32_t I __attribute__((vector_size(16)));
  static constexpr int32_t abs_mask = 0x7fffffff;
  static constexpr int32_t inf_bits = 0x7f800000;
  static constexpr size_t lanes = 4;
};
template <>
struct vec<double> {
  typedef double V __attribute__((vector_size(16)));
  typedef int64_t I __attribute__((vector_size(16)));
  static constexpr int64_t abs_mask = 0x7fffffffffffffff;
  static constexpr int64_t inf_bits = 0x7ff0000000000000;
  static constexpr size_t lanes = 2;
};

template <class F>
class block_kernel {
  using V = typename vec<F>::V;
  using I = typename vec<F>::I;
  static constexpr size_t L = vec<F>::lanes;
  static constexpr size_t step = 4 * L;    // values per iteration: four vectors
  static constexpr size_t fold_every = 4;  // iterations between folds of float partial sums

 public:
  // `next`: where the caller's data continues after this block (prefetched), or null.
  block_kernel(const F* data, size_t n, F min_normal, const F* next) noexcept
      : p_(data), next_(next), main_(n - n % step), rest_(n % step), min_normal_(V{} + min_normal) {
    for (size_t i = 0; i < step; ++i) {
      tail_[i] = i < rest_ ? p_[main_ + i] : F(1);
      valid_[i / L][i % L] = i < rest_ ? -1 : 0;
    }
  }

  void run(F hint, block_result<F>& r) const noexcept {
    if (main_ > 0) {
      // Pass 1 assuming every value is finite: extrema, negatives, smallest magnitude.
      V lo, hi, amin;
      I negative, nonfinite;
      scan(&lo, &hi, &amin, &negative, &nonfinite);
      bool any_nonfinite = false;
      for (size_t l = 0; l < L; ++l) any_nonfinite = any_nonfinite || nonfinite[l] != 0;
      classes t;  // the tail always gets the full classification
      classify_tail(t);
      t.lo = lo < t.lo ? lo : t.lo;
      t.hi = hi > t.hi ? hi : t.hi;
      t.negative += negative;
      reduce(t, static_cast<int64_t>(main_), r);
      F c = hint;
      if (!is_finite(c)) c = r.min / 2 + r.max / 2;
      if (!any_nonfinite && moments<false>(c, r)) {
        bool any_small = false;
        for (size_t l = 0; l < L; ++l) any_small = any_small || amin[l] < min_normal_[l];
        if (any_small) count_small(r);
        return;
      }
      r = block_result<F>{};  // a NaN or an infinity in the main part (or an overflow)
    }
    classes t;
    for (size_t i = 0; i < main_; i += step)
      for (size_t u = 0; u < 4; ++u) classify(t, load(p_ + i + u * L), I{} - 1);
    classify_tail(t);
    reduce(t, 0, r);
    if (!r.finite) return;
    long double total = 0;
    for (size_t l = 0; l < L; ++l) total += static_cast<long double>(t.sum[l]);
    const F c = static_cast<F>(total / static_cast<long double>(r.finite));
    if (!moments<true>(c, r)) moments_wide(p_, main_ + rest_, r);
  }

 private:
  const F* p_;
  const F* next_;
  size_t main_, rest_;
  const V inf_ = V{} + limits<F>::max * 2;
  const I abs_mask_ = I{} + vec<F>::abs_mask, inf_bits_ = I{} + vec<F>::inf_bits;
  V min_normal_;
  // The tail goes through a buffer padded with 1 (finite, normal, positive) and a lane
  // mask, so that no load reads past the end of the caller's data.
  F tail_[step];
  I valid_[4];

  static V load(const F* q) noexcept {
    V v;
    __builtin_memcpy(&v, q, sizeof v);
    return v;
  }
  V abs(V x) const noexcept { return reinterpret_cast<V>(reinterpret_cast<I>(x) & abs_mask_); }
  // All ones in the lanes holding a finite value: an integer compare of the magnitude's bits
  // with those of infinity (the bits of a NaN are above).
  I finite_mask(V x) const noexcept { return (reinterpret_cast<I>(x) & abs_mask_) < inf_bits_; }
  static V keep(V x, I mask) noexcept { return reinterpret_cast<V>(reinterpret_cast<I>(x) & mask); }
  static V select(I mask, V a, V b) noexcept {  // bit masks: `?:` on a mask may be scalarized
    return reinterpret_cast<V>((mask & reinterpret_cast<I>(a)) | (~mask & reinterpret_cast<I>(b)));
  }
  static V min(V a, V b) noexcept { return a < b ? a : b; }
  static V max(V a, V b) noexcept { return a > b ? a : b; }

  void scan(V* lo_out, V* hi_out, V* amin_out, I* negative_out, I* nonfinite_out) const noexcept {
    V lo = inf_, hi = -inf_, amin = inf_;
    I negative{}, nonfinite{};
    for (size_t i = 0; i < main_; i += step) {
      const F* q = p_ + i;
      const V x0 = load(q), x1 = load(q + L), x2 = load(q + 2 * L), x3 = load(q + 3 * L);
      // Trees keep the loop-carried chains one operation long.
      lo = min(lo, min(min(x0, x1), min(x2, x3)));
      hi = max(hi, max(max(x0, x1), max(x2, x3)));
      amin = min(amin, min(min(abs(x0), abs(x1)), min(abs(x2), abs(x3))));
      negative -= (reinterpret_cast<I>(x0 < 0) + reinterpret_cast<I>(x1 < 0)) +
                  (reinterpret_cast<I>(x2 < 0) + reinterpret_cast<I>(x3 < 0));
      nonfinite |= ~(finite_mask(x0) & finite_mask(x1) & finite_mask(x2) & finite_mask(x3));
    }
    *lo_out = lo;
    *hi_out = hi;
    *amin_out = amin;
    *negative_out = negative;
    *nonfinite_out = nonfinite;
  }

  // Zeros and subnormals, counted only in blocks whose smallest magnitude says there are some.
  PROBE_NOINLINE void count_small(block_result<F>& r) const noexcept {
    I zero{}, small{};
    for (size_t i = 0; i < main_; i += L) {
      const V a = abs(load(p_ + i));
      zero -= reinterpret_cast<I>(a == 0);
      small -= reinterpret_cast<I>(a < min_normal_);
    }
    for (size_t l = 0; l < L; ++l) {
      r.zero += static_cast<int64_t>(zero[l]);
      r.small += static_cast<int64_t>(small[l]);
    }
  }

  // Full classification: for blocks holding NaN or infinity, and for the tail.
  struct classes {
    V sum{}, lo = V{} + limits<F>::max * 2, hi = V{} - limits<F>::max * 2;
    I finite{}, zero{}, small{}, negative{}, pos_inf{}, neg_inf{};
  };
  void classify(classes& s, V x, I use) const noexcept {
    const V a = abs(x);
    const I fin = finite_mask(x) & use;
    s.sum += keep(x, fin);
    s.lo = min(s.lo, select(fin, x, inf_));
    s.hi = max(s.hi, select(fin, x, -inf_));
    s.finite -= fin;
    s.zero -= reinterpret_cast<I>(a == 0);
    s.small -= reinterpret_cast<I>(a < min_normal_);
    s.negative -= reinterpret_cast<I>(x < 0) & fin;
    const I b = reinterpret_cast<I>(x);
    s.pos_inf -= (b == inf_bits_) & use;
    s.neg_inf -= (b == (inf_bits_ | ~abs_mask_)) & use;
  }
  void classify_tail(classes& s) const noexcept {
    for (size_t u = 0; u < 4; ++u) classify(s, load(tail_ + u * L), valid_[u]);
  }
  static void reduce(const classes& s, int64_t extra_finite, block_result<F>& r) noexcept {
    r.finite = extra_finite;
    for (size_t l = 0; l < L; ++l) {
      r.finite += static_cast<int64_t>(s.finite[l]);
      r.zero += static_cast<int64_t>(s.zero[l]);
      r.small += static_cast<int64_t>(s.small[l]);
      r.negative += static_cast<int64_t>(s.negative[l]);
      r.pos_inf += static_cast<int64_t>(s.pos_inf[l]);
      r.neg_inf += static_cast<int64_t>(s.neg_inf[l]);
      if (s.lo[l] < r.min) r.min = s.lo[l];
      if (s.hi[l] > r.max) r.max = s.hi[l];
    }
  }

  // Pass 2: S1 = sum(x - c), S2 = sum((x - c)^2) over the finite values (unmasked: the caller
  // knows the main part has no NaN or infinity).
  template <bool Masked>
  PROBE_NOINLINE void deviations(F c, long double* S1, long double* S2) const noexcept {
    const V vc = V{} + c;
    double w1[L] = {}, w2[L] = {};
    V s1{}, s2{};
    auto fold = [&] {
      for (size_t l = 0; l < L; ++l) {
        w1[l] += static_cast<double>(s1[l]);
        w2[l] += static_cast<double>(s2[l]);
      }
      s1 = s2 = V{};
    };
    size_t since_fold = 0;
    for (size_t i = 0; i < main_; i += step) {
      const F* q = p_ + i;
      if (next_) __builtin_prefetch(next_ + i);  // overlap the next block's load with this pass
      const V x0 = load(q), x1 = load(q + L), x2 = load(q + 2 * L), x3 = load(q + 3 * L);
      V d0 = x0 - vc, d1 = x1 - vc, d2 = x2 - vc, d3 = x3 - vc;
      if (Masked) {
        d0 = keep(d0, finite_mask(x0));
        d1 = keep(d1, finite_mask(x1));
        d2 = keep(d2, finite_mask(x2));
        d3 = keep(d3, finite_mask(x3));
      }
      s1 += (d0 + d1) + (d2 + d3);
      s2 += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
      if (++since_fold == fold_every) {
        fold();
        since_fold = 0;
      }
    }
    for (size_t u = 0; u < 4; ++u) {
      const V x = load(tail_ + u * L);
      const V d = keep(x - vc, finite_mask(x) & valid_[u]);
      s1 += d;
      s2 += d * d;
    }
    fold();
    long double t1 = 0, t2 = 0;
    for (size_t l = 0; l < L; ++l) {
      t1 += static_cast<long double>(w1[l]);
      t2 += static_cast<long double>(w2[l]);
    }
    *S1 = t1;
    *S2 = t2;
  }

  // Moments around c; false when they overflowed.
  template <bool Masked>
  bool moments(F c, block_result<F>& r) const noexcept {
    long double S1, S2;
    deviations<Masked>(c, &S1, &S2);
    if (!is_finite(S1) || !is_finite(S2) || !is_finite(c)) return false;
    const long double k = static_cast<long double>(r.finite);
    if (S1 * S1 / k > S2 / 2) {
      // The centre was far from the mean: once more around the block's own mean.
      const F better = static_cast<F>(static_cast<long double>(c) + S1 / k);
      long double T1, T2;
      if (is_finite(better) && better != c) {
        deviations<Masked>(better, &T1, &T2);
        if (is_finite(T1) && is_finite(T2)) {
          c = better;
          S1 = T1;
          S2 = T2;
        }
      }
    }
    r.centre = c;
    r.offset = S1 / k;
    const long double m2 = S2 - S1 * S1 / k;
    r.m2 = m2 > 0 ? m2 : 0;
    return true;
  }
};

#endif  // PROBE_STATS_SIMD

// One block of at most a few thousand values; `hint` is a centre near the expected mean
// (NaN when there is none yet); `next` is where the data continues (null if it does not).
template <class F>
inline void block(const F* p, size_t n, F min_normal, F hint, const F* next,
                  block_result<F>& r) noexcept {
#if PROBE_STATS_SIMD
  const block_kernel<F> k(p, n, min_normal, next);
  k.run(hint, r);
#else
  (void)hint;
  (void)next;
  block_scalar(p, n, min_normal, r);
#endif
}

// Running totals over blocks: counts, extrema, and Chan's pairwise combination of
// (n, mean, M2), which never subtracts two large sums. Means are kept relative to the first
// block's centre, so that a large common offset costs no precision.
struct totals {
  int64_t finite = 0, zero = 0, small = 0, negative = 0, pos_inf = 0, neg_inf = 0;
  double min = 0, max = 0;
  long double shift = 0, mean = 0, m2 = 0;  // the mean is shift + mean

  // The current mean as a centre for the next block (NaN before the first finite value).
  template <class F>
  F hint() const noexcept {
    return finite ? static_cast<F>(shift + mean) : static_cast<F>(__builtin_nan(""));
  }

  template <class F>
  void add(const block_result<F>& b) noexcept {
    if (b.finite) {
      if (!finite) {
        min = static_cast<double>(b.min);
        max = static_cast<double>(b.max);
        shift = static_cast<long double>(b.centre);
      }
      if (static_cast<double>(b.min) < min) min = static_cast<double>(b.min);
      if (static_cast<double>(b.max) > max) max = static_cast<double>(b.max);
      const long double na = static_cast<long double>(finite);
      const long double nb = static_cast<long double>(b.finite);
      const long double delta = (static_cast<long double>(b.centre) - shift) + b.offset - mean;
      mean += delta * (nb / (na + nb));
      m2 += b.m2 + delta * delta * (na * nb / (na + nb));
    }
    finite += b.finite;
    zero += b.zero;
    small += b.small;
    negative += b.negative;
    pos_inf += b.pos_inf;
    neg_inf += b.neg_inf;
  }
};

}  // namespace stats
}  // namespace detail
PROBE_END_NAMESPACE
