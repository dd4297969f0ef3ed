// probe diff-ir's line diff (tools/analysis/line_diff.hpp): the unified diff it prints turns
// the first text into the second (applied back here), is minimal where the answer is known,
// and is refused past the cap without spending the memory the search would need.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "analysis/line_diff.hpp"

namespace pa = probe::analysis;

namespace {

// Applies a unified diff to `a`; "" on a malformed hunk.
std::string apply(const std::string& a, const std::string& diff, bool* ok) {
  const std::vector<std::string_view> lines = pa::split_lines(a), d = pa::split_lines(diff);
  std::string out;
  size_t next = 0;  // lines of a copied so far
  *ok = true;
  for (size_t i = 2; i < d.size();) {
    long from = 0;
    if (std::sscanf(std::string(d[i]).c_str(), "@@ -%ld", &from) != 1) return *ok = false, "";
    size_t start = static_cast<size_t>(from > 0 ? from - 1 : 0);
    if (d[i].find(",0 +") != std::string_view::npos && std::string(d[i]).find("-" + std::to_string(from) + ",0") != std::string::npos)
      start = static_cast<size_t>(from);  // a range of no lines names the line before it
    for (; next < start && next < lines.size(); ++next) out.append(lines[next]).append("\n");
    for (++i; i < d.size() && d[i].compare(0, 2, "@@") != 0; ++i) {
      const char op = d[i].empty() ? ' ' : d[i][0];
      const std::string_view text = d[i].substr(1);
      if (op == '+') {
        out.append(text).append("\n");
        continue;
      }
      if (next >= lines.size() || lines[next] != text) return *ok = false, "";
      if (op == ' ') out.append(text).append("\n");
      ++next;
    }
  }
  for (; next < lines.size(); ++next) out.append(lines[next]).append("\n");
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + "\n";
  return s;
}

}  // namespace

TEST_CASE("line diff: applying the diff to the first text gives the second, over random edits") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    std::vector<std::string> a;
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) a.push_back("line " + std::to_string(rng() % 12));  // repeats: many equal lines
    std::vector<std::string> b = a;
    const int edits = static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      const size_t at = b.empty() ? 0 : rng() % (b.size() + 1);
      switch (rng() % 3) {
        case 0: b.insert(b.begin() + static_cast<long>(at), "new " + std::to_string(rng() % 5)); break;
        case 1: if (at < b.size()) b.erase(b.begin() + static_cast<long>(at)); break;
        default: if (at < b.size()) b[at] = "changed " + std::to_string(rng() % 5); break;
      }
    }
    const std::string ta = join(a), tb = join(b);
    const pa::line_diff_result r = pa::unified_diff(ta, tb, "a", "b");
    CHECK(r.same == (ta == tb));
    if (r.same) continue;
    REQUIRE_FALSE(r.too_large);
    bool ok = false;
    CHECK(apply(ta, r.text, &ok) == tb);
    CHECK(ok);
    CHECK(r.added + r.removed <= static_cast<size_t>(2 * edits));  // no worse than the edits made
  }
}

TEST_CASE("line diff: a known minimal diff") {
  const pa::line_diff_result r = pa::unified_diff("a\nb\nc\nd\n", "a\nx\nc\nd\ne\n", "A", "B", 1);
  CHECK(r.text == "--- A\n+++ B\n@@ -1,4 +1,5 @@\n a\n-b\n+x\n c\n d\n+e\n");
  CHECK(r.added == 2);
  CHECK(r.removed == 1);
}

TEST_CASE("line diff: past the cap it is refused at once") {
  // every line of 25000 rewritten (a renaming pass): the sets of lines already differ by
  // more than the cap, so no search runs (it would hold gigabytes of frontiers)
  std::vector<std::string> a, b;
  for (int i = 0; i < 25000; ++i) a.push_back("%v" + std::to_string(i) + " = add"), b.push_back("%w" + std::to_string(i) + " = add");
  const auto t0 = std::chrono::steady_clock::now();
  const pa::line_diff_result r = pa::unified_diff(join(a), join(b), "a", "b");
  CHECK(r.too_large);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  // just under the cap, the search runs and is right
  std::vector<std::string> c = a;
  for (int i = 0; i < 2000; ++i) c[static_cast<size_t>(i * 12)] = "moved " + std::to_string(i);
  const pa::line_diff_result s = pa::unified_diff(join(a), join(c), "a", "c");
  REQUIRE_FALSE(s.too_large);
  CHECK(s.added == 2000);
  CHECK(s.removed == 2000);
  bool ok = false;
  CHECK(apply(join(a), s.text, &ok) == join(c));
}
