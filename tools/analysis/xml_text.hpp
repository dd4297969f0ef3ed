// Text for XML, SVG and HTML documents the analysis writes. Standalone header.
#pragma once
#include <string>

#include <probe/util/config.hpp>
#include "utf8.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// Text for XML and HTML: markup characters escaped, characters XML 1.0 forbids (most
// control characters) and invalid UTF-8 replaced by U+FFFD, so the document always parses.
inline std::string xml_escape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            out += "\xef\xbf\xbd";
          else
            out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const size_t len = utf8_sequence_length(s, i);
    if (len) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
