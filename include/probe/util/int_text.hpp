// Integers as decimal text without printf: for names and headers built once per dumped
// tensor, and trace events, where snprintf's format parsing would be most of the cost.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <string>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Writes v at p (no terminator), zero-padded to at least `width` digits; returns the end.
inline char* put_uint(char* p, unsigned long long v, int width = 1) noexcept {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n < width && n < 24) tmp[n++] = '0';
  while (n) *p++ = tmp[--n];
  return p;
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
inline void append_us(std::string& out, int64_t ns) {
  char buf[32];
  char* p = buf;
  uint64_t a = static_cast<uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    a = 0 - a;
  }
  p = put_uint(p, a / 1000);
  *p++ = '.';
  p = put_uint(p, a % 1000, 3);
  out.append(buf, static_cast<size_t>(p - buf));
}

}  // namespace detail
PROBE_END_NAMESPACE
