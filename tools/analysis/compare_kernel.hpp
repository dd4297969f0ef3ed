// The fused per-element pass of `probe compare`: one walk over a block of paired values
// computes every metric at once (sums, maxima, failures, ULP distance, error histogram).
//
// Values arrive converted to T (float when both dtypes fit float exactly, else double). A
// block of all-finite pairs takes a branch-free loop the compiler vectorizes; a block with
// any NaN/Inf (or an overflowing difference) is redone element by element. Indices (first
// and worst failing element) are found by rescanning a block only when it holds a new one.
// Standalone header, plain inline.
#pragma once
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <limits>
#include <vector>

#include "compare_types.hpp"
#include "compare_kernel_avx2.hpp"
#include "compare_kernel_sse2.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_impl {

// What a run of consecutive positions contributes; merged in position order.
struct partial {
  int64_t count = 0, finite = 0;
  double sum_e = 0, sum_e2 = 0, sum_aa = 0, sum_bb = 0, sum_rel = 0;
  double max_e = 0, min_e = std::numeric_limits<double>::infinity();
  double max_rel = 0;
  double max_q = 0;  // max |a-b|/|b|: the rtol that passes with atol = 0 (+inf: none does)
  double worst_ratio = 0;
  uint64_t max_ulp = 0;
  int64_t fail = 0, nan_mismatch = 0, inf_mismatch = 0;
  int64_t first_fail = -1, worst_fail = -1;
  error_histogram abs_hist, rel_hist;
  std::string error;  // a read error: the comparison is void

  void merge(const partial& o) {
    count += o.count;
    finite += o.finite;
    sum_e += o.sum_e;
    sum_e2 += o.sum_e2;
    sum_aa += o.sum_aa;
    sum_bb += o.sum_bb;
    sum_rel += o.sum_rel;
    if (o.max_e > max_e) max_e = o.max_e;
    if (o.min_e < min_e) min_e = o.min_e;
    if (o.max_rel > max_rel) max_rel = o.max_rel;
    if (o.max_q > max_q) max_q = o.max_q;
    if (o.max_ulp > max_ulp) max_ulp = o.max_ulp;
    fail += o.fail;
    nan_mismatch += o.nan_mismatch;
    inf_mismatch += o.inf_mismatch;
    if (first_fail < 0) first_fail = o.first_fail;
    if (o.worst_fail >= 0 && (worst_fail < 0 || o.worst_ratio > worst_ratio)) worst_fail = o.worst_fail;
    if (o.worst_ratio > worst_ratio) worst_ratio = o.worst_ratio;
    abs_hist.merge(o.abs_hist);
    rel_hist.merge(o.rel_hist);
    if (error.empty()) error = o.error;
  }
};

// Two interleaved copies of the fine histogram: consecutive equal errors (all zeros, say)
// then alternate between copies instead of waiting on the previous increment's store.
class hist_workspace {
 public:
  hist_workspace() : h_(2 * static_cast<size_t>(error_histogram::bins), 0) {}

