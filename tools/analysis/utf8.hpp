// UTF-8 well-formedness, for text that came from files and must be shown or written safely.
// Standalone header: plain `inline`.
#pragma once
#include <cstddef>
#include <string>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

// Length of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80), 0 if there is
// none: truncated, overlong, a surrogate, or past U+10FFFF.
inline size_t utf8_sequence_length(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
  if (len == 2 && c < 0xc2) return 0;
  if (len == 3 && ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0))) return 0;
  if (len == 4 && ((c == 0xf0 && c1 < 0x90) || c > 0xf4 || (c == 0xf4 && c1 >= 0x90))) return 0;
  return len;
}

}  // namespace analysis
PROBE_END_NAMESPACE
