// The text or JSON report of n independent root causes, or the whole comparison of two
// manifest-only dumps of them (read, paired, answered, text report), for check_report_cost.py
// to count the instructions of under callgrind. A case of test_compare, which compiles the
// compare engine anyway, skipped in the suite's runs; the script runs it alone:
//   PROBE_REPORT_COST="text|json|whole N" test_compare --no-skip -tc="report cost*"
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "analysis/compare_json.hpp"
#include "analysis/compare_text.hpp"
#include "report_case.hpp"

namespace report_cost {

bool write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

// Two dumps of n independent roots in a fresh temporary folder, compared on one thread (the
// count is then the same from run to run), then removed. Returns the root causes found.
size_t whole(size_t n) {
  const char* tmp = std::getenv("TMPDIR");
  std::string root = std::string(tmp && *tmp ? tmp : "/tmp") + "/probe_compare_cost_XXXXXX";
  if (!mkdtemp(&root[0])) return 0;
  const std::string a = root + "/a", b = root + "/b";
  bool ok = mkdir(a.c_str(), 0700) == 0 && mkdir(b.c_str(), 0700) == 0 &&
            write_file(a + "/manifest.jsonl", compare_test::independent_roots_manifest(n, false)) &&
            write_file(b + "/manifest.jsonl", compare_test::independent_roots_manifest(n, true));
  size_t bytes = 0, roots = 0;
  if (ok) {
    probe::analysis::compare_settings s;
    s.threads = 1;
    const probe::analysis::compare_report r = probe::analysis::compare_paths(a, b, s);
    bytes = probe::analysis::compare_text(r).size();
    for (const probe::analysis::compared_run& run : r.runs) roots += run.graph.roots.size();
    ok = r.error.empty();
  }
  for (const std::string& f : {a + "/manifest.jsonl", b + "/manifest.jsonl"}) unlink(f.c_str());
  for (const std::string& d : {a, b, root}) rmdir(d.c_str());
  std::printf("%zu bytes, %zu root causes\n", bytes, roots);
  return ok ? roots : 0;
}

}  // namespace report_cost

TEST_CASE("report cost of n independent roots (check_report_cost.py)" * doctest::skip()) {
  const char* what = std::getenv("PROBE_REPORT_COST");
  REQUIRE(what != nullptr);
  char mode[8] = {};
  size_t n = 0;
  REQUIRE(std::sscanf(what, "%7s %zu", mode, &n) == 2);
  if (std::strcmp(mode, "whole") == 0) {
    CHECK(report_cost::whole(n) == n);
    return;
  }
  REQUIRE((std::strcmp(mode, "text") == 0 || std::strcmp(mode, "json") == 0));
  const probe::analysis::compare_report r = compare_test::independent_roots(n);
  const std::string out = std::strcmp(mode, "json") == 0 ? probe::analysis::compare_json(r) : probe::analysis::compare_text(r);
  std::printf("%zu bytes\n", out.size());
  CHECK(!out.empty());
}