  // lo: the smallest nonzero error among e (+inf if none), hi: the largest; bin 0 (zero)
  // is always flushed, so all-zero blocks leave the rest of the range untouched.
  void add(const float* e, size_t n, float lo, float hi) {
    uint32_t* h0 = h_.data();
    uint32_t* h1 = h0 + error_histogram::bins;
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
      ++h0[error_histogram::bin_of(e[i])];
      ++h1[error_histogram::bin_of(e[i + 1])];
    }
    if (i < n) ++h0[error_histogram::bin_of(e[i])];
    if (!(hi > 0)) return;
    const int blo = error_histogram::bin_of(lo < hi ? lo : hi), bhi = error_histogram::bin_of(hi);
    if (blo < lo_) lo_ = blo;
    if (bhi > hi_) hi_ = bhi;
  }
  // Moves the counts into *out and clears what was touched.
  void flush(error_histogram* out) {
    uint32_t* h0 = h_.data();
    uint32_t* h1 = h0 + error_histogram::bins;
    const uint64_t zeros = uint64_t{h0[0]} + h1[0];
    h0[0] = h1[0] = 0;
    if (zeros) {
      error_histogram z;
      z.counts.assign(1, zeros);
      out->merge(z);
    }
    if (hi_ < lo_) return;
    const int lo = lo_ > 1 ? lo_ : 1;
    error_histogram part;
    part.first = static_cast<uint32_t>(lo);
    part.counts.assign(static_cast<size_t>(hi_ - lo + 1), 0);
    for (int b = lo; b <= hi_; ++b) {
      part.counts[static_cast<size_t>(b - lo)] = uint64_t{h0[b]} + h1[b];
      h0[b] = h1[b] = 0;
    }
    out->merge(part);
    lo_ = error_histogram::bins;
    hi_ = -1;
  }

 private:
  std::vector<uint32_t> h_;
  int lo_ = error_histogram::bins, hi_ = -1;
};

template <class T, ulp_mode U>
inline uint64_t ulp_of(T x, T y, const int32_t* oa, const int32_t* ob, size_t i) {
  if constexpr (U == ulp_mode::f32_bits || U == ulp_mode::f32_round)
    return distance_ordered(ordered(bits32(static_cast<float>(x))), ordered(bits32(static_cast<float>(y))));
  else if constexpr (U == ulp_mode::f64_bits)
    return ulp_distance_f64(static_cast<double>(x), static_cast<double>(y));
  else if constexpr (U == ulp_mode::staged)
    return distance_ordered(oa[i], ob[i]);
  else
    return 0;
}

// One element judged in double precision: the path for blocks holding NaN, Inf or overflow.
template <class T, ulp_mode U>
inline void slow_element(T tx, T ty, const int32_t* oa, const int32_t* ob, size_t i, int64_t index,
                         const kernel_settings& s, partial& p, float* ebuf, float* rbuf, size_t* ne, float* elo, float* ehi) {
  const double x = static_cast<double>(tx), y = static_cast<double>(ty);
  if (std::isfinite(x) && std::isfinite(y)) {
    const double e = std::fabs(x - y), ay = std::fabs(y);
    const double tol = s.atol + s.rtol * ay;
    const double q = e / ay, rel = e / (ay > s.rel_floor ? ay : s.rel_floor), ratio = e / tol;
    p.finite += 1;
    p.sum_e += e;
    p.sum_e2 += e * e;
    p.sum_aa += x * x;
    p.sum_bb += y * y;
    p.sum_rel += rel;
    if (e > p.max_e) p.max_e = e;
    if (e < p.min_e) p.min_e = e;
    if (rel > p.max_rel) p.max_rel = rel;
    if (q > p.max_q) p.max_q = q;
    const uint64_t u = ulp_of<T, U>(tx, ty, oa, ob, i);
    if (u > p.max_ulp) p.max_ulp = u;
    if (e > tol) {
      p.fail += 1;
      if (p.first_fail < 0) p.first_fail = index;
      if (p.worst_fail < 0 || ratio > p.worst_ratio) p.worst_fail = index;
    }
    if (ratio > p.worst_ratio) p.worst_ratio = ratio;
    const float fe = static_cast<float>(e);
    ebuf[*ne] = fe;
    if (rbuf) rbuf[*ne] = static_cast<float>(rel);
    if (fe > 0 && fe < *elo) *elo = fe;
    if (fe > *ehi) *ehi = fe;
    ++*ne;
    return;
  }
  bool ok;
  if (std::isnan(x) || std::isnan(y)) {
    ok = std::isnan(x) && std::isnan(y) && s.equal_nan;
    if (!ok) p.nan_mismatch += 1;
  } else {
    ok = s.inf_equal && x == y;
    if (!ok) p.inf_mismatch += 1;
  }
  if (ok) return;
  p.fail += 1;
  if (p.first_fail < 0) p.first_fail = index;
  const double inf = std::numeric_limits<double>::infinity();
  if (p.worst_ratio < inf || p.worst_fail < 0) {
    if (p.worst_ratio < inf) p.worst_fail = index;
    p.worst_ratio = inf;
  }
}

