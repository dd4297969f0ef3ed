// Health statistics (stats.hpp): definitions.
#pragma once
#include "half.hpp"
#include "stats.hpp"
#include "stats_kernel.hpp"

PROBE_BEGIN_NAMESPACE

namespace detail {
namespace stats {

// A view reduced to its fewest dimensions, in the order that walks memory forwards: the
// statistics do not depend on the order of the values, so negative strides are flipped,
// dimensions are sorted by stride (largest outside), size-1 dimensions dropped, and
// dimensions laid out back to back merged. Strides in bytes. A 0-d view is one element.
struct layout {
  const char* base = nullptr;
  int ndim = 0;
  int64_t shape[max_dims + 1] = {};
  int64_t stride[max_dims + 1] = {};
};

inline layout collapse(const char* base, const int64_t* shape, const int64_t* strides, int ndim,
                       int64_t item) noexcept {
  int64_t sh[max_dims + 1], st[max_dims + 1];
  int n = 0;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 1) continue;
    int64_t s = strides[i] * item;
    if (s < 0) {
      base += (shape[i] - 1) * s;
      s = -s;
    }
    // Insertion by decreasing stride; equal strides keep their order.
    int j = n++;
    for (; j > 0 && st[j - 1] < s; --j) {
      sh[j] = sh[j - 1];
      st[j] = st[j - 1];
    }
    sh[j] = shape[i];
    st[j] = s;
  }
  layout c;
  c.base = base;
  for (int i = 0; i < n; ++i) {
    if (c.ndim > 0 && c.stride[c.ndim - 1] == st[i] * sh[i]) {
      c.shape[c.ndim - 1] *= sh[i];
      c.stride[c.ndim - 1] = st[i];
    } else {
      c.shape[c.ndim] = sh[i];
      c.stride[c.ndim] = st[i];
      ++c.ndim;
    }
  }
  if (c.ndim == 0) {
    c.ndim = 1;
    c.shape[0] = 1;
    c.stride[0] = item;
  }
  return c;
}

// Element converters: `k` elements from p (stride in bytes) into dst. Dense runs go through
// fixed-size chunks that compilers vectorize.
template <class S, class F>
inline void convert_plain(const char* p, int64_t stride, size_t k, F* dst) noexcept {
  size_t i = 0;
  if (stride == static_cast<int64_t>(sizeof(S))) {
    for (; i + 16 <= k; i += 16) {
      S chunk[16];
      __builtin_memcpy(chunk, p + i * sizeof(S), sizeof chunk);
      F* __restrict out = dst + i;
      for (size_t j = 0; j < 16; ++j) out[j] = static_cast<F>(chunk[j]);
    }
  }
  for (; i < k; ++i) {
    S s;
    __builtin_memcpy(&s, p + static_cast<int64_t>(i) * stride, sizeof s);
    dst[i] = static_cast<F>(s);
  }
}
inline void convert_bool(const char* p, int64_t stride, size_t k, float* dst) noexcept {
  for (size_t i = 0; i < k; ++i) dst[i] = p[static_cast<int64_t>(i) * stride] != 0 ? 1.0f : 0.0f;
}
#if PROBE_STATS_SIMD
typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));
typedef float f32x4 __attribute__((vector_size(16)));
// half_bits_to_float (half.hpp) on four values held in the low halves of the lanes. Selects
// are written as masks: SSE2 has no blend, and compilers scalarize `?:` on masks.
inline u32x4 half_lanes_to_float_bits(u32x4 x) noexcept {
  const u32x4 magnitude = x & 0x7fffu;
  const u32x4 exponent = magnitude & 0x7c00u;
  u32x4 bits = (magnitude << 13) + ((127u - 15u) << 23);
  const u32x4 special = reinterpret_cast<u32x4>(exponent == 0x7c00u), tiny = reinterpret_cast<u32x4>(exponent == 0);
  bits = (special & ((magnitude << 13) | 0x7f800000u)) | (~special & bits);
  const f32x4 sub = __builtin_convertvector(reinterpret_cast<i32x4>(magnitude), f32x4) * 0x1p-24f;
  bits = (tiny & reinterpret_cast<u32x4>(sub)) | (~tiny & bits);
  return bits | ((x & 0x8000u) << 16);
}
#endif

// float16 (Brain = false) or bfloat16 (true) to float. Dense runs are converted eight at a
// time, even-indexed elements first: the statistics do not depend on the order.
template <bool Brain>
inline void convert_half(const char* p, int64_t stride, size_t k, float* dst) noexcept {
  size_t i = 0;
#if PROBE_STATS_SIMD
  if (stride == 2) {
    for (; i + 8 <= k; i += 8) {
      u32x4 w;
      __builtin_memcpy(&w, p + 2 * i, sizeof w);
      const u32x4 lo = Brain ? w << 16 : half_lanes_to_float_bits(w & 0xffffu);
      const u32x4 hi = Brain ? (w >> 16) << 16 : half_lanes_to_float_bits(w >> 16);
      __builtin_memcpy(dst + i, &lo, sizeof lo);
      __builtin_memcpy(dst + i + 4, &hi, sizeof hi);
    }
  }
#endif
  for (; i < k; ++i) {
    uint16_t b;
    __builtin_memcpy(&b, p + static_cast<int64_t>(i) * stride, 2);
    dst[i] = Brain ? bfloat16_bits_to_float(b) : half_bits_to_float(b);
  }
}

// Blocks of 16 KiB: two passes over one stay in L1.
template <class F>
constexpr size_t block_values = 16384 / sizeof(F);

