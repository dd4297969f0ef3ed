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
#include "unified_diff_apply.hpp"

namespace pa = probe::analysis;

namespace {

std::string apply(const std::string& a, const std::string& diff, bool* ok) {
  std::string out;
  *ok = diff_apply::apply(a, diff, &out);
  return *ok ? out : std::string();
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

TEST_CASE("line diff: a last line without its newline, as diff -u marks it") {
  const pa::line_diff_result r = pa::unified_diff("a\nb", "a\nb\n", "A", "B");
  CHECK_FALSE(r.same);
  CHECK(r.text == "--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  CHECK(r.added == 1);
  CHECK(r.removed == 1);
  for (const char* x : {"", "a", "a\n", "a\nb", "b\na", "\n", "\n\n", "a\n\nb"})
    for (const char* y : {"", "a", "a\n", "a\nb", "b\na", "\n", "\n\n", "a\n\nb"}) {
      CAPTURE(x);
      CAPTURE(y);
      const pa::line_diff_result d = pa::unified_diff(x, y, "x", "y", 1);
      CHECK(d.same == (std::string(x) == y));
      if (d.same) continue;
      bool ok = false;
      CHECK(apply(x, d.text, &ok) == y);
      CHECK(ok);
    }
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
