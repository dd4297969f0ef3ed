// A unified diff of two texts, line by line (Myers' O(ND) algorithm after the common head and
// tail are set aside), as diff -u prints it. The work is capped: past k_max_edits differing
// lines the diff is not computed and the caller says so. The walk back keeps one frontier
// per edit distance (D^2/2 ints: 50 MB at the cap); texts whose lines, counted as sets, already
// differ by more than the cap are refused before any of it.
#pragma once
#include <stddef.h>

#include <stdint.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

// The lines of s, each with its '\n' (the last one lacks it when s does not end in one):
// "x" and "x\n" are different lines, as diff -u tells them.
inline std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at < s.size()) {
    size_t end = s.find('\n', at);
    end = end == std::string_view::npos ? s.size() : end + 1;
    out.push_back(s.substr(at, end - at));
    at = end;
  }
  return out;
}

struct line_diff_result {
  bool same = true;
  bool too_large = false;  // more than the cap of differing lines: no diff computed
  std::string text;        // the unified diff (headers included) when it differs
  size_t added = 0, removed = 0;
};

constexpr long k_max_edits = 5000;

// Edit script of a against b: ' ' keep, '-' a line of a, '+' a line of b, with their indices.
struct line_edit {
  char op;
  size_t a, b;
};

// A lower bound of the edit distance: the lines of one text that the other has fewer of.
inline long edits_at_least(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b, size_t a0,
                           size_t a1, size_t b0, size_t b1) {
  std::unordered_map<std::string_view, long> count;
  for (size_t i = a0; i < a1; ++i) ++count[a[i]];
  for (size_t i = b0; i < b1; ++i) --count[b[i]];
  long d = 0;
  for (const auto& c : count) d += c.second < 0 ? -c.second : c.second;
  return d;
}

// Myers' greedy forward search with one saved frontier per edit distance (the d + 1
// diagonals of step d, as int32: D^2/2 of them), then a walk back through them. False when
// the distance exceeds max_d.
inline bool myers_edits(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b, size_t a0,
                        size_t a1, size_t b0, size_t b1, long max_d, std::vector<line_edit>* out) {
  const long n = static_cast<long>(a1 - a0), m = static_cast<long>(b1 - b0);
  if (n > INT32_MAX || m > INT32_MAX || edits_at_least(a, b, a0, a1, b0, b1) > max_d) return false;
  // trace[d][(k + d) / 2]: furthest x on diagonal k (k = -d, -d + 2, .., d) after d edits
  std::vector<std::vector<int32_t>> trace;
  std::vector<int32_t> v(1, 0);
  long d_end = -1;
  for (long d = 0; d <= std::min(max_d, n + m); ++d) {
    std::vector<int32_t> next(static_cast<size_t>(d + 1));
    for (long k = -d; k <= d; k += 2) {
      auto prev = [&](long kk) -> long { return v[static_cast<size_t>((kk + d - 1) / 2)]; };
      long x;
      if (d == 0)
        x = 0;
      else if (k == -d || (k != d && prev(k - 1) < prev(k + 1)))
        x = prev(k + 1);
      else
        x = prev(k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && a[a0 + static_cast<size_t>(x)] == b[b0 + static_cast<size_t>(y)]) ++x, ++y;
      next[static_cast<size_t>((k + d) / 2)] = static_cast<int32_t>(x);
      if (x >= n && y >= m) d_end = d;
    }
    trace.push_back(next);
    v.swap(next);
    if (d_end >= 0) break;
  }
  if (d_end < 0) return false;
  std::vector<line_edit> rev;
  long x = n, y = m;
  for (long d = d_end; d > 0; --d) {
    const std::vector<int32_t>& pv = trace[static_cast<size_t>(d - 1)];
    auto prev = [&](long kk) -> long { return pv[static_cast<size_t>((kk + d - 1) / 2)]; };
    const long k = x - y;
    const bool down = k == -d || (k != d && prev(k - 1) < prev(k + 1));
    const long pk = down ? k + 1 : k - 1;
    const long px = prev(pk), py = px - pk;
    const long sx = down ? px : px + 1, sy = sx - k;  // where the snake of step d starts
    while (x > sx && y > sy) {
      --x, --y;
      rev.push_back({' ', a0 + static_cast<size_t>(x), b0 + static_cast<size_t>(y)});
    }
    if (down)
      rev.push_back({'+', a0 + static_cast<size_t>(px), b0 + static_cast<size_t>(py)});
    else
      rev.push_back({'-', a0 + static_cast<size_t>(px), b0 + static_cast<size_t>(py)});
    x = px, y = py;
  }
  while (x > 0 && y > 0) {
    --x, --y;
    rev.push_back({' ', a0 + static_cast<size_t>(x), b0 + static_cast<size_t>(y)});
  }
  out->insert(out->end(), rev.rbegin(), rev.rend());
  return true;
}

inline std::string hunk_range(size_t start, size_t count) {
  // diff -u: a range of no lines names the line before it.
  if (count == 0) return std::to_string(start) + ",0";
  return count == 1 ? std::to_string(start + 1) : std::to_string(start + 1) + "," + std::to_string(count);
}

inline line_diff_result unified_diff(std::string_view ta, std::string_view tb, const std::string& name_a,
                                     const std::string& name_b, size_t context = 3, long max_edits = k_max_edits) {
  line_diff_result r;
  if (ta == tb) return r;
  r.same = false;
  const std::vector<std::string_view> a = lines_of(ta), b = lines_of(tb);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  std::vector<line_edit> edits;
  for (size_t i = 0; i < head; ++i) edits.push_back({' ', i, i});
  if (!myers_edits(a, b, head, a.size() - tail, head, b.size() - tail, max_edits, &edits)) {
    r.too_large = true;
    return r;
  }
  for (size_t i = tail; i > 0; --i) edits.push_back({' ', a.size() - i, b.size() - i});
  r.text = "--- " + name_a + "\n+++ " + name_b + "\n";
  // Hunks: runs of changes with up to `context` kept lines around them, merged when close.
  size_t i = 0;
  while (i < edits.size()) {
    while (i < edits.size() && edits[i].op == ' ') ++i;
    if (i == edits.size()) break;
    size_t start = i >= context ? i - context : 0;
    size_t end = i;  // one past the last change of the hunk
    for (size_t j = i; j < edits.size(); ++j) {
      if (edits[j].op != ' ') {
        end = j + 1;
      } else if (j - end + 1 > 2 * context) {
        break;
      }
    }
    const size_t stop = std::min(edits.size(), end + context);
    size_t ca = 0, cb = 0;
    for (size_t j = start; j < stop; ++j) {
      ca += edits[j].op != '+';
      cb += edits[j].op != '-';
    }
    r.text += "@@ -" + hunk_range(edits[start].a, ca) + " +" + hunk_range(edits[start].b, cb) + " @@\n";
    for (size_t j = start; j < stop; ++j) {
      const line_edit& e = edits[j];
      const std::string_view line = e.op == '+' ? b[e.b] : a[e.a];
      r.text += e.op;
      r.text.append(line.data(), line.size());
      if (line.back() != '\n') r.text += "\n\\ No newline at end of file\n";
      r.added += e.op == '+';
      r.removed += e.op == '-';
    }
    i = stop;
  }
  return r;
}

}  // namespace analysis
PROBE_END_NAMESPACE
