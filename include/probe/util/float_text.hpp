// Floating-point numbers as text, one implementation for the library and the CLI: the
// shortest decimal that reads back to the same value (double, float, float16, bfloat16),
// fixed-precision text as printf's %f/%e/%g write it, and locale-independent parsing. The
// digits come from <charconv>; this layer adds numpy's layout and the 16-bit formats,
// which the standard has no text for.
//
// Classification reads the bits, not <cmath>: a user's -ffast-math (-ffinite-math-only)
// build would fold isfinite() to true and isnan() to false in the inline code it compiles.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline uint64_t fp_bits(double v) noexcept {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}
inline bool fp_finite(double v) noexcept { return (fp_bits(v) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull; }
inline bool fp_nan(double v) noexcept { return (fp_bits(v) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
inline bool fp_inf(double v) noexcept { return (fp_bits(v) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
inline bool fp_signbit(double v) noexcept { return (fp_bits(v) >> 63) != 0; }
inline double fp_abs(double v) noexcept {
  const uint64_t b = fp_bits(v) & 0x7fffffffffffffffull;
  double r;
  memcpy(&r, &b, sizeof r);
  return r;
}
inline double fp_from_bits(uint64_t b) noexcept {
  double r;
  memcpy(&r, &b, sizeof r);
  return r;
}
inline double fp_huge() noexcept { return fp_from_bits(0x7ff0000000000000ull); }
inline double fp_quiet_nan() noexcept { return fp_from_bits(0x7ff8000000000000ull); }
// 2^e for -1022 <= e <= 1023, exactly.
inline double fp_pow2(int e) noexcept { return fp_from_bits(static_cast<uint64_t>(e + 1023) << 52); }

// A finite value as decimal digits: value = (negative ? -1 : 1) * 0.D1D2...Dcount * 10^point.
// Zero is the single digit '0' with point 1.
struct decimal {
  char digits[24];
  int count = 0;
  int point = 0;
  bool negative = false;
};

// Exact values of the 16-bit float formats. Bit patterns past the largest finite value
// continue the binade (0x7c00 reads as 65536, not inf) so that the shortest search can find
// the upper neighbour of the largest finite value; callers test for inf/nan themselves.
inline double f16_bits_unbounded(uint16_t b) noexcept {
  const int e = (b >> 10) & 0x1f, m = b & 0x3ff;
  const double mag = e == 0 ? m * fp_pow2(-24) : (1024 + m) * fp_pow2(e - 25);
  return (b & 0x8000) ? -mag : mag;
}
inline double bf16_bits_unbounded(uint16_t b) noexcept {
  const int e = (b >> 7) & 0xff, m = b & 0x7f;
  const double mag = e == 0 ? m * fp_pow2(-133) : (128 + m) * fp_pow2(e - 134);
  return (b & 0x8000) ? -mag : mag;
}
inline bool f16_bits_finite(uint16_t b) noexcept { return (b & 0x7c00) != 0x7c00; }
inline bool bf16_bits_finite(uint16_t b) noexcept { return (b & 0x7f80) != 0x7f80; }
inline double f16_bits_to_double(uint16_t b) noexcept {
  if (f16_bits_finite(b)) return f16_bits_unbounded(b);
  if (b & 0x3ff) return fp_quiet_nan();
  return (b & 0x8000) ? -fp_huge() : fp_huge();
}
inline double bf16_bits_to_double(uint16_t b) noexcept {
  const uint32_t w = static_cast<uint32_t>(b) << 16;
  float f;
  memcpy(&f, &w, sizeof f);
  return static_cast<double>(f);
}

// Largest precision fixed_text accepts, and a buffer that holds any result of it.
constexpr int max_text_precision = 200;
constexpr size_t fixed_text_capacity = 320 + max_text_precision + 16;
// A buffer that holds any shortest text.
constexpr size_t shortest_text_capacity = 40;

// Parses a number written in C syntax ("1.5e-3", "-0.25", "inf", "nan"), independent of the
// locale, like std::from_chars (no leading space or '+'). Returns the characters consumed
// (0 if none). Out-of-range values saturate to +-inf or +-0, as strtod does.
PROBE_API size_t parse_double(const char* s, size_t n, double* out) noexcept;

// Text of v with `precision` digits in the style of printf's 'f', 'e' or 'g' (lower case,
// '.' as decimal point). Returns the length written to buf (fixed_text_capacity bytes);
// precision is clamped to [0, max_text_precision].
PROBE_API size_t fixed_text(char* buf, double v, char style, int precision) noexcept;

// The shortest decimal that reads back to exactly v (v finite).
PROBE_API void shortest_decimal(double v, decimal& d) noexcept;
PROBE_API void shortest_decimal(float v, decimal& d) noexcept;
PROBE_API void shortest_decimal_f16(uint16_t bits, decimal& d) noexcept;
PROBE_API void shortest_decimal_bf16(uint16_t bits, decimal& d) noexcept;

// Writes d positionally ("0.001", "12.5", "100.0": at least one digit after the point) or in
// scientific notation ("1e-05", "1.5e+16": no trailing point, exponent of two digits or
// more). Returns the length; buf needs d.count + |d.point| + 8 bytes (at most 360).
PROBE_API size_t write_decimal(char* buf, const decimal& d, bool scientific) noexcept;

// numpy's (and Python's) choice: positional for 1e-4 <= |v| < 1e16 and for zero.
inline bool prefers_scientific(double v) noexcept {
  const double a = fp_abs(v);
  return a != 0 && (a < 1e-4 || a >= 1e16);
}

// "nan", "inf" or "-inf"; returns the length.
PROBE_API size_t write_nonfinite(char* buf, double v) noexcept;

// Shortest round-trip text as numpy prints a scalar (and Python a float): "0.1", "1.0",
// "-0.0", "1e-05", "1.5e+16", "nan", "inf", "-inf". buf needs shortest_text_capacity bytes.
PROBE_API size_t write_shortest(char* buf, double v) noexcept;
PROBE_API size_t write_shortest(char* buf, float v) noexcept;

// printf's "%g" with the fewest significant digits that read back, but never fewer than the
// integer digits of a value below 1e16 ("577.3", "100", "123000", "1e+20", "1.5e-05"): metric
// lines, the timing summary. nan/inf as write_nonfinite.
PROBE_API size_t write_compact(char* buf, double v) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
