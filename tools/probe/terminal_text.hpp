// Text bound for a terminal. Reports and messages quote what files hold (op names, dtype
// strings, notes, labels, budget reasons, paths), and a file can hold an escape sequence
// that recolours or clears the terminal, or a bidirectional control that makes a name read
// as another: every line is passed through probe's escaper (probe::detail::printable), which
// leaves printable text, UTF-8 included, as it is.
#pragma once
#include <stdio.h>

#include <string>
#include <string_view>

#include <probe/util/text.hpp>

namespace probe_cli {

// `text` with each line made printable; the line breaks stay. For reports without colour.
inline std::string terminal_lines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    probe::detail::append_printable(out, text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(nl + 1);
  }
  return out;
}

// "probe VERB: MESSAGE" on stderr, as one line whatever the message holds.
inline void print_error(const char* verb, const std::string& message) {
  fprintf(stderr, "probe %s: %s\n", verb, probe::detail::printable(message).c_str());
  fflush(stderr);
}

}  // namespace probe_cli
