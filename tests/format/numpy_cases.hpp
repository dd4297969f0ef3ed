// Random tensors of every dtype, shape and layout for comparing probe's tensor text with
// numpy's (tests/format/numpy_str_check.py), and the float -> 16-bit conversions they need.
#pragma once
#include <probe/probe.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace probe_test {

struct rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

// Round to nearest even, the way numpy's astype(float16) does.
inline uint16_t float_to_f16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000u) return sign | 0x7c00;  // 65520 and up round to inf
  if (x < 0x38800000u) {                       // below 2^-14: a subnormal half
    float a;
    std::memcpy(&a, &x, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  const uint32_t mant = x & 0x7fffff;
  uint32_t h = ((((x >> 23) - 127 + 15)) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}
inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

// A value drawn from one of several scenarios: integers, [0,1), one scale, many scales,
// short decimals, and specials mixed in.
inline double draw(rng& r, int scenario, int scale) {
  const double sign = r.below(3) == 0 ? -1 : 1;
  switch (scenario) {
    case 0: return sign * r.below(100);
    case 1: return r.uniform();
    case 2: return sign * (0.5 + r.uniform()) * std::pow(10.0, scale);
    case 3: return sign * r.uniform() * std::pow(10.0, r.below(20) - 8);
    case 4: return sign * r.below(1000) / (r.below(2) ? 10.0 : 8.0);
    default: {
      const int k = r.below(10);
      if (k == 0) return NAN;
      if (k == 1) return HUGE_VAL;
      if (k == 2) return -HUGE_VAL;
      if (k == 3) return -0.0;
      return sign * (0.5 + r.uniform()) * std::pow(10.0, scale);
    }
  }
}

inline void store(unsigned char* p, probe::dtype t, double v, rng& r) {
  using probe::dtype;
  switch (t) {
    case dtype::boolean: *p = static_cast<unsigned char>(r.below(2)); break;
    case dtype::int8: { int8_t x = static_cast<int8_t>(r.next()); if (r.below(2)) x = static_cast<int8_t>(x % 10); *p = static_cast<unsigned char>(x); break; }
    case dtype::int16: { int16_t x = static_cast<int16_t>(std::fmod(v, 32768)); std::memcpy(p, &x, 2); break; }
    case dtype::int32: { int32_t x = static_cast<int32_t>(r.below(2) ? static_cast<int64_t>(r.next()) : static_cast<int64_t>(v)); std::memcpy(p, &x, 4); break; }
    case dtype::int64: { int64_t x = r.below(2) ? static_cast<int64_t>(r.next()) : static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
    case dtype::uint8: *p = static_cast<unsigned char>(r.next()); break;
    case dtype::uint16: { uint16_t x = static_cast<uint16_t>(r.next() % 1000); std::memcpy(p, &x, 2); break; }
    case dtype::uint32: { uint32_t x = static_cast<uint32_t>(r.next()); std::memcpy(p, &x, 4); break; }
    case dtype::uint64: { uint64_t x = r.below(2) ? r.next() : r.next() % 100; std::memcpy(p, &x, 8); break; }
    case dtype::float16: { uint16_t b = float_to_f16_bits(static_cast<float>(v)); std::memcpy(p, &b, 2); break; }
    case dtype::bfloat16: { uint16_t b = float_to_bf16_bits(static_cast<float>(v)); std::memcpy(p, &b, 2); break; }
    case dtype::float32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
    case dtype::float64: std::memcpy(p, &v, 8); break;
    case dtype::complex64: { float x[2] = {static_cast<float>(v), static_cast<float>(r.below(4) ? v * r.uniform() : 0.0)}; std::memcpy(p, x, 8); break; }
    case dtype::complex128: { double x[2] = {v, r.below(4) ? -v * r.uniform() : 0.0}; std::memcpy(p, x, 16); break; }
    default: break;
  }
}

struct layout_case {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // elements
  int64_t offset = 0;            // elements from the buffer start to element [0,...]
  int64_t buffer_elements = 0;
};

// Contiguous, or (when asked) a transposed, stepped or reversed view over a larger buffer.
inline layout_case make_layout(const std::vector<int64_t>& shape, int kind) {
  layout_case c;
  c.shape = shape;
  const int nd = static_cast<int>(shape.size());
  c.strides.assign(shape.size(), 0);
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d) {
    const int64_t step = (kind == 1 && d == nd - 1) ? 2 : 1;  // every other element
    c.strides[d] = s * step;
    s *= (shape[d] ? shape[d] : 1) * step;
  }
  c.buffer_elements = s;
  if (kind == 2 && nd >= 2) {  // transposed: first axis fastest
    int64_t t = 1;
    for (int d = 0; d < nd; ++d) {
      c.strides[d] = t;
      t *= shape[d] ? shape[d] : 1;
    }
  }
  if (kind == 3 && nd >= 1 && shape[nd - 1] > 0) {  // last axis reversed
    c.offset = (shape[nd - 1] - 1) * c.strides[nd - 1];
    c.strides[nd - 1] = -c.strides[nd - 1];
  }
  return c;
}

}  // namespace probe_test
