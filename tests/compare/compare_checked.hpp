// What the compare tests share: compare two dumps through the analysis API, with the text
// report attached to every failure that follows, and look for a note.
#pragma once
#include <doctest/doctest.h>

#include <string>

#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

namespace compare_test {

// The report of a, b; the test stops when compare itself fails.
inline probe::analysis::compare_report compare(const std::string& a, const std::string& b,
                                               const probe::analysis::compare_settings& s = probe::analysis::compare_settings()) {
  probe::analysis::compare_report r = probe::analysis::compare_paths(a, b, s);
  INFO(probe::analysis::compare_text(r));
  REQUIRE(r.error.empty());
  return r;
}

// Whether one of the report's notes contains `part`.
inline bool has_note(const probe::analysis::compare_report& r, const std::string& part) {
  for (const std::string& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// How many times `what` occurs in `text`, occurrences not overlapping.
inline size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

}  // namespace compare_test
