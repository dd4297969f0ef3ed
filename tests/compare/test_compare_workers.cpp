// Worker threads that adopt an op's context (a pool computing tiles of one op) start their
// ops in any order: compare pairs each tile with the tile of the other run that read the same
// data, and the op that encloses them ends after them. Dumped by the library, compared through
// the analysis API.
#include <doctest/doctest.h>

#include <probe/probe.hpp>

#include <string>
#include <thread>
#include <vector>

#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"
#include "../support/capture.hpp"
#include "compare_checked.hpp"

namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;
using compare_test::has_note;

constexpr int k_worker_n = 12, k_tiles = 3, k_rows = k_worker_n / k_tiles;

// y = scale * x + shift, computed by k_tiles workers started in `order`, each marking its own
// op "<name>.tile" over its rows. `bad_tile`: the tile whose first element is off by `bug`.
void tiled(const char* name, const std::vector<double>& x, std::vector<double>& y, double scale, double shift,
           const int order[k_tiles], int bad_tile = -1, double bug = 0) {
  probe::op op(name, "Affine");
  op.input("x", probe::view(x.data(), {k_worker_n}));
  const probe::op_context ctx = probe::current_op_context();
  const std::string tile = std::string(name) + ".tile";
  for (int k = 0; k < k_tiles; ++k) {
    const int t = order[k];
    std::thread worker([&, t] {
      probe::adopt_op_context adopt(ctx);
      probe::op w(tile.c_str(), "Affine");
      const double* in = x.data() + t * k_rows;
      double* out = y.data() + t * k_rows;
      w.input("x", probe::view(in, {k_rows}));
      for (int i = 0; i < k_rows; ++i) out[i] = scale * in[i] + shift;
      if (t == bad_tile) out[0] += bug;
      w.output("y", probe::view(out, {k_rows}));
    });
    worker.join();
  }
  op.output("y", probe::view(y.data(), {k_worker_n}));
}

void plain(const char* name, const std::vector<double>& x, std::vector<double>& y, double scale) {
  probe::op op(name, "Scale");
  op.input("x", probe::view(x.data(), {k_worker_n}));
  for (int i = 0; i < k_worker_n; ++i) y[static_cast<size_t>(i)] = scale * x[static_cast<size_t>(i)];
  op.output("y", probe::view(y.data(), {k_worker_n}));
}

// input -> layer0 (tiled) -> layer1 (tiled, reads what layer0's tiles wrote) -> shrink -> grow.
// shrink scales the difference below the tolerance, grow scales it back above.
// warm_h: an op first writes h, unread, as a block the allocator handed out again would hold
// an earlier request's output: layer0's tiles then record implicit prior states in this run.
void run(const std::string& dir, const int order0[k_tiles], const int order1[k_tiles], int bad_tile, double bug,
         bool warm_h = false) {
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  std::vector<double> x(k_worker_n), h(k_worker_n), y(k_worker_n), s(k_worker_n), g(k_worker_n), elsewhere(k_worker_n);
  {
    probe::op op("input", "Load");
    for (int i = 0; i < k_worker_n; ++i) x[static_cast<size_t>(i)] = 0.5 * i - 2.0;
    op.output("x", probe::view(x.data(), {k_worker_n}));
  }
  {
    probe::op op("warm", "Fill");
    std::vector<double>& w = warm_h ? h : elsewhere;
    for (double& v : w) v = 7;
    op.output("y", probe::view(w.data(), {k_worker_n}));
  }
  tiled("layer0", x, h, 2.0, 1.0, order0, bad_tile, bug);
  tiled("layer1", h, y, -0.5, 3.0, order1);
  plain("shrink", y, s, 1e-6);
  plain("grow", s, g, 1e6);
  probe::set_flags("");
}

// The key of the layer0 tile that read rows [t * k_rows, ...) of x in `run`.
std::string tile_reading(const pa::compared_run& run, int t) {
  for (const pa::compared_pair& p : run.pairs)
    if (p.is_input && p.op == "layer0.tile")
      for (const pa::dump_producer& from : p.producers)
        if (from.at == static_cast<uint64_t>(t * k_rows) * sizeof(double)) return p.op_key();
  return "";
}

}  // namespace