// The portable fast pass: false when some value is not finite (or a difference overflows),
// and the block must take slow_element. ebuf/rbuf receive |a-b| and the relative errors.
template <class T, ulp_mode U>
inline bool fast_pass_scalar(const T* a, const T* b, const int32_t* oa, const int32_t* ob, size_t n,
                             const kernel_settings& s, block_sums& r, float* ebuf, float* rbuf) {
  const T atol = static_cast<T>(s.atol), rtol = static_cast<T>(s.rtol), floor = static_cast<T>(s.rel_floor);
  const T big = std::numeric_limits<T>::max();
  T mx = 0, mn = std::numeric_limits<T>::infinity(), mnz = mn, mrel = 0, mq = 0, mratio = 0;
  int nonfinite = 0;
  for (size_t i = 0; i < n; ++i) {
    const T x = a[i], y = b[i];
    const T e = std::fabs(x - y), ay = std::fabs(y);
    nonfinite |= !(e <= big);
    const T tol = atol + rtol * ay;
    r.fails += e > tol;
    const T q = e / ay;
    mq = q > mq ? q : mq;
    const T rel = e / (ay > floor ? ay : floor);
    mrel = rel > mrel ? rel : mrel;
    const T ratio = e / tol;
    mratio = ratio > mratio ? ratio : mratio;
    mx = e > mx ? e : mx;
    mn = e < mn ? e : mn;
    mnz = e > 0 && e < mnz ? e : mnz;
    r.se += static_cast<double>(e);
    r.se2 += static_cast<double>(e) * static_cast<double>(e);
    r.saa += static_cast<double>(x) * static_cast<double>(x);
    r.sbb += static_cast<double>(y) * static_cast<double>(y);
    r.srel += static_cast<double>(rel);
    ebuf[i] = static_cast<float>(e);
    rbuf[i] = static_cast<float>(rel);
    if constexpr (U != ulp_mode::none) {
      const uint64_t u = ulp_of<T, U>(x, y, oa, ob, i);
      r.mulp = u > r.mulp ? u : r.mulp;
    }
  }
  r.mx = mx, r.mn = mn, r.mnz = mnz, r.mrel = mrel, r.mq = mq, r.mratio = mratio;
  return !nonfinite;
}

// Folds the sums of a tail block into r.
inline void add_tail(block_sums& r, const block_sums& t) {
  r.se += t.se, r.se2 += t.se2, r.saa += t.saa, r.sbb += t.sbb, r.srel += t.srel;
  r.mx = t.mx > r.mx ? t.mx : r.mx;
  r.mn = t.mn < r.mn ? t.mn : r.mn;
  r.mnz = t.mnz < r.mnz ? t.mnz : r.mnz;
  r.mrel = t.mrel > r.mrel ? t.mrel : r.mrel;
  r.mq = t.mq > r.mq ? t.mq : r.mq;
  r.mratio = t.mratio > r.mratio ? t.mratio : r.mratio;
  r.fails += t.fails;
  r.mulp = t.mulp > r.mulp ? t.mulp : r.mulp;
}

