// Flags handed to an engine the CLI runs (replay, jitter): words appended to its PROBE_FLAGS.
#pragma once
#include <string>

namespace probe_cli {

// One flag word for PROBE_FLAGS, double-quoted: spaces, quotes and newlines survive.
inline std::string flag_word(const std::string& name, const std::string& value) {
  std::string s = "\"--probe_" + name + "=";
  for (char c : value) {
    if (c == '"' || c == '\\') s += '\\';
    if (c == '\n') {
      s += "\\n";
      continue;
    }
    s += c;
  }
  return s + "\"";
}

}  // namespace probe_cli
