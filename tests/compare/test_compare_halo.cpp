// probe compare on dumps written by the library itself, from code shaped like a domain-
// decomposed solver: two subdomains with halo cells, a halo exchange that writes only the
// halo cells of buffers the stencils produced, ping-pong buffers reused every step, and a
// damping line outside any op that changes bytes between their producer and their consumer.
// A bug planted in either kind of op must be the one root cause, with the right reach, and
// the unmarked code a hint, never a root.
#include <doctest/doctest.h>

#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

#include <probe/probe.hpp>

#include <cstdio>
#include <set>

#include "../support/capture.hpp"
#include "compare_checked.hpp"

namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;
using compare_test::read_file;

enum class halo_bug { none, halo, stencil };

constexpr int k_cells = 6;  // interior cells per subdomain; a buffer is [halo | interior | halo]
constexpr int k_steps = 4;
constexpr int k_bug_step = 1;

struct solver {
  std::vector<float> u[2][2];  // [side][ping-pong]
  int cur = 0;

  solver() {
    for (int side = 0; side < 2; ++side)
      for (int b = 0; b < 2; ++b) {
        u[side][b].assign(k_cells + 2, 0.f);
        for (int i = 1; i <= k_cells; ++i) u[side][b][i] = static_cast<float>((side * k_cells + i) % 5);
      }
  }

  // Writes the four halo cells of the current buffers: one partial output per cell.
  void halo_exchange(int step, halo_bug bug) {
    std::vector<float>& l = u[0][cur];
    std::vector<float>& r = u[1][cur];
    probe::op op("halo_exchange", "Halo");
    op.input("left_edge", probe::view(l.data() + k_cells, 1)).input("right_edge", probe::view(r.data() + 1, 1));
    l[k_cells + 1] = r[1];
    r[0] = l[k_cells];
    l[0] = l[1];        // closed outer walls: mirror the edge cell
    r[k_cells + 1] = r[k_cells];
    if (bug == halo_bug::halo && step == k_bug_step) r[0] += 0.5f;
    op.output("left_east", probe::view(l.data() + k_cells + 1, 1)).output("left_west", probe::view(l.data(), 1));
    op.output("right_west", probe::view(r.data(), 1)).output("right_east", probe::view(r.data() + k_cells + 1, 1));
  }

  // Diffuses one subdomain into the interior of its other buffer (the halos there are stale
  // until the next exchange writes them).
  void stencil(int side, int step, halo_bug bug) {
    const std::vector<float>& in = u[side][cur];
    std::vector<float>& out = u[side][1 - cur];
    probe::op op(side == 0 ? "stencil_left" : "stencil_right", "Stencil");
    op.input("u", in);
    for (int i = 1; i <= k_cells; ++i) out[i] = in[i] + 0.25f * (in[i - 1] - 2 * in[i] + in[i + 1]);
    if (bug == halo_bug::stencil && side == 1 && step == k_bug_step) out[1] += 0.5f;  // the west edge
    op.output("v", probe::view(out.data() + 1, k_cells));
  }

  void run(halo_bug bug) {
    for (int step = 0; step < k_steps; ++step) {
      probe::set_step(step);
      halo_exchange(step, bug);
      stencil(0, step, bug);
      stencil(1, step, bug);
      cur = 1 - cur;
      // Damping at the outer wall, outside any op: the next stencil_left reads bytes that
      // stencil_left did not write.
      u[0][cur][1] *= 0.5f;
    }
    float total[1] = {0};
    probe::op op("total", "Sum");
    op.input("left", probe::view(u[0][cur].data() + 1, k_cells)).input("right", probe::view(u[1][cur].data() + 1, k_cells));
    for (int i = 1; i <= k_cells; ++i) total[0] += u[0][cur][i] + u[1][cur][i];
    op.output("y", probe::view(total, 1));
  }
};

void dump(const std::string& dir, halo_bug bug) {
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  solver s;
  s.run(bug);
  probe::set_flags("");  // closes the run
}

std::vector<std::string> root_keys(const pa::compared_run& run) {
  std::vector<std::string> out;
  for (const pa::root_cause& r : run.graph.roots) out.push_back(run.graph.nodes[r.node].op_key);
  return out;
}

std::set<std::string> reach_of(const pa::compared_run& run, const pa::root_cause& r) {
  std::set<std::string> out;
  for (size_t n : r.reaches) out.insert(run.graph.nodes[n].op_key);
  return out;
}

}  // namespace

TEST_CASE("halo exchange: the library records partial writes per byte range and the damping as outside any op") {
  temp_dir d;
  dump(d / "run", halo_bug::none);
  const std::string m = read_file(d / "run/manifest.jsonl");
  // stencil_right#2 reads a buffer written by three ops: its interior by stencil_right#0
  // (two steps back: ping-pong), its west halo by halo_exchange#2, its east halo too.
  CHECK(m.find(R"("key":"halo_exchange#2/out/right_west")") != std::string::npos);
  CHECK(m.find(R"({"key":"halo_exchange#2/out/right_west","bytes":4,"offset":0})") != std::string::npos);
  CHECK(m.find(R"({"key":"stencil_right#0/out/v","bytes":24,"offset":4})") != std::string::npos);
  // the damping changed bytes stencil_left wrote before stencil_left read them again
  CHECK(m.find(R"("stale")") != std::string::npos);
}

TEST_CASE("halo exchange: a bug in the exchange or in a stencil is the one root cause") {
  temp_dir d;
  dump(d / "good", halo_bug::none);
  {
    const pa::compare_report same = compare(d / "good", d / "good");
    CHECK(same.exit_code() == 0);
  }
  for (halo_bug bug : {halo_bug::halo, halo_bug::stencil}) {
    const std::string name = bug == halo_bug::halo ? "halo" : "stencil";
    CAPTURE(name);
    dump(d / name, bug);
    const pa::compare_report r = compare(d / name, d / "good");
    CHECK(r.exit_code() == 1);
    REQUIRE(r.runs.size() == 1);
    const pa::compared_run& run = r.runs[0];
    // step 1 is each op's second occurrence
    const std::string culprit = bug == halo_bug::halo ? "halo_exchange#1" : "stencil_right#1";
    REQUIRE(root_keys(run) == std::vector<std::string>{culprit});
    const std::set<std::string> reach = reach_of(run, run.graph.roots[0]);
    // The wrong west halo of the right side is read by stencil_right at the same step; a
    // wrong right interior crosses to the left side through the next exchange.
    if (bug == halo_bug::halo) {
      CHECK(reach.count("stencil_right#1") == 1);
    } else {
      CHECK(reach.count("halo_exchange#2") == 1);
      CHECK(reach.count("stencil_left#2") == 1);
      CHECK(reach.count("stencil_right#1") == 0);  // the culprit itself
    }
    CHECK(reach.count("total#0") == 1);
    CHECK(run.graph.unexplained.empty());
    // The damping outside any op is the same in both runs: a hint at most, never a root.
    for (const pa::graph_hint& h : run.graph.hints) CHECK(h.kind == pa::hint_kind::outside_op);
    const std::string text = pa::compare_text(r);
    CHECK(text.find("Root cause: op stencil_left") == std::string::npos);
    CHECK(text.find("changed in between") == std::string::npos);
  }
}
