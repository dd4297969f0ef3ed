// probe compare on dumps of ops that write one buffer in parts, in place, declaring it only
// as their output after the kernel (tests/support/inplace_solver.hpp): the implicit input of
// each in-place op is its producers' record, so a bug in the second writer (collision) is the
// one root cause, as is a bug in the first (bounce-back), and nothing is blamed on code
// outside any op.
#include <doctest/doctest.h>

#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

#include <probe/probe.hpp>

#include <cstdio>
#include <string>

#include "../support/capture.hpp"
#include "../support/inplace_solver.hpp"
#include "compare_checked.hpp"

namespace pa = probe::analysis;
namespace is = inplace_solver;
using probe_test::temp_dir;

namespace {

using compare_test::read_file;

void dump(const std::string& dir, is::plant bug) {
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  is::solver s;
  s.run(bug);
  probe::set_flags("");  // closes the run
}

}  // namespace

TEST_CASE("in-place writers: the implicit input found after the kernel names its producers, not memory") {
  temp_dir d;
  dump(d / "run", is::plant::none);
  const std::string m = read_file(d / "run/manifest.jsonl");
  // collision#1's prior state: both walls from bounce-back, the fluid cells from stream
  const size_t at = m.find(R"("key":"collision#1/in/cells")");
  REQUIRE(at != std::string::npos);
  const std::string line = m.substr(m.rfind('\n', at) + 1, m.find('\n', at) - m.rfind('\n', at) - 1);
  CHECK(line.find(R"("implicit":true,"prior":"producers")") != std::string::npos);
  CHECK(line.find(R"({"key":"bounce_back#1/out/west","bytes":16,"offset":0})") != std::string::npos);
  // the fluid cells are bytes 16.. of what stream wrote: "at" says where in its output
  CHECK(line.find(R"({"key":"stream#1/out/cells","bytes":96,"offset":16,"at":16})") != std::string::npos);
  CHECK(line.find(R"({"key":"bounce_back#1/out/east","bytes":16,"offset":112})") != std::string::npos);
  // not read: no file, no statistics, no hash
  CHECK(line.find(R"("file":null)") != std::string::npos);
  CHECK(line.find(R"("stats":null)") != std::string::npos);
  CHECK(line.find(R"("hash")") == std::string::npos);
}

TEST_CASE("in-place writers: a bug in collision or in bounce-back is the one root cause, with no outside-op hint") {
  temp_dir d;
  dump(d / "good", is::plant::none);
  {
    const pa::compare_report same = pa::compare_paths(d / "good", d / "good", pa::compare_settings());
    REQUIRE(same.error.empty());
    CHECK(same.exit_code() == 0);
    CHECK(same.counts.no_data == 0);  // implicit inputs take their producers' verdict
  }
  for (is::plant bug : {is::plant::collide, is::plant::bounce}) {
    const std::string name = bug == is::plant::collide ? "collide" : "bounce";
    CAPTURE(name);
    dump(d / name, bug);
    const pa::compare_report r = pa::compare_paths(d / name, d / "good", pa::compare_settings());
    INFO(pa::compare_text(r));
    REQUIRE(r.error.empty());
    CHECK(r.exit_code() == 1);
    REQUIRE(r.runs.size() == 1);
    const pa::compared_run& run = r.runs[0];
    REQUIRE(run.graph.roots.size() == 1);
    const pa::root_cause& root = run.graph.roots[0];
    CHECK(root.kind == pa::root_kind::op);
    CHECK(run.graph.nodes[root.node].op_key == (bug == is::plant::collide ? "collision#1" : "bounce_back#1"));
    CHECK(run.graph.hints.empty());
    CHECK(run.graph.unexplained.empty());
    const std::string text = pa::compare_text(r);
    CHECK(text.find("outside any op") == std::string::npos);
  }
}
