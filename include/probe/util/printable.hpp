// Names shown on a terminal or in a line-based text file: an op, slot or file name may come
// from a model file and hold anything. Control characters (C0, DEL, C1) and bytes that are
// not UTF-8 are written as escapes (\n, \t, \r, \xHH), so a name cannot end a line, move the
// cursor or recolour the terminal; valid UTF-8 (names in any script) is kept as is.
// Standalone header: inline templates (docs/internals.md, Deferral).
#pragma once
#include <string>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline void append_printable(std::string& out, const std::string& s) {
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len > 1) {  // well-formed: complete, not overlong, no surrogate, at most U+10FFFF
      bool ok = i + len <= s.size();
      for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
      const unsigned char c1 = ok ? static_cast<unsigned char>(s[i + 1]) : 0;
      if (ok && len == 2) ok = c >= 0xc2 && !(c == 0xc2 && c1 < 0xa0);  // C1 controls are U+0080..U+009F
      if (ok && len == 3) ok = !((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0));
      if (ok && len == 4) ok = !((c == 0xf0 && c1 < 0x90) || c > 0xf4 || (c == 0xf4 && c1 >= 0x90));
      if (!ok) len = 0;
    }
    if (len > 1 || (len == 1 && c >= 0x20 && c != 0x7f)) {
      out.append(s, i, len);
      i += len;
      continue;
    }
    // A control character, or a byte that starts no valid sequence: escape one byte.
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
    ++i;
  }
}

inline std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  append_printable(out, s);
  return out;
}

}  // namespace detail
PROBE_END_NAMESPACE
