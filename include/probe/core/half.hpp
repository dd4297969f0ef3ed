// IEEE binary16 (float16) and bfloat16 <-> float conversions.
//
// Widening is exact (subnormals, infinities and NaN payloads included). Narrowing rounds to
// nearest, ties to even, the way hardware converts: values past the largest finite half
// become infinity, values below half the smallest subnormal become (signed) zero. A NaN stays
// a NaN of the same sign; it is made quiet and keeps the top bits of its payload.
// Light header: no standard library, usable in every build mode.
#pragma once
#include <stdint.h>

#include "../util/config.hpp"
#include "dtype.hpp"

#if !defined(__GNUC__) && !defined(__clang__)
#include <string.h>
#endif

PROBE_BEGIN_NAMESPACE

namespace detail {
inline uint32_t float_bits(float f) noexcept {
  uint32_t u;
#if defined(__GNUC__) || defined(__clang__)
  __builtin_memcpy(&u, &f, sizeof u);
#else
  memcpy(&u, &f, sizeof u);
#endif
  return u;
}
inline float bits_float(uint32_t u) noexcept {
  float f;
#if defined(__GNUC__) || defined(__clang__)
  __builtin_memcpy(&f, &u, sizeof f);
#else
  memcpy(&f, &u, sizeof f);
#endif
  return f;
}
}  // namespace detail

// binary16 bits -> float, exact. Written without branches on the value so that loops over
// arrays vectorize.
inline float half_bits_to_float(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7fffu;
  const uint32_t exponent = magnitude & 0x7c00u;
  // Normal numbers: move exponent and mantissa into place and rebias (15 -> 127).
  uint32_t bits = (magnitude << 13) + ((127u - 15u) << 23);
  // Infinity and NaN: the exponent field becomes all ones; the payload is kept.
  bits = exponent == 0x7c00u ? ((magnitude << 13) | 0x7f800000u) : bits;
  // Zero and subnormals: mantissa * 2^-24 is exact in float.
  const float sub = static_cast<float>(magnitude) * 5.9604644775390625e-8f;  // 2^-24
  bits = exponent == 0 ? detail::float_bits(sub) : bits;
  return detail::bits_float(bits | sign);
}

// float -> binary16 bits, round to nearest even.
inline uint16_t float_to_half_bits(float f) noexcept {
  const uint32_t x = detail::float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) {
    if (a == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);
    // NaN: quiet, same sign, top ten payload bits.
    return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  }
  // 65520 = 65504 + half an ulp: from there on (a tie that rounds to even) it is infinity.
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (a < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal (or zero), counted in units of
    // 2^-24. The float is mantissa * 2^(e - 150); in those units, shift right by 126 - e.
    const uint32_t e = a >> 23;
    const uint32_t shift = 126u - e;  // >= 14 here
    if (shift > 24) return sign;      // below a quarter of the smallest subnormal
    const uint32_t m = (a & 0x7fffffu) | 0x800000u;
    uint32_t q = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (q & 1u))) ++q;  // may carry into 0x400: fine
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias the exponent (127 -> 15), keep ten mantissa bits, round the other 13.
  uint32_t q = (((a >> 23) - 112u) << 10) | ((a >> 13) & 0x3ffu);
  const uint32_t rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (q & 1u))) ++q;  // a carry bumps the exponent
  return static_cast<uint16_t>(sign | q);
}

// bfloat16 is the top half of a float: widening is a shift.
inline float bfloat16_bits_to_float(uint16_t b) noexcept {
  return detail::bits_float(static_cast<uint32_t>(b) << 16);
}

// float -> bfloat16 bits, round to nearest even.
inline uint16_t float_to_bfloat16_bits(float f) noexcept {
  const uint32_t x = detail::float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)  // NaN: quiet, same sign, top payload bits
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  // Adding 0x7fff plus the lowest kept bit rounds to nearest even; overflow reaches infinity.
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// The same on probe's value types (dtype.hpp).
inline float to_float(float16 h) noexcept { return half_bits_to_float(h.bits); }
inline float to_float(bfloat16 b) noexcept { return bfloat16_bits_to_float(b.bits); }
inline float16 to_float16(float f) noexcept { return float16{float_to_half_bits(f)}; }
inline bfloat16 to_bfloat16(float f) noexcept { return bfloat16{float_to_bfloat16_bits(f)}; }

PROBE_END_NAMESPACE
