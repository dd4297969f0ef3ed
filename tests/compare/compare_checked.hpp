// What the compare tests share: compare two dumps through the analysis API, with the text
// report attached to every failure that follows, and look for a note.
#pragma once
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

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

// The text report with each wrapped line joined to the line it continues.
inline std::string flat_text(const probe::analysis::compare_report& r) {
  std::string t = probe::analysis::compare_text(r), out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 5, "\n    ") == 0) {
      out += ' ';
      i += 4;
      continue;
    }
    out += t[i];
  }
  return out;
}

// The root causes' op keys, in the report's order.
inline std::vector<std::string> root_ops(const probe::analysis::compared_run& run) {
  std::vector<std::string> out;
  for (const probe::analysis::root_cause& r : run.graph.roots) out.push_back(run.graph.nodes[r.node].op_key);
  return out;
}

// A whole file ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::string s;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
  }
  return s;
}

}  // namespace compare_test
