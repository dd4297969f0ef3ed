// The shortest text that reads back as the same double ("577.3", not "577.29999999999995"),
// with '.' as the decimal point whatever the C locale says. Standalone helper.
#pragma once
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Writes into buf (at least 32 bytes); returns the length. nan, inf and -inf as such.
PROBE_INLINE int format_double_round_trip(double v, char* buf, size_t size) noexcept {
  if (v != v) return snprintf(buf, size, "nan");
  if (v - v != 0) return snprintf(buf, size, v < 0 ? "-inf" : "inf");
  int n = 0;
  for (int precision = 1; precision <= 17; ++precision) {
    n = snprintf(buf, size, "%.*g", precision, v);
    if (strtod(buf, nullptr) == v) break;
  }
  // snprintf and strtod agree on the locale's decimal point; readers of the text expect '.'.
  const char* point = localeconv()->decimal_point;
  if (point && point[0] && (point[0] != '.' || point[1])) {
    const size_t plen = strlen(point);
    char* p = strstr(buf, point);
    if (p) {
      *p = '.';
      memmove(p + 1, p + plen, strlen(p + plen) + 1);
      n -= static_cast<int>(plen - 1);
    }
  }
  return n;
}

}  // namespace detail
PROBE_END_NAMESPACE