TEST_CASE("workers: tiles started in another order pair by the rows they read; the bad tile is the single root") {
  temp_dir d;
  const int in_order[k_tiles] = {0, 1, 2}, shuffled[k_tiles] = {2, 0, 1}, other[k_tiles] = {1, 2, 0};
  run(d / "a", shuffled, other, 1, 0.5);
  run(d / "b", in_order, in_order, -1, 0);
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  REQUIRE(r.runs.size() == 1);
  const pa::compared_run& run = r.runs[0];
  CHECK(has_note(r, "worker threads began their ops in another order in B"));
  REQUIRE(run.graph.roots.size() == 1);
  const pa::root_cause& root = run.graph.roots[0];
  CHECK(root.kind == pa::root_kind::op);
  CHECK(run.graph.nodes[root.node].op_key == tile_reading(run, 1));
  CHECK(run.graph.hints.empty());
  // only the bad tile and what read its rows differ: the other tiles pair with their own rows
  for (const pa::compared_pair& p : run.pairs) {
    if (p.op != "layer0.tile" && p.op != "layer1.tile") continue;
    const bool reads_bad_rows = p.op == "layer1.tile" && p.is_input && !p.producers.empty() &&
                                p.producers[0].key == tile_reading(run, 1) + "/out/y";
    if (p.is_input && p.op == "layer0.tile") CHECK_MESSAGE(p.status == pa::pair_status::ok, p.key);
    if (reads_bad_rows) CHECK_MESSAGE(p.status == pa::pair_status::mismatch, p.key);
  }
  // grow brings shrink's passing difference back over the tolerance: part of the tile's reach
  bool grow_reached = false;
  for (size_t n : root.reaches) grow_reached = grow_reached || run.graph.nodes[n].op == "grow";
  CHECK(grow_reached);
}

TEST_CASE("workers: the same order in both runs pairs by key and notes nothing") {
  temp_dir d;
  const int order[k_tiles] = {2, 0, 1};
  run(d / "a", order, order, 2, 0.5);
  run(d / "b", order, order, -1, 0);
  const pa::compare_report r = compare(d / "a", d / "b");
  INFO(pa::compare_text(r));
  CHECK_FALSE(has_note(r, "worker threads"));
  REQUIRE(r.runs[0].graph.roots.size() == 1);
  CHECK(r.runs[0].graph.nodes[r.runs[0].graph.roots[0].node].op_key == "layer0.tile#0");
}

TEST_CASE("workers: ops one thread runs in sequence keep their order, even when their reads would pair otherwise") {
  // one thread reads w1 then w0 in A and w0 then w1 in B (a swapped load): pairing by what
  // they read would hide it; the program's order is the pairing, and the difference shows
  temp_dir d;
  const std::vector<double> w0(k_worker_n, 1.0), w1(k_worker_n, 2.0);
  for (int swapped = 0; swapped < 2; ++swapped) {
    probe::set_flags(("--probe_dump_to=" + std::string(d / (swapped ? "a" : "b")) + " --probe_dump_as_npy").c_str());
    std::vector<double> y0(k_worker_n), y1(k_worker_n);
    {
      probe::op parent("attn", "Attention");
      const std::vector<double>* ws[2] = {swapped ? &w1 : &w0, swapped ? &w0 : &w1};
      std::vector<double>* ys[2] = {&y0, &y1};
      for (int k = 0; k < 2; ++k) {
        probe::op proj("proj", "Proj");
        proj.input("w", probe::view(ws[k]->data(), {k_worker_n}));
        for (int i = 0; i < k_worker_n; ++i) (*ys[k])[static_cast<size_t>(i)] = 3.0 * (*ws[k])[static_cast<size_t>(i)];
        proj.output("y", probe::view(ys[k]->data(), {k_worker_n}));
      }
    }
    probe::set_flags("");
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  INFO(pa::compare_text(r));
  CHECK(r.exit_code() == 1);
  CHECK_FALSE(has_note(r, "worker threads"));
  size_t mismatched = 0;
  for (const pa::compared_pair& p : r.runs[0].pairs) mismatched += p.op == "proj" && p.status == pa::pair_status::mismatch;
  CHECK(mismatched == 4);  // both projections' weights and outputs
}

TEST_CASE("workers: tiles with an implicit prior state in one run only pair by what they were given") {
  // A's tiles overwrite an unread output (their prior states are inferred), B's do not: the
  // tiles still pair by the rows they read, and those prior states are not "only in A"
  for (double bug : {0.0, 0.5}) {
    CAPTURE(bug);
    temp_dir d;
    const int in_order[k_tiles] = {0, 1, 2}, shuffled[k_tiles] = {2, 0, 1};
    run(d / "a", shuffled, in_order, bug > 0 ? 1 : -1, bug, true);
    run(d / "b", in_order, in_order, -1, 0, false);
    const pa::compare_report r = compare(d / "a", d / "b");
    const std::string text = pa::compare_text(r);
    INFO(text);
    REQUIRE(r.runs.size() == 1);
    const pa::compared_run& run = r.runs[0];
    size_t implicit = 0;
    for (const pa::compared_pair& p : run.pairs) {
      CHECK_MESSAGE(p.status != pa::pair_status::only_a, p.key);
      if (p.implicit && p.op == "layer0.tile") {
        ++implicit;
        CHECK(p.status == pa::pair_status::no_data);
      }
    }
    CHECK(implicit == k_tiles);
    if (bug > 0) {
      REQUIRE(run.graph.roots.size() == 1);
      CHECK(run.graph.nodes[run.graph.roots[0].node].op_key == tile_reading(run, 1));
    } else {
      CHECK(r.exit_code() == 0);
    }
    CHECK(run.graph.hints.empty());
  }
}