// Walks a layout in row-major order, converting into a block buffer and feeding full
// blocks to the kernel; contiguous data of the kernel's own type is read in place.
// (A converter is called once per run of values, so a function pointer costs nothing and
// keeps the instantiations, and the include's compile time, down to one walker per type.)
template <class F>
inline void run(const layout& c, bool native, void (*convert)(const char*, int64_t, size_t, F*),
                F min_normal, totals& t) noexcept {
  constexpr size_t B = block_values<F>;
  const int last = c.ndim - 1;
  if (native && c.ndim == 1 && c.stride[0] == static_cast<int64_t>(sizeof(F))) {
    const F* p = reinterpret_cast<const F*>(c.base);
    const size_t n = static_cast<size_t>(c.shape[0]);
    for (size_t i = 0; i < n; i += B) {
      block_result<F> r;
      const size_t k = n - i < B ? n - i : B;
      block(p + i, k, min_normal, t.hint<F>(), i + k < n ? p + i + k : nullptr, r);
      t.add(r);
    }
    return;
  }
  F buf[B];
  size_t fill = 0;
  int64_t idx[max_dims + 1] = {};
  for (;;) {
    const char* p = c.base;
    for (int d = 0; d < last; ++d) p += idx[d] * c.stride[d];
    int64_t left = c.shape[last];
    while (left > 0) {
      const size_t k = static_cast<size_t>(left) < B - fill ? static_cast<size_t>(left) : B - fill;
      convert(p, c.stride[last], k, buf + fill);
      fill += k;
      p += static_cast<int64_t>(k) * c.stride[last];
      left -= static_cast<int64_t>(k);
      if (fill == B) {
        // While the kernel works on the buffer, prefetch where this run continues.
        const F* ahead = left > 0 && c.stride[last] > 0 && c.stride[last] <= 16
                             ? reinterpret_cast<const F*>(p)
                             : nullptr;
        block_result<F> r;
        block<F>(buf, B, min_normal, t.hint<F>(), ahead, r);
        t.add(r);
        fill = 0;
      }
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < c.shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
  if (fill) {
    block_result<F> r;
    block<F>(buf, fill, min_normal, t.hint<F>(), nullptr, r);
    t.add(r);
  }
}

}  // namespace stats
}  // namespace detail

PROBE_API health compute_health(const tensor_view& v) noexcept {
  using namespace detail::stats;
  health h;
  h.type = v.type;
  if (!v.valid() || !v.where.is_host()) return h;
  for (int i = 0; i < v.ndim; ++i)
    if (v.shape[i] < 0) return h;
  h.count = v.numel();
  if (h.count > 0 && !v.data) {
    h.count = 0;
    return h;
  }
  h.valid = true;
  if (h.count == 0) return h;

  // Complex tensors are their components: one more dimension of two reals.
  const bool complex = dtype_is_complex(v.type);
  int64_t shape[max_dims + 1], strides[max_dims + 1];
  int nd = v.ndim;
  for (int i = 0; i < nd; ++i) {
    shape[i] = v.shape[i];
    strides[i] = complex ? v.strides[i] * 2 : v.strides[i];
  }
  if (complex) {
    shape[nd] = 2;
    strides[nd] = 1;
    ++nd;
  }
  const int64_t item = static_cast<int64_t>(complex ? v.itemsize() / 2 : v.itemsize());
  const layout c = collapse(static_cast<const char*>(v.data), shape, strides, nd, item);

  totals t;
  const float f_one = 1, f_min = limits<float>::min_normal;
  const double d_one = 1, d_min = limits<double>::min_normal;
  switch (v.type) {
    case dtype::boolean: run<float>(c, false, convert_bool, f_one, t); break;
    case dtype::int8: run<float>(c, false, convert_plain<int8_t, float>, f_one, t); break;
    case dtype::uint8: run<float>(c, false, convert_plain<uint8_t, float>, f_one, t); break;
    case dtype::int16: run<float>(c, false, convert_plain<int16_t, float>, f_one, t); break;
    case dtype::uint16: run<float>(c, false, convert_plain<uint16_t, float>, f_one, t); break;
    case dtype::int32: run<double>(c, false, convert_plain<int32_t, double>, d_one, t); break;
    case dtype::uint32: run<double>(c, false, convert_plain<uint32_t, double>, d_one, t); break;
    case dtype::int64: run<double>(c, false, convert_plain<int64_t, double>, d_one, t); break;
    case dtype::uint64: run<double>(c, false, convert_plain<uint64_t, double>, d_one, t); break;
    case dtype::float16: run<float>(c, false, convert_half<false>, 0x1p-14f, t); break;
    case dtype::bfloat16: run<float>(c, false, convert_half<true>, f_min, t); break;
    case dtype::float32:
    case dtype::complex64: run<float>(c, true, convert_plain<float, float>, f_min, t); break;
    case dtype::float64:
    case dtype::complex128: run<double>(c, true, convert_plain<double, double>, d_min, t); break;
    default: h.valid = false; return h;
  }

  const int64_t values = complex ? 2 * h.count : h.count;
  h.finite = t.finite;
  h.pos_inf = t.pos_inf;
  h.neg_inf = t.neg_inf;
  h.nan = values - t.finite - t.pos_inf - t.neg_inf;
  h.zero = t.zero;
  h.subnormal = t.small - t.zero;
  h.negative = t.negative;
  h.positive = t.finite - t.zero - t.negative;
  if (t.finite) {
    h.min = t.min;
    h.max = t.max;
    h.mean = static_cast<double>(t.shift + t.mean);
    h.std = static_cast<double>(__builtin_sqrtl(t.m2 / static_cast<long double>(t.finite)));
  }
  return h;
}

PROBE_END_NAMESPACE
