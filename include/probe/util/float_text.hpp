// Floating-point numbers as text: the shortest decimal that reads back to the same value
// (for double, float, float16 and bfloat16), fixed-precision text, and locale-independent
// parsing. Shared by probe::format and the JSON writer so both print numbers alike.
//
// Shortest text of double and float comes from shortest_digits.hpp (the digits std::to_chars
// writes, without <charconv>, whose include alone would cost more to compile than all of
// this); the 16-bit formats search with snprintf at increasing precision, checked by strtod.
// Standalone: deferred inline (PROBE_INLINE), no global state, usable in every build mode.
#pragma once
#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.hpp"
#include "int_text.hpp"
#include "shortest_digits.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// A finite value as decimal digits: value = (negative ? -1 : 1) * 0.D1D2...Dcount * 10^point.
// Zero is the single digit '0' with point 1.
struct decimal {
  char digits[24];
  int count = 0;
  int point = 0;
  bool negative = false;
};

// Largest precision fixed_text accepts, and a buffer that holds any result of it.
constexpr int max_text_precision = 200;
constexpr size_t fixed_text_capacity = 320 + max_text_precision + 16;

// Classification without <math.h>, whose C++ wrapper alone costs more to compile than the
// rest of the formatting code.
#if defined(__GNUC__) || defined(__clang__)
PROBE_INLINE bool fp_finite(double v) noexcept { return __builtin_isfinite(v); }
PROBE_INLINE bool fp_nan(double v) noexcept { return __builtin_isnan(v); }
PROBE_INLINE bool fp_inf(double v) noexcept { return __builtin_isinf(v); }
PROBE_INLINE bool fp_signbit(double v) noexcept { return __builtin_signbit(v); }
PROBE_INLINE double fp_abs(double v) noexcept { return __builtin_fabs(v); }
constexpr double fp_huge = __builtin_huge_val();
PROBE_INLINE double fp_quiet_nan() noexcept { return __builtin_nan(""); }
#else
#error "probe needs GCC or Clang builtins for floating-point classification"
#endif

