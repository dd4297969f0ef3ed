// Applies a unified diff, as probe diff-ir prints it, to the text it was made from: a diff is
// right when it turns the first text into the second. Strict, so that a wrong diff cannot
// pass: every kept and removed line must be the text's own, hunks come in order, and each
// hunk header's starts and counts must be those of its lines. Shared by the line-diff test
// and its fuzzer.
#pragma once
#include <stddef.h>

#include <string>
#include <string_view>
#include <vector>

#include "analysis/line_diff.hpp"

namespace diff_apply {

// "N" or "N,M" at *at (M defaults to 1); moves past it.
inline bool read_range(std::string_view s, size_t* at, size_t* start, size_t* count) {
  auto number = [&](size_t* out) {
    const size_t from = *at;
    *out = 0;
    while (*at < s.size() && s[*at] >= '0' && s[*at] <= '9' && *at - from < 12) *out = *out * 10 + static_cast<size_t>(s[(*at)++] - '0');
    return *at > from;
  };
  if (!number(start)) return false;
  *count = 1;
  if (*at < s.size() && s[*at] == ',') {
    ++*at;
    if (!number(count)) return false;
  }
  return true;
}

// The first line of a range of `count` lines starting at line `start` (1-based), 0-based; a
// range of no lines names the line before it.
inline size_t first_index(size_t start, size_t count) { return count == 0 ? start : start - 1; }

// *out: `a` with the diff applied. False when the diff does not fit `a` or is malformed.
inline bool apply(std::string_view a, std::string_view diff, std::string* out) {
  namespace pa = probe::analysis;
  const std::vector<std::string_view> lines = pa::lines_of(a), d = pa::lines_of(diff);
  out->clear();
  if (d.size() < 3 || d[0].substr(0, 4) != "--- " || d[1].substr(0, 4) != "+++ ") return false;
  size_t next = 0, written = 0;  // lines of a used, lines of the result
  for (size_t i = 2; i < d.size();) {
    const std::string_view h = d[i];
    size_t at = 4, as = 0, ac = 0, bs = 0, bc = 0;
    if (h.substr(0, 4) != "@@ -" || !read_range(h, &at, &as, &ac) || h.substr(at, 2) != " +") return false;
    at += 2;
    if (!read_range(h, &at, &bs, &bc) || h.substr(at) != " @@\n") return false;
    if ((ac && !as) || (bc && !bs)) return false;
    const size_t start = first_index(as, ac);
    if (start < next || start > lines.size()) return false;
    for (; next < start; ++next, ++written) out->append(lines[next]);
    if (first_index(bs, bc) != written) return false;
    size_t kept_or_removed = 0, kept_or_added = 0;
    for (++i; i < d.size() && d[i].substr(0, 2) != "@@"; ++i) {
      const char op = d[i][0];
      std::string text(d[i].substr(1));
      if (i + 1 < d.size() && d[i + 1] == "\\ No newline at end of file\n") {
        if (text.empty() || text.back() != '\n') return false;
        text.pop_back();
        ++i;
      }
      if (op == '+' || op == ' ') {
        out->append(text);
        ++written, ++kept_or_added;
      }
      if (op == '-' || op == ' ') {
        if (next >= lines.size() || lines[next] != text) return false;
        ++next, ++kept_or_removed;
      }
      if (op != '+' && op != '-' && op != ' ') return false;
    }
    if (kept_or_removed != ac || kept_or_added != bc) return false;
  }
  for (; next < lines.size(); ++next) out->append(lines[next]);
  return true;
}

}  // namespace diff_apply
