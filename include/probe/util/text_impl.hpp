// Text made safe for its destination (text.hpp): definitions.
#pragma once
#include "text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API utf8_unit utf8_decode(const unsigned char* p, const unsigned char* end) noexcept {
  const unsigned c = p[0];
  if (c < 0x80) return {1, c, true};
  // The lead byte gives the length; the second byte's range excludes overlong forms,
  // surrogates and code points past U+10FFFF.
  int need = 0;
  unsigned lo = 0x80, hi = 0xBF;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    cp = c & 0x0F;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    cp = c & 0x07;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return {1, 0xFFFD, false};
  }
  size_t len = 1;
  while (len <= static_cast<size_t>(need) && p + len < end) {
    const unsigned b = p[len];
    if (len == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) break;
    cp = (cp << 6) | (b & 0x3F);
    ++len;
  }
  if (len == static_cast<size_t>(need) + 1) return {len, cp, true};
  return {len, 0xFFFD, false};
}

PROBE_API void append_utf8(std::string& out, uint32_t cp) {
  char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = static_cast<char>(cp);
    n = 1;
  } else if (cp < 0x800) {
    b[0] = static_cast<char>(0xC0 | (cp >> 6));
    b[1] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = static_cast<char>(0xE0 | (cp >> 12));
    b[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    b[2] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    b[0] = static_cast<char>(0xF0 | (cp >> 18));
    b[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    b[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    b[3] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 4;
  }
  out.append(b, n);
}

namespace text_impl {
constexpr char k_hex[] = "0123456789abcdef";

// Invisible format characters that reorder or hide text on a terminal.
inline bool is_bidi_control(uint32_t cp) noexcept {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}
}  // namespace text_impl

PROBE_API void append_printable(std::string& out, std::string_view s) {
  using text_impl::k_hex;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  out.reserve(out.size() + s.size());
  while (p < end) {
    const unsigned char c = *p;
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++p;
      continue;
    }
    if (c >= 0x80) {
      const utf8_unit u = utf8_decode(p, end);
      if (u.valid && u.code_point >= 0xA0) {  // U+0080..U+009F are the C1 controls
        if (text_impl::is_bidi_control(u.code_point)) {
          out += "\\u{";
          for (int shift = 12; shift >= 0; shift -= 4) out += k_hex[(u.code_point >> shift) & 15];
          out += '}';
        } else {
          out.append(reinterpret_cast<const char*>(p), u.length);
        }
        p += u.length;
        continue;
      }
    }
    // A control character, or a byte that starts no valid sequence: escape one byte.
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else {
      out += "\\x";
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    }
    ++p;
  }
}

PROBE_API void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  append_json_chars(out, s);
  out += '"';
}

PROBE_API void append_json_chars(std::string& out, std::string_view s) {
  using text_impl::k_hex;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned char* run = p;  // bytes that need nothing, copied at once
    while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') ++p;
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p >= end) break;
    const unsigned char c = *p;
    if (c < 0x80) {
      out += '\\';
      switch (c) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '\n': out += 'n'; break;
        case '\t': out += 't'; break;
        case '\r': out += 'r'; break;
        case '\b': out += 'b'; break;
        case '\f': out += 'f'; break;
        default:
          out += "u00";
          out += k_hex[c >> 4];
          out += k_hex[c & 15];
      }
      ++p;
      continue;
    }
    const utf8_unit u = utf8_decode(p, end);
    if (!u.valid) out += "\\ufffd";
    else if (u.code_point == 0x2028 || u.code_point == 0x2029) out += u.code_point == 0x2028 ? "\\u2028" : "\\u2029";
    else out.append(reinterpret_cast<const char*>(p), u.length);
    p += u.length;
  }
}

PROBE_API void append_xml_text(std::string& out, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c >= 0x80) {
      const utf8_unit u = utf8_decode(p, end);
      if (u.valid) out.append(reinterpret_cast<const char*>(p), u.length);
      else out += "\xef\xbf\xbd";
      p += u.length;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (c >= 0x20 || c == '\n' || c == '\t') out += static_cast<char>(c);
    }
    ++p;
  }
}

PROBE_API std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const utf8_unit u = utf8_decode(p, end);
    if (u.valid) out.append(reinterpret_cast<const char*>(p), u.length);
    else out += "\xef\xbf\xbd";
    p += u.length;
  }
  return out;
}

PROBE_API bool is_valid_utf8(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    const utf8_unit u = utf8_decode(p, end);
    if (!u.valid) return false;
    p += u.length;
  }
  return true;
}

PROBE_API size_t text_columns(std::string_view s) noexcept {
  size_t w = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++w;
  return w;
}

}  // namespace detail
PROBE_END_NAMESPACE
