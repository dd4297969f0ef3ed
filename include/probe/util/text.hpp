// Text that came from outside -- op, slot and file names, labels, file contents -- made safe
// for where it goes: a terminal, a JSON string, XML/HTML. One UTF-8 decoder under all of them.
//
// Well-formed UTF-8 (RFC 3629) is kept as is wherever the target allows, so names in any
// script read as written. What is not: a truncated or overlong sequence, a surrogate, a code
// point past U+10FFFF.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct utf8_unit {
  size_t length;  // bytes: the sequence, or (when invalid) its maximal invalid subpart, >= 1
  uint32_t code_point;
  bool valid;
};

// The UTF-8 sequence starting at p (p < end). An invalid one has the length of its maximal
// invalid subpart: the bytes Unicode recommends replacing with one U+FFFD (as Python does).
PROBE_API utf8_unit utf8_decode(const unsigned char* p, const unsigned char* end) noexcept;

// Appends code point cp (<= U+10FFFF, not a surrogate) as UTF-8.
PROBE_API void append_utf8(std::string& out, uint32_t cp);

// For a terminal or a line-based text file: control characters (C0, DEL, C1) and bytes that
// are not UTF-8 become escapes (\n, \t, \r, \xHH), and the invisible controls that reorder or
// hide text (bidirectional overrides and isolates, U+200E/F, U+061C) become \u{XXXX}, so a
// name can neither end a line, move the cursor, recolour the terminal nor disguise itself.
PROBE_API void append_printable(std::string& out, std::string_view s);
inline std::string printable(std::string_view s) {
  std::string out;
  append_printable(out, s);
  return out;
}

// A JSON string literal, quotes included: '"', '\\' and control characters escaped, invalid
// UTF-8 as \ufffd (the output is always valid JSON), U+2028/U+2029 escaped so the text can
// sit inside a <script>.
PROBE_API void append_json_string(std::string& out, std::string_view s);
// The same without the quotes, for text assembled around it.
PROBE_API void append_json_chars(std::string& out, std::string_view s);

// XML / HTML text or attribute value: & < > " ' as entities, invalid UTF-8 as U+FFFD, control
// characters other than tab and newline dropped (XML 1.0 cannot hold them).
PROBE_API void append_xml_text(std::string& out, std::string_view s);
inline std::string xml_text(std::string_view s) {
  std::string out;
  append_xml_text(out, s);
  return out;
}

// Invalid UTF-8 replaced by U+FFFD, everything else kept (DOT labels, SVG text).
PROBE_API std::string valid_utf8(std::string_view s);
// Whether s is UTF-8 throughout (what valid_utf8 would return unchanged).
PROBE_API bool is_valid_utf8(std::string_view s) noexcept;

// Terminal columns of UTF-8 text: one per code point (good enough to align most scripts).
PROBE_API size_t text_columns(std::string_view s) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
