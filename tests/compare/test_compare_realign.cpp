// Runs whose op sequences differ by an execution, and code outside any op over bytes that
// already differ: the root is the planted op, and no hint blames code that did not cause the
// difference. Dumped by the library, compared through the analysis API.
#include <doctest/doctest.h>

#include <probe/probe.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/compare_json.hpp"
#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"
#include "../support/capture.hpp"
#include "compare_checked.hpp"

namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;

constexpr int k_realign_n = 16;

void affine(const char* name, const std::vector<float>& x, std::vector<float>& y, float a, float b, float bug = 0) {
  probe::op op(name, "Affine");
  op.attr("a", a).attr("b", b);
  op.input("x", probe::view(x.data(), {k_realign_n}));
  for (int i = 0; i < k_realign_n; ++i) y[static_cast<size_t>(i)] = a * x[static_cast<size_t>(i)] + b;
  y[3] += bug;
  op.output("y", probe::view(y.data(), {k_realign_n}));
}

void load(std::vector<float>& x) {
  probe::op op("input", "Load");
  for (int i = 0; i < k_realign_n; ++i) x[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i) - 1.0f;
  op.output("x", probe::view(x.data(), {k_realign_n}));
}

// input -> proj (x) -> [proj again on x, in A or in B only] -> mid -> proj (mid's output),
// dumped to d/a and d/b; mid is wrong by `mid_bug_in_a` in A.
void proj_twice_in_one_run(const temp_dir& d, bool extra_in_a, float mid_bug_in_a) {
  for (int side = 0; side < 2; ++side) {
    const bool in_a = side == 0;
    probe::set_flags(("--probe_dump_to=" + std::string(d / (in_a ? "a" : "b")) + " --probe_dump_as_npy").c_str());
    std::vector<float> x(k_realign_n), p(k_realign_n), extra(k_realign_n), m(k_realign_n), q(k_realign_n);
    load(x);
    affine("proj", x, p, 2.0f, 0.5f);
    if (in_a == extra_in_a) affine("proj", x, extra, 2.0f, 0.5f);
    affine("mid", p, m, -1.0f, 1.0f, in_a ? mid_bug_in_a : 0.0f);
    affine("proj", m, q, 2.0f, 0.5f);
    probe::set_flags("");
  }
}

}  // namespace

TEST_CASE("realign: one more execution of an op in A pairs the later executions with what they computed") {
  // A runs proj once more on x (a check); mid is the planted bug
  temp_dir d;
  proj_twice_in_one_run(d, /*extra_in_a=*/true, /*mid_bug_in_a=*/0.75f);
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(run.graph.nodes[run.graph.roots[0].node].op_key == "mid#0");
  CHECK(run.graph.hints.empty());
  // A's check (proj#1) is the op only in A; A's proj#2 pairs with B's proj#1
  REQUIRE(run.findings.align.only_a.size() == 1);
  CHECK(run.graph.nodes[run.findings.align.only_a[0]].op_key == "proj#1");
  CHECK(run.findings.align.only_b.empty());
  for (const pa::compared_pair& p : run.pairs)
    if (p.op_key() == "proj#2") CHECK_MESSAGE(p.b.present, p.key);
}

TEST_CASE("realign: code outside any op over bytes their writer already got wrong is named, not blamed") {
  // gen writes y (wrong in A); code outside any op halves part of y in both runs; use reads y
  temp_dir d;
  for (int side = 0; side < 2; ++side) {
    const bool in_a = side == 0;
    probe::set_flags(("--probe_dump_to=" + std::string(d / (in_a ? "a" : "b")) + " --probe_dump_as_npy").c_str());
    std::vector<float> x(k_realign_n), y(k_realign_n), z(k_realign_n);
    load(x);
    affine("gen", x, y, 3.0f, 0.0f, in_a ? 0.5f : 0.0f);
    for (int i = 0; i < k_realign_n / 2; ++i) y[static_cast<size_t>(i)] *= 0.5f;  // the same in both runs
    affine("use", y, z, 1.5f, 0.0f);
    probe::set_flags("");
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.graph.roots.size() == 1);
  const pa::root_cause& root = run.graph.roots[0];
  CHECK(run.graph.nodes[root.node].op_key == "gen#0");
  for (const pa::graph_hint& h : run.graph.hints) CHECK(h.differing == 0);
  CHECK(text.find("(it differs)") == std::string::npos);
  bool use_reached = false;
  for (size_t n : root.reaches) use_reached = use_reached || run.graph.nodes[n].op == "use";
  CHECK(use_reached);
  CHECK(run.graph.unexplained.empty());
}