template <class T, ulp_mode U>
inline bool fast_pass(const T* a, const T* b, const int32_t* oa, const int32_t* ob, size_t n,
                      const kernel_settings& s, block_sums& r, float* ebuf, float* rbuf) {
#if PROBE_COMPARE_SSE2 || PROBE_COMPARE_AVX2
  if constexpr (sizeof(T) == 4 && U != ulp_mode::f64_bits && U != ulp_mode::f32_round) {
    if (simd_limit > 0) {
      size_t done = 0;
#if PROBE_COMPARE_AVX2
      if (simd_limit > 1 && cpu_has_avx2()) {
        done = n & ~size_t{7};
        if (done && !fast_pass_avx2<U>(a, b, oa, ob, done, s, r, ebuf, rbuf)) return false;
      }
#endif
#if PROBE_COMPARE_SSE2
      if (done == 0) {
        done = n & ~size_t{3};
        if (done && !fast_pass_sse2<U>(a, b, oa, ob, done, s, r, ebuf, rbuf)) return false;
      }
#endif
      if (done == n) return true;
      block_sums tail;
      if (!fast_pass_scalar<T, U>(a + done, b + done, oa ? oa + done : nullptr, ob ? ob + done : nullptr, n - done, s,
                                  tail, ebuf + done, rbuf + done))
        return false;
      if (done == 0) r = tail;
      else add_tail(r, tail);
      return true;
    }
  }
#endif
  return fast_pass_scalar<T, U>(a, b, oa, ob, n, s, r, ebuf, rbuf);
}

// Judges n <= block pairs at flat positions base, base+1, ...
template <class T, ulp_mode U>
inline void run_block(const T* a, const T* b, const int32_t* oa, const int32_t* ob, size_t n, int64_t base,
                      const kernel_settings& s, partial& p, hist_workspace& ha, hist_workspace* hr) {
  float ebuf[block], rbuf[block];
  block_sums r;
  if (!fast_pass<T, U>(a, b, oa, ob, n, s, r, ebuf, rbuf)) {
    size_t ne = 0;
    float elo = std::numeric_limits<float>::infinity(), ehi = 0;
    for (size_t i = 0; i < n; ++i)
      slow_element<T, U>(a[i], b[i], oa, ob, i, base + static_cast<int64_t>(i), s, p, ebuf, hr ? rbuf : nullptr, &ne,
                         &elo, &ehi);
    p.count += static_cast<int64_t>(n);
    if (ne) {
      ha.add(ebuf, ne, elo, ehi);
      if (hr) hr->add(rbuf, ne, 0, static_cast<float>(p.max_rel));
    }
    return;
  }
  p.count += static_cast<int64_t>(n);
  p.finite += static_cast<int64_t>(n);
  p.sum_e += r.se;
  p.sum_e2 += r.se2;
  p.sum_aa += r.saa;
  p.sum_bb += r.sbb;
  p.sum_rel += r.srel;
  if (r.mx > p.max_e) p.max_e = r.mx;
  if (r.mn < p.min_e) p.min_e = r.mn;
  if (r.mrel > p.max_rel) p.max_rel = r.mrel;
  if (r.mq > p.max_q) p.max_q = r.mq;
  if (r.mulp > p.max_ulp) p.max_ulp = r.mulp;
  if (r.fails && (p.first_fail < 0 || r.mratio > p.worst_ratio)) {
    // this block holds the first failing element or a new worst one: find them
    const T atol = static_cast<T>(s.atol), rtol = static_cast<T>(s.rtol);
    int64_t first = -1, worst = -1;
    T best = 0;
    for (size_t i = 0; i < n; ++i) {
      const T e = std::fabs(a[i] - b[i]), tol = atol + rtol * std::fabs(b[i]);
      if (!(e > tol)) continue;
      if (first < 0) first = static_cast<int64_t>(i);
      const T ratio = e / tol;
      if (worst < 0 || ratio > best) {
        worst = static_cast<int64_t>(i);
        best = ratio;
      }
    }
    if (p.first_fail < 0 && first >= 0) p.first_fail = base + first;
    if (worst >= 0 && (p.worst_fail < 0 || r.mratio > p.worst_ratio)) p.worst_fail = base + worst;
  }
  p.fail += r.fails;
  if (r.mratio > p.worst_ratio) p.worst_ratio = r.mratio;
  ha.add(ebuf, n, static_cast<float>(r.mnz), static_cast<float>(r.mx));
  if (hr) hr->add(rbuf, n, 0, static_cast<float>(r.mrel));
}

}  // namespace compare_impl
}  // namespace analysis
PROBE_END_NAMESPACE
