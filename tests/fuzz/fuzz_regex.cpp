// probe's regex engine: any pattern compiles or is refused with a message, and matching any
// subject stays in bounds. Then a differential check against std::regex (ECMAScript) on the
// subset where both define the same answer, with short inputs so the backtracking engine
// stays fast: a pattern over a small alphabet with no quantified group (ECMAScript's
// empty-iteration and capture-reset rules are where libstdc++ departs from the standard),
// matched against a subject of the same few bytes. Whether each finds a match, where the
// match lies and where every group lies must agree.
//
// Input: PATTERN '\0' SUBJECT.
#include <probe/probe.hpp>

#include <regex>
#include <string>

#include <probe/util/regex.hpp>

#include "fuzz_input.hpp"

namespace {

// Bytes both engines read alike: literals, classes, anchors, quantifiers, groups.
bool in_subset(const std::string& p) {
  static const std::string allowed = "ab01 _.()|*+?[]^$-{},\\dwsDWS";
  if (p.size() > 24) return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (allowed.find(p[i]) == std::string::npos) return false;
    // a quantified group, or a brace that is not a quantifier (std::regex reads it as one)
    if (p[i] == ')' && i + 1 < p.size() && (p[i + 1] == '*' || p[i + 1] == '+' || p[i + 1] == '?' || p[i + 1] == '{'))
      return false;
    if (p[i] == '\\' && i + 1 < p.size() && std::string("dwsDWS").find(p[i + 1]) == std::string::npos) return false;
  }
  return true;
}

bool subject_in_subset(const std::string& s) {
  if (s.size() > 32) return false;
  for (char c : s)
    if (std::string("ab01 _").find(c) == std::string::npos) return false;
  return true;
}

void differential(const probe::detail::regex& re, const std::string& pattern, const std::string& subject) {
  std::regex reference;
  try {
    reference.assign(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return;  // not in std::regex's dialect
  }
  if (static_cast<int>(reference.mark_count()) != re.groups()) __builtin_trap();
  std::smatch m;
  bool found = false;
  try {
    found = std::regex_search(subject, m, reference);
  } catch (const std::regex_error&) {
    return;  // std::regex's own limits (complexity, stack)
  }
  probe::detail::regex::span_vector groups;
  if (re.search(subject.data(), subject.size(), groups) != found) __builtin_trap();
  if (!found) return;
  for (size_t g = 0; g < m.size() && g < groups.size(); ++g) {
    const bool matched = m[g].matched;
    if (groups[g].matched() != matched) __builtin_trap();
    if (matched && (groups[g].begin != m.position(g) || groups[g].end != m.position(g) + m.length(g)))
      __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest;
  const std::string pattern(probe_fuzz::split_first(probe_fuzz::as_text(data, size), '\0', &rest));
  const std::string subject(rest);
  probe::detail::regex re;
  std::string error;
  if (!re.compile(pattern, &error)) {
    if (error.empty()) __builtin_trap();  // a refusal says why
    return 0;
  }
  probe::detail::regex::span_vector groups;
  if (re.search(subject.data(), subject.size(), groups)) {
    for (const probe::detail::regex_span& g : groups)
      if (g.matched() && (g.begin > g.end || g.end > static_cast<ptrdiff_t>(subject.size()))) __builtin_trap();
  }
  const bool full = re.full_match(subject);
  if (full && !re.search(subject)) __builtin_trap();  // a whole match is a match
  if (in_subset(pattern) && subject_in_subset(subject)) differential(re, pattern, subject);
  return 0;
}
