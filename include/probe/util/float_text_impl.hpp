// Floating-point text (float_text.hpp): definitions.
#pragma once
#include <charconv>
#include <system_error>

#include "float_text.hpp"
#include "metric_line.h"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API size_t parse_double(const char* s, size_t n, double* out) noexcept {
  if (n == 0) return 0;
  const std::from_chars_result r = std::from_chars(s, s + n, *out);
  if (r.ec == std::errc::invalid_argument) return 0;
  const size_t used = static_cast<size_t>(r.ptr - s);
  if (r.ec == std::errc::result_out_of_range) {
    // Too large or too small for a double: saturate as strtod does. The magnitude is below
    // one exactly when the exponent is negative, or when there is none and every digit
    // before the point is zero.
    bool negative = s[0] == '-', tiny = false;
    const char* e = static_cast<const char*>(memchr(s, 'e', used));
    if (!e) e = static_cast<const char*>(memchr(s, 'E', used));
    if (e) {
      tiny = e + 1 < s + used && e[1] == '-';
    } else {
      tiny = true;
      for (const char* p = s + negative; p < s + used && *p != '.'; ++p)
        if (*p >= '1' && *p <= '9') tiny = false;
    }
    const double mag = tiny ? 0.0 : fp_huge();
    *out = negative ? -mag : mag;
  }
  return used;
}

PROBE_API size_t fixed_text(char* buf, double v, char style, int precision) noexcept {
  if (precision < 0) precision = 0;
  if (precision > max_text_precision) precision = max_text_precision;
  if (!fp_finite(v)) return write_nonfinite(buf, v);
  const std::chars_format f = style == 'f'   ? std::chars_format::fixed
                              : style == 'e' ? std::chars_format::scientific
                                             : std::chars_format::general;
  const std::to_chars_result r = std::to_chars(buf, buf + fixed_text_capacity - 1, v, f, precision);
  if (r.ec != std::errc()) return 0;
  *r.ptr = 0;
  return static_cast<size_t>(r.ptr - buf);
}

namespace float_text_impl {
// The digits and exponent of scientific text ("-1.2340e+05"), trailing zeros kept.
inline void digits_of(const char* s, const char* end, decimal& d) noexcept {
  d = decimal{};
  if (s < end && *s == '-') {
    d.negative = true;
    ++s;
  }
  for (; s < end && *s != 'e'; ++s)
    if (*s >= '0' && *s <= '9' && d.count < static_cast<int>(sizeof d.digits)) d.digits[d.count++] = *s;
  int exponent = 0;
  if (s < end) std::from_chars(s + 1 + (s[1] == '+'), end, exponent);
  d.point = exponent + 1;
}

inline void strip(decimal& d) noexcept {
  while (d.count > 1 && d.digits[d.count - 1] == '0') --d.count;
}

template <class F>
void shortest_ieee(F v, decimal& d) noexcept {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  digits_of(buf, r.ptr, d);
  strip(d);
}

inline double value_of(const decimal& d) noexcept {
  char buf[64];
  const size_t n = write_decimal(buf, d, true);
  double v = 0;
  parse_double(buf, n, &v);
  return v;
}

// One unit in the last of d's digits up (+1) or down (-1), keeping the digit count.
inline void step(decimal& d, int dir) noexcept {
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

// 16-bit formats: the fewest significant digits whose value lies in the interval of values
// that round to `bits` (its bounds halfway to the neighbours, included when the pattern is
// even, as round-half-even takes them there). At each length k the correctly rounded
// candidate, else the one on v's other side (near a power of two the interval is lopsided
// and only that one may fit).
inline void shortest_16(uint16_t bits, double (*value)(uint16_t), decimal& d) noexcept {
  const uint16_t mag = bits & 0x7fff;
  if (mag == 0) {
    d = decimal{};
    d.digits[0] = '0';
    d.count = 1;
    d.point = 1;
  } else {
    const double v = value(mag);
    const double lo = (value(static_cast<uint16_t>(mag - 1)) + v) / 2;
    const double hi = (v + value(static_cast<uint16_t>(mag + 1))) / 2;
    const bool even = (mag & 1) == 0;
    auto inside = [=](double x) { return (x > lo && x < hi) || (even && (x == lo || x == hi)); };
    char buf[64];
    decimal c;
    for (int k = 1; k <= 9; ++k) {
      const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, k - 1);
      digits_of(buf, r.ptr, c);
      const double cv = value_of(c);
      if (cv == v || inside(cv)) break;
      decimal other = c;
      step(other, cv > v ? -1 : 1);
      if (inside(value_of(other))) {
        c = other;
        break;
      }
    }
    strip(c);
    d = c;
  }
  d.negative = (bits & 0x8000) != 0;
}
}  // namespace float_text_impl

PROBE_API void shortest_decimal(double v, decimal& d) noexcept { float_text_impl::shortest_ieee(v, d); }
PROBE_API void shortest_decimal(float v, decimal& d) noexcept { float_text_impl::shortest_ieee(v, d); }
PROBE_API void shortest_decimal_f16(uint16_t bits, decimal& d) noexcept {
  float_text_impl::shortest_16(bits, f16_bits_unbounded, d);
}
PROBE_API void shortest_decimal_bf16(uint16_t bits, decimal& d) noexcept {
  float_text_impl::shortest_16(bits, bf16_bits_unbounded, d);
}

PROBE_API size_t write_decimal(char* buf, const decimal& d, bool scientific) noexcept {
  char* p = buf;
  if (d.negative) *p++ = '-';
  if (scientific) {
    *p++ = d.digits[0];
    if (d.count > 1) {
      *p++ = '.';
      for (int i = 1; i < d.count; ++i) *p++ = d.digits[i];
    }
    const int e = d.point - 1;
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    const int a = e < 0 ? -e : e;
    if (a < 10) *p++ = '0';
    p = std::to_chars(p, p + 8, a).ptr;
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

PROBE_API size_t write_nonfinite(char* buf, double v) noexcept {
  const char* s = fp_nan(v) ? "nan" : fp_signbit(v) ? "-inf" : "inf";
  const size_t n = strlen(s);
  memcpy(buf, s, n + 1);
  return n;
}

PROBE_API size_t write_shortest(char* buf, double v) noexcept {
  if (!fp_finite(v)) return write_nonfinite(buf, v);
  decimal d;
  shortest_decimal(v, d);
  return write_decimal(buf, d, prefers_scientific(v));
}
PROBE_API size_t write_shortest(char* buf, float v) noexcept {
  const double wide = static_cast<double>(v);  // exact
  if (!fp_finite(wide)) return write_nonfinite(buf, wide);
  decimal d;
  shortest_decimal(v, d);
  return write_decimal(buf, d, prefers_scientific(wide));
}

PROBE_API size_t write_compact(char* buf, double v) noexcept {
  if (!fp_finite(v)) return write_nonfinite(buf, v);
  // printf's %.<p>g at the first precision that reads back: what C's printf loop writes too
  // (util/metric_line.h, PROBE_DISABLE), so the line is the same in every build. The integer
  // digits of a value below 1e16 are all written: 100, not 1e+02.
  for (int p = probe_metric_first_precision(v);; ++p) {
    const std::to_chars_result r = std::to_chars(buf, buf + shortest_text_capacity - 1, v, std::chars_format::general, p);
    *r.ptr = 0;
    double back = 0;
    if (p >= 17 || (parse_double(buf, static_cast<size_t>(r.ptr - buf), &back) && back == v))
      return static_cast<size_t>(r.ptr - buf);
  }
}
}  // namespace detail
PROBE_END_NAMESPACE
