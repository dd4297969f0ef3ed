// Regular expressions given on the command line (--pattern, --label-re, --tol): refused
// over a size cap before they are compiled (compiling costs memory in proportion to the
// pattern) and over a cap on capture groups, and every problem told in one line that names
// the option and quotes the pattern escaped, so that neither a newline nor a terminal escape
// in it can split or forge the line.
// Standalone header, plain inline.
#pragma once
#include <stddef.h>

#include <string>

#include <probe/util/config.hpp>
#include <probe/util/regex.hpp>
#include <probe/util/text.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

// No filter or metric pattern a person writes comes near these. Matching with captures costs
// memory and time in proportion to the pattern's size times its groups: 2000 groups in 4 KiB
// take a quarter of a gigabyte and seconds per label.
constexpr size_t max_option_pattern = 4096;
constexpr int max_option_groups = 100;

// The pattern as a message quotes it: escaped, and cut after 80 bytes.
inline std::string quoted_pattern(const std::string& pattern) {
  constexpr size_t shown = 80;
  if (pattern.size() <= shown) return "'" + ::probe::detail::printable(pattern) + "'";
  size_t cut = shown;
  while (cut > 0 && (static_cast<unsigned char>(pattern[cut]) & 0xc0) == 0x80) --cut;  // whole UTF-8 sequences
  return "'" + ::probe::detail::printable(pattern.substr(0, cut)) + "...'";
}

// The reason in a regex compile error, without the "bad regex 'PATTERN': " the caller
// replaces with the option's name.
inline std::string regex_problem(const std::string& error, const std::string& pattern) {
  const std::string prefix = "bad regex '" + pattern + "': ";
  return error.compare(0, prefix.size(), prefix) == 0 ? error.substr(prefix.size()) : error;
}

// Compiles the pattern of `option` into *re; false with *error (one line) when it is too
// long, has too many groups or is not valid.
inline bool compile_option_regex(const char* option, const std::string& pattern, ::probe::detail::regex* re,
                                 std::string* error) {
  if (pattern.size() > max_option_pattern) {
    *error = std::string(option) + " " + quoted_pattern(pattern) + " is " + std::to_string(pattern.size()) +
             " bytes long, over the " + std::to_string(max_option_pattern) + " bytes a pattern may have";
    return false;
  }
  std::string why;
  if (re->compile(pattern, &why)) {
    if (re->groups() <= max_option_groups) return true;
    *error = std::string(option) + " " + quoted_pattern(pattern) + " has " + std::to_string(re->groups()) +
             " capture groups, over the " + std::to_string(max_option_groups) + " a pattern may have";
    *re = ::probe::detail::regex();
    return false;
  }
  const std::string problem = regex_problem(why, pattern);
  *error = std::string(option) + " " + quoted_pattern(pattern) + " is not a valid regular expression: " +
           ::probe::detail::printable(problem.empty() ? std::string("rejected") : problem);
  return false;
}

}  // namespace analysis
PROBE_END_NAMESPACE