TEST_CASE("realign: an execution only in B is named by B's own key") {
  // B runs proj once more on x: A's later proj pairs with B's later one, and B's extra
  // execution is listed as B's manifest names it (proj#1), not by a key neither dump has.
  temp_dir d;
  proj_twice_in_one_run(d, /*extra_in_a=*/false, /*mid_bug_in_a=*/0.0f);
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.findings.align.only_b.size() == 1);
  CHECK(pa::own_op_key(run.graph.nodes[run.findings.align.only_b[0]]) == "proj#1");
  CHECK(text.find("1 only in B (proj#1 (seq") != std::string::npos);
  CHECK(text.find("proj#1/out/y") != std::string::npos);
  CHECK(text.find("proj#3") == std::string::npos);
  CHECK(pa::compare_json(r).find("\"only_b\":[\"proj#1\"]") != std::string::npos);
}

TEST_CASE("realign: the op a killed run stopped inside pairs with its execution in the finished run") {
  // Both runs apply stencil four times (an attribute, an input, an output). A is killed
  // inside stencil#2: its input is recorded; its attributes and output (written at the op's
  // end) and the end record are not. A's stencil#2 is B's stencil#2, not an op of its own.
  temp_dir d;
  for (int side = 0; side < 2; ++side) {
    probe::set_flags(("--probe_dump_to=" + std::string(d / (side == 0 ? "a" : "b")) +
                      " --probe_dump_as_npy --probe_dump_threads=0").c_str());
    std::vector<float> u(k_realign_n), v(k_realign_n);
    load(u);
    for (int step = 0; step < 4; ++step) {
      affine("stencil", u, v, 0.5f, 0.25f);
      u.swap(v);
    }
    probe::set_flags("");
  }
  // A as killed: the records before stencil#2's output but for its attributes (records are in
  // seq order with --probe_dump_threads=0)
  const std::string path = d / "a" + std::string("/manifest.jsonl");
  std::string cut;
  {
    const std::string manifest = compare_test::read_file(path);
    size_t at = 0;
    for (size_t next; at < manifest.size(); at = next) {
      next = manifest.find('\n', at);
      next = next == std::string::npos ? manifest.size() : next + 1;
      const std::string line = manifest.substr(at, next - at);
      if (line.find("\"key\":\"stencil#2/out/") != std::string::npos) break;
      if (line.find("\"key\":\"stencil#2\"") != std::string::npos) continue;  // its attributes (where
      // an engine sets them as the kernel ends, they are never written)
      cut += line;
    }
    REQUIRE(cut.find("\"key\":\"stencil#2/in/x\"") != std::string::npos);
    FILE* f = std::fopen(path.c_str(), "w");
    REQUIRE(f);
    std::fputs(cut.c_str(), f);
    std::fclose(f);
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run = r.runs[0];
  CHECK(run.findings.align.only_a.empty());
  bool input_paired = false;
  for (const pa::compared_pair& p : run.pairs) {
    CHECK_MESSAGE(p.status != pa::pair_status::only_a, p.key);
    if (p.key == "stencil#2/in/x") input_paired = p.status == pa::pair_status::ok;
  }
  CHECK(input_paired);
  CHECK(text.find("only in A") == std::string::npos);
  CHECK(run.graph.roots.empty());
}