// 2^e for -1022 <= e <= 1023, exactly.
inline double fp_pow2(int e) noexcept {
  const uint64_t bits = static_cast<uint64_t>(e + 1023) << 52;
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

// Exact values of the 16-bit float formats, for text output (core/half.hpp has the public
// conversions, probe::half_to_float and bfloat16_to_float). Bit patterns past the largest
// finite value continue the binade (0x7c00 reads as 65536, not inf) so that callers can find
// the upper neighbour of the largest finite value; callers test for inf/nan themselves.
// Plain inline, not deferred (config.hpp): they are template arguments of shortest_16, and
// GCC does not instantiate a function template named only as a template argument.
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
PROBE_INLINE bool f16_bits_finite(uint16_t b) noexcept { return (b & 0x7c00) != 0x7c00; }
PROBE_INLINE bool bf16_bits_finite(uint16_t b) noexcept { return (b & 0x7f80) != 0x7f80; }
PROBE_INLINE double f16_bits_to_double(uint16_t b) noexcept {
  if (f16_bits_finite(b)) return f16_bits_unbounded(b);
  if (b & 0x3ff) return fp_quiet_nan();
  return (b & 0x8000) ? -fp_huge : fp_huge;
}
PROBE_INLINE double bf16_bits_to_double(uint16_t b) noexcept {
  const uint32_t w = static_cast<uint32_t>(b) << 16;
  float f;
  memcpy(&f, &w, sizeof f);
  return f;
}

// Parses a number written in C syntax ("1.5e-3", "-0.25", "inf"), independent of the
// locale. Returns the characters consumed (0 if none). Out-of-range values saturate to
// +-inf or +-0 as strtod does.
PROBE_INLINE size_t parse_double(const char* s, size_t n, double* out) noexcept {
  // Like std::from_chars: no leading space or '+' (strtod would skip them).
  if (n == 0 || s[0] == '+' || s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r')) return 0;
  // strtod reads the locale's decimal point: give it the locale's character in place of '.',
  // and end the text at a locale point already there (C syntax has none).
  char small[512];
  char* buf = n < sizeof small ? small : static_cast<char*>(malloc(n + 1));
  if (!buf) return 0;
  const char point = *localeconv()->decimal_point;
  size_t len = 0;
  for (; len < n && !(s[len] == point && point != '.'); ++len) buf[len] = s[len] == '.' ? point : s[len];
  buf[len] = 0;
  char* end = nullptr;
  const int saved_errno = errno;  // strtod sets ERANGE; the caller's errno is not ours to change
  *out = strtod(buf, &end);  // out of range: +-HUGE_VAL or +-0 (or a subnormal), as promised
  errno = saved_errno;
  const size_t used = static_cast<size_t>(end - buf);
  if (buf != small) free(buf);
  return used;
}

// Text of v with `precision` digits, in the style of printf's 'f', 'e' or 'g' (lower case,
// '.' as decimal point whatever the locale). Returns the length written to buf, which must
// hold fixed_text_capacity bytes; precision is clamped to [0, max_text_precision].
namespace float_text_impl {
// printf's "%.*f" and "%.*e" for the common cases in integer arithmetic, rounding the exact
// binary value with ties to even as printf does: v = m * 2^e, and m * 10^s < 2^127 fits 128
// bits for s <= 22. snprintf costs ~10x as much, and numpy-style tensor text formats every
// element this way. Each returns 0 where it does not apply (the caller uses snprintf).
using uint128 = shortest_impl::uint128;

// round(m * 2^e * 10^s) for 0 <= s <= 22, when it is below 2^64.
PROBE_INLINE bool round_scaled(uint64_t m, int e, int s, uint64_t* out) noexcept {
  uint128 x = m;
  for (int i = 0; i < s; ++i) x *= 10;
  if (e >= 0) {
    if (e >= 64 || (x >> (64 - e)) != 0) return false;
    *out = static_cast<uint64_t>(x << e);
    return true;
  }
  const int q = -e;
  if (q >= 128) {  // x < 2^127: below one half
    *out = 0;
    return true;
  }
  const uint128 whole = x >> q;
  if (whole >> 64) return false;
  uint64_t r = static_cast<uint64_t>(whole);
  const uint128 rest = x - (whole << q), half = static_cast<uint128>(1) << (q - 1);
  if (rest > half || (rest == half && (r & 1))) {
    if (r == ~uint64_t{0}) return false;
    ++r;
  }
  *out = r;
  return true;
}

// v's sign, and v = m * 2^e with m < 2^53 (m == 0 for zero); false for inf and nan.
PROBE_INLINE bool split_double(double v, bool* negative, uint64_t* m, int* e) noexcept {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  *negative = (bits >> 63) != 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  if (biased == 0x7ff) return false;
  *m = bits & ((uint64_t{1} << 52) - 1);
  *e = -1074;
  if (biased != 0) {
    *m |= uint64_t{1} << 52;
    *e = biased - 1075;
  }
  return true;
}


PROBE_INLINE size_t fixed_f_exact(char* buf, double v, int precision) noexcept {
  bool negative;
  uint64_t m, r;
  int e;
  if (precision > 17 || !split_double(v, &negative, &m, &e) || !round_scaled(m, e, precision, &r)) return 0;
  char digits[24];
  const int n = static_cast<int>(put_uint(digits, r, precision + 1) - digits);  // a digit before the point
  char* p = buf;
  if (negative) *p++ = '-';
  for (int i = 0; i < n; ++i) {
    if (i == n - precision) *p++ = '.';
    *p++ = digits[i];
  }
  *p = 0;
  return static_cast<size_t>(p - buf);
}

PROBE_INLINE size_t fixed_e_exact(char* buf, double v, int precision) noexcept {
  bool negative;
  uint64_t m, r = 0;
  int e;
  if (precision > 17 || !split_double(v, &negative, &m, &e)) return 0;
  uint64_t low = 1;  // 10^precision: r must have precision + 1 digits
  for (int i = 0; i < precision; ++i) low *= 10;
  int exp10 = 0;
  if (m != 0) {
    int bits = 0;
    for (uint64_t t = m; t; t >>= 1) ++bits;
    exp10 = shortest_impl::floor_log10_pow2(e + bits - 1);  // floor(log10(v)), or one less
    for (int tries = 0;; ++tries) {
      const int s = precision - exp10;
      if (tries == 3 || s < 0 || s > 22 || !round_scaled(m, e, s, &r)) return 0;
      if (r >= low * 10) {
        ++exp10;
      } else if (r < low) {
        --exp10;
      } else {
        break;
      }
    }
  }
  char digits[24];
  put_uint(digits, r, precision + 1);
  char* p = buf;
  if (negative) *p++ = '-';
  *p++ = digits[0];
  if (precision > 0) *p++ = '.';
  for (int i = 1; i <= precision; ++i) *p++ = digits[i];
  *p++ = 'e';
  *p++ = exp10 < 0 ? '-' : '+';
  const int a = exp10 < 0 ? -exp10 : exp10;
  p = put_uint(p, static_cast<unsigned long long>(a), 2);
  *p = 0;
  return static_cast<size_t>(p - buf);
}
}  // namespace float_text_impl

PROBE_INLINE size_t fixed_text(char* buf, double v, char style, int precision) noexcept {
  if (precision < 0) precision = 0;
  if (precision > max_text_precision) precision = max_text_precision;
  if (style == 'f')
    if (const size_t n = float_text_impl::fixed_f_exact(buf, v, precision)) return n;
  if (style == 'e')
    if (const size_t n = float_text_impl::fixed_e_exact(buf, v, precision)) return n;
  const char fmt[5] = {'%', '.', '*', style, 0};
  int n = snprintf(buf, fixed_text_capacity, fmt, precision, v);
  if (n < 0 || static_cast<size_t>(n) >= fixed_text_capacity) return 0;
  const char point = *localeconv()->decimal_point;
  for (int i = 0; i < n; ++i)
    if (buf[i] == point) buf[i] = '.';
  return static_cast<size_t>(n);
}

// Writes d positionally ("0.001", "12.5", "100.0": at least one digit after the point) or in
// scientific notation ("1e-05", "1.5e+16": no trailing point, exponent of two digits or
// more). Returns the length; buf needs d.count + |d.point| + 8 bytes (at most 360).
PROBE_INLINE size_t write_decimal(char* buf, const decimal& d, bool scientific) noexcept {
  char* p = buf;
  if (d.negative) *p++ = '-';
  if (scientific) {
    *p++ = d.digits[0];
    if (d.count > 1) {
      *p++ = '.';
      for (int i = 1; i < d.count; ++i) *p++ = d.digits[i];
    }
    int e = d.point - 1;
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    char tmp[8];
    int n = 0;
    do {
      tmp[n++] = static_cast<char>('0' + e % 10);
      e /= 10;
    } while (e);
    if (n < 2) tmp[n++] = '0';
    while (n) *p++ = tmp[--n];
  } else if (d.point <= 0) {
    *p++ = '0';
    *p++ = '.';
    for (int i = 0; i < -d.point; ++i) *p++ = '0';
    for (int i = 0; i < d.count; ++i) *p++ = d.digits[i];
  } else {
    for (int i = 0; i < d.point; ++i) *p++ = i < d.count ? d.digits[i] : '0';
    *p++ = '.';
    if (d.point >= d.count) *p++ = '0';
    for (int i = d.point; i < d.count; ++i) *p++ = d.digits[i];
  }
  *p = 0;
  return static_cast<size_t>(p - buf);
}

namespace float_text_impl {
// The k digits of scientific text ("-1.2340e+05"), trailing zeros kept.
PROBE_INLINE void digits_of(const char* s, decimal& d) noexcept {
  d = decimal{};
  if (*s == '-') ++s;
  for (; *s && *s != 'e' && *s != 'E'; ++s)
    if (*s >= '0' && *s <= '9' && d.count < static_cast<int>(sizeof d.digits)) d.digits[d.count++] = *s;
  d.point = (*s ? static_cast<int>(strtol(s + 1, nullptr, 10)) : 0) + 1;
}

PROBE_INLINE double value_of(const decimal& d) noexcept {
  char buf[64];
  const size_t n = write_decimal(buf, d, true);
  double v = 0;
  parse_double(buf, n, &v);
  return v;
}

// One unit in the last of d's digits up (+1) or down (-1), keeping the digit count.
PROBE_INLINE void step(decimal& d, int dir) noexcept {
  int i = d.count - 1;
  if (dir > 0) {
    while (i >= 0 && d.digits[i] == '9') d.digits[i--] = '0';
    if (i >= 0) {
      ++d.digits[i];
    } else {  // 9.99 -> 10.0: one digit more in front, same count
      d.digits[0] = '1';
      ++d.point;
    }
  } else {
    while (i >= 0 && d.digits[i] == '0') d.digits[i--] = '9';
    if (i < 0) return;  // zero has no candidate below; callers never pass it
    --d.digits[i];
    if (d.digits[0] == '0') {  // 1.00 -> 0.999: the next decade down, same count
      for (int j = 0; j < d.count; ++j) d.digits[j] = '9';
      --d.point;
    }
  }
}

PROBE_INLINE void strip(decimal& d) noexcept {
  while (d.count > 1 && d.digits[d.count - 1] == '0') --d.count;
}

// The fewest significant digits that identify positive v: at each length k the correctly
// rounded candidate if `ok` accepts it, else the candidate on v's other side (near a power
// of two the interval is lopsided and only that one may fit).
template <class Ok>
inline void shortest_search(double v, int max_digits, Ok ok, decimal& out) noexcept {
  char buf[fixed_text_capacity];
  decimal c;
  for (int k = 1; k <= max_digits; ++k) {
    fixed_text(buf, v, 'e', k - 1);
    digits_of(buf, c);
    const double cv = value_of(c);
    if (cv == v || ok(cv)) break;
    decimal other = c;
    step(other, cv > v ? -1 : 1);
    if (ok(value_of(other))) {
      c = other;
      break;
    }
  }
  strip(c);
  out = c;
}

template <class F>
inline void shortest_ieee(F v, decimal& d) noexcept {
  const shortest_result r = shortest_digits(v);
  char* const end = d.digits + sizeof d.digits;
  const char* first = put_digits_backwards(end, r.digits);
  d.count = static_cast<int>(end - first);
  __builtin_memmove(d.digits, first, static_cast<size_t>(d.count));
  d.point = r.digits ? r.exponent + d.count : 1;
  d.negative = fp_signbit(static_cast<double>(v));
}

// 16-bit formats: the interval of values that round to `bits`, from its neighbours.
template <double (*Value)(uint16_t)>
inline void shortest_16(uint16_t bits, decimal& d) noexcept {
  const uint16_t mag = bits & 0x7fff;
  if (mag == 0) {
    d = decimal{};
    d.negative = (bits & 0x8000) != 0;
    d.digits[0] = '0';
    d.count = 1;
    d.point = 1;
    return;
  }
  const double v = Value(mag);
  const double lo = (Value(static_cast<uint16_t>(mag - 1)) + v) / 2;
  const double hi = (v + Value(static_cast<uint16_t>(mag + 1))) / 2;
  const bool even = (mag & 1) == 0;  // round-half-even takes the bounds to v
  shortest_search(v, 9, [=](double x) { return (x > lo && x < hi) || (even && (x == lo || x == hi)); }, d);
  d.negative = (bits & 0x8000) != 0;
}
}  // namespace float_text_impl

// The shortest decimal that reads back to exactly v (v finite).
PROBE_INLINE void shortest_decimal(double v, decimal& d) noexcept { float_text_impl::shortest_ieee(v, d); }
PROBE_INLINE void shortest_decimal(float v, decimal& d) noexcept { float_text_impl::shortest_ieee(v, d); }
PROBE_INLINE void shortest_decimal_f16(uint16_t bits, decimal& d) noexcept {
  float_text_impl::shortest_16<f16_bits_unbounded>(bits, d);
}
PROBE_INLINE void shortest_decimal_bf16(uint16_t bits, decimal& d) noexcept {
  float_text_impl::shortest_16<bf16_bits_unbounded>(bits, d);
}

// numpy's (and Python's) choice: positional for 1e-4 <= |v| < 1e16 and for zero.
PROBE_INLINE bool prefers_scientific(double v) noexcept {
  const double a = fp_abs(v);
  return a != 0 && (a < 1e-4 || a >= 1e16);
}

PROBE_INLINE size_t write_nonfinite(char* buf, double v) noexcept {
  const char* s = fp_nan(v) ? "nan" : v < 0 ? "-inf" : "inf";
  const size_t n = strlen(s);
  memcpy(buf, s, n + 1);
  return n;
}

// Shortest round-trip text as numpy prints a scalar (and Python a float): "0.1", "1.0",
// "-0.0", "1e-05", "1.5e+16", "nan", "inf", "-inf". buf needs shortest_text_capacity bytes.
constexpr size_t shortest_text_capacity = 40;
PROBE_INLINE size_t write_shortest(char* buf, double v) noexcept {
  if (!fp_finite(v)) return write_nonfinite(buf, v);
  decimal d;
  shortest_decimal(v, d);
  return write_decimal(buf, d, prefers_scientific(v));
}
PROBE_INLINE size_t write_shortest(char* buf, float v) noexcept {
  if (!fp_finite(v)) return write_nonfinite(buf, v);
  decimal d;
  shortest_decimal(v, d);
  return write_decimal(buf, d, prefers_scientific(v));
}

}  // namespace detail
PROBE_END_NAMESPACE
