// The text or JSON report of n independent root causes, for check_report_cost.py to count the
// instructions of under callgrind: compare_report_cost text|json N.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "analysis/compare_json.hpp"
#include "analysis/compare_text.hpp"
#include "report_case.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: compare_report_cost text|json N\n");
    return 2;
  }
  const probe::analysis::compare_report r = compare_test::independent_roots(std::strtoul(argv[2], nullptr, 10));
  const bool json = std::strcmp(argv[1], "json") == 0;
  const std::string out = json ? probe::analysis::compare_json(r) : probe::analysis::compare_text(r);
  std::printf("%zu bytes\n", out.size());
  return out.empty();
}
