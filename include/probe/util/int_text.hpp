// Integers as decimal text without printf: for names and headers built once per dumped
// tensor, and trace events, where snprintf's format parsing would be most of the cost.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <string>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Two decimal digits at a time: half the divisions of one at a time (trace events write two
// numbers each, ctest scope_cost).
constexpr char k_digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

constexpr unsigned long long k_powers_of_ten[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull};

// Writes v at p (no terminator), zero-padded to at least `width` digits; returns the end.
// The digits go straight to their places, right to left, once their count is known.
inline char* put_uint(char* p, unsigned long long v, int width = 1) noexcept {
  int n = 1;
  while (n < 20 && v >= k_powers_of_ten[n]) ++n;
  if (n < width) n = width < 24 ? width : 24;
  char* q = p + n;
  while (v >= 100) {
    const unsigned r = static_cast<unsigned>(v % 100) * 2;
    v /= 100;
    q -= 2;
    q[0] = k_digit_pairs[r];
    q[1] = k_digit_pairs[r + 1];
  }
  if (v >= 10) {
    q -= 2;
    q[0] = k_digit_pairs[v * 2];
    q[1] = k_digit_pairs[v * 2 + 1];
  } else {
    *--q = static_cast<char>('0' + v);
  }
  while (q > p) *--q = '0';
  return p + n;
}
inline char* put_int(char* p, long long v) noexcept {
  if (v < 0) {
    *p++ = '-';
    return put_uint(p, 0ull - static_cast<unsigned long long>(v));
  }
  return put_uint(p, static_cast<unsigned long long>(v));
}
inline char* put_text(char* p, const char* s) noexcept {
  while (*s) *p++ = *s++;
  return p;
}

inline void append_u64(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, static_cast<size_t>(put_uint(buf, v) - buf));
}
inline void append_i64(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, static_cast<size_t>(put_int(buf, v) - buf));
}

// Nanoseconds as microseconds with three decimals, exactly ("1234.005"): a trace's unit.
// Writes at most 25 characters at p; returns the end.
inline char* put_us(char* p, int64_t ns) noexcept {
  uint64_t a = static_cast<uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    a = 0 - a;
  }
  p = put_uint(p, a / 1000);
  *p++ = '.';
  return put_uint(p, a % 1000, 3);
}
inline void append_us(std::string& out, int64_t ns) {
  char buf[32];
  out.append(buf, static_cast<size_t>(put_us(buf, ns) - buf));
}

}  // namespace detail
PROBE_END_NAMESPACE
