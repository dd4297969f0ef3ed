// probe compare's answers when every op is its own root (benchmarks/README.md, "compare:
// many root causes"): N independent ops, each reading a matching graph input and writing an
// output out of tolerance, built in memory (no files: only the graph answers and the report
// are timed). The work should grow with N, not N^2: the time per root at 40k against 10k is
// the ratio recorded.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/compare_json.hpp"
#include "analysis/compare_text.hpp"
#include "report_case.hpp"  // tests/compare: the ops

namespace roots_case {

struct timing {
  double graph_s = 0, text_s = 0, json_s = 0;
  size_t roots = 0, text_bytes = 0, json_bytes = 0;
  double total() const { return graph_s + text_s + json_s; }
};

// The graph answers, then the text report, then the JSON report of n independent differing ops.
inline timing time_roots(size_t n) {
  namespace pa = probe::analysis;
  pa::compare_report r;
  r.kind = "dumps";
  r.runs.push_back(compare_test::independent_pairs(n));
  pa::count_pairs(&r);
  const auto t0 = std::chrono::steady_clock::now();
  pa::compared_run& run = r.runs[0];
  run.graph = pa::analyze_graph(run.pairs);
  run.findings = pa::find_more(run.pairs, &run.graph);
  const auto t1 = std::chrono::steady_clock::now();
  const size_t text = pa::compare_text(r).size();
  const auto t2 = std::chrono::steady_clock::now();
  const size_t json = pa::compare_json(r).size();
  const auto t3 = std::chrono::steady_clock::now();
  timing t;
  t.graph_s = std::chrono::duration<double>(t1 - t0).count();
  t.text_s = std::chrono::duration<double>(t2 - t1).count();
  t.json_s = std::chrono::duration<double>(t3 - t2).count();
  t.roots = run.graph.roots.size();
  t.text_bytes = text;
  t.json_bytes = json;
  return t;
}

// Prints the times at 10k, 20k and 40k roots (quick: 1k, 2k, 4k), the best of three runs
// each (the machine is shared), the time per root at the largest against the smallest, and
// the whole at the largest against the 1 s target; false when the roots found are not one
// per op.
inline bool run(bool quick) {
  const size_t base = quick ? 1000 : 10000;
  std::vector<timing> t;
  for (size_t k : {1, 2, 4}) {
    timing best;
    for (int rep = 0; rep < (quick ? 1 : 3); ++rep) {
      const timing x = time_roots(base * k);
      if (rep == 0 || x.total() < best.total()) best = x;
    }
    t.push_back(best);
    std::printf("%zu independent differing ops: graph + findings %.3f s, text %.3f s (%.1f MB), JSON %.3f s (%.1f MB), "
                "%zu roots\n",
                base * k, best.graph_s, best.text_s, static_cast<double>(best.text_bytes) / 1e6, best.json_s,
                static_cast<double>(best.json_bytes) / 1e6, best.roots);
    if (best.roots != base * k) return false;
  }
  const double small = t[0].total() / static_cast<double>(base);
  const double large = t[2].total() / static_cast<double>(4 * base);
  std::printf("%-48s %.2f  (1: linear; 4: quadratic)\n", "time per root, 4x the roots / 1x", large / small);
  std::printf("%-48s %.3f s  (target < 1 s at 40k)\n", "answers + text + JSON, largest", t[2].total());
  return true;
}

}  // namespace roots_case
