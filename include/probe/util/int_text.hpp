// Integers as decimal text without printf: for names and headers built once per dumped
// tensor, where snprintf's format parsing would be most of the cost. Standalone, deferred
// inline (inline).
#pragma once
#include <stddef.h>
#include <stdint.h>

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

}  // namespace detail
PROBE_END_NAMESPACE
