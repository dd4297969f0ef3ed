// probe compare on results an op leaves in a scratch of its own and then copies into place
// (C code computing into a malloc'd buffer, declaring it, memcpy-ing it into the engine's
// array): the bytes a later op reads were declared by no op. Neither the copy nor a worker
// reading part of it is code outside any op or a graph input. Dumped by the library.
#include <doctest/doctest.h>

#include <probe/probe.hpp>

#include <cstring>
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
using compare_test::flat_text;
using compare_test::has_note;

constexpr int k_copied_n = 12, k_copied_parts = 3, k_copied_rows = k_copied_n / k_copied_parts;

// `load` computes into a scratch, declares it, and copies it into x (or, `zeros`, computes
// zeros, and code outside any op clears x after it); `layer` reads x through `k_copied_parts`
// workers started in `order`, each over its rows; `scale` reads what layer wrote. Bugs:
// `load_bug` moves two elements of load's result, `scale_bug` one of scale's output.
void copied_engine(const std::string& dir, const int order[k_copied_parts], double load_bug, double scale_bug, bool zeros = false) {
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  std::vector<double> x(k_copied_n, 1.0), y(k_copied_n), z(k_copied_n);
  {
    probe::op op("fill", "Fill");  // x once had a producer: its bytes are stale from here on
    op.output("x", probe::view(x.data(), {k_copied_n}));
  }
  {
    probe::op op("load", "Load");
    std::vector<double> scratch(k_copied_n);
    for (int i = 0; i < k_copied_n; ++i) scratch[static_cast<size_t>(i)] = zeros ? 0 : 0.25 * i - 1.3;
    scratch[5] += load_bug;  // in the second part
    scratch[9] += load_bug;  // and the third: two workers' inputs differ, so no pairing is left by elimination
    op.output("y", probe::view(scratch.data(), {k_copied_n}));
    if (!zeros) std::memcpy(x.data(), scratch.data(), sizeof(double) * k_copied_n);
  }
  if (zeros) std::memset(x.data(), 0, sizeof(double) * k_copied_n);  // the same bytes as load's result
  {
    probe::op op("layer", "Affine");
    op.input("x", probe::view(x.data(), {k_copied_n}));
    const probe::op_context ctx = probe::current_op_context();
    for (int k = 0; k < k_copied_parts; ++k) {
      const int t = order[k];
      std::thread worker([&, t] {
        probe::adopt_op_context adopt(ctx);
        probe::op w("layer.part", "Affine");
        const double* in = x.data() + t * k_copied_rows;
        double* out = y.data() + t * k_copied_rows;
        w.input("x", probe::view(in, {k_copied_rows}));
        for (int i = 0; i < k_copied_rows; ++i) out[i] = 2 * in[i] + 1;
        w.output("y", probe::view(out, {k_copied_rows}));
      });
      worker.join();
    }
    op.output("y", probe::view(y.data(), {k_copied_n}));
  }
  {
    probe::op op("scale", "Scale");
    op.input("y", probe::view(y.data(), {k_copied_n}));
    for (int i = 0; i < k_copied_n; ++i) z[static_cast<size_t>(i)] = 3 * y[static_cast<size_t>(i)];
    z[2] += scale_bug;
    op.output("z", probe::view(z.data(), {k_copied_n}));
  }
  probe::set_flags("");
}

std::vector<std::string> copied_root_keys(const pa::compared_run& run) {
  std::vector<std::string> out;
  for (const pa::root_cause& r : run.graph.roots)
    out.push_back((r.is_input ? "input of " : "") + run.graph.nodes[r.node].op_key);
  return out;
}

}  // namespace

TEST_CASE("copied results: a matching input an op copied into place names the copy, not code outside any op") {
  temp_dir d;
  const int order[k_copied_parts] = {0, 1, 2};
  copied_engine(d / "a", order, 0, 0.5);
  copied_engine(d / "b", order, 0, 0);
  const pa::compare_report r = compare(d / "a", d / "b");
  REQUIRE(r.runs.size() == 1);
  const pa::compared_run& run = r.runs[0];
  CHECK(copied_root_keys(run) == std::vector<std::string>{"scale#0"});
  REQUIRE(run.graph.hints.size() == 1);
  const pa::graph_hint& h = run.graph.hints[0];
  CHECK(h.kind == pa::hint_kind::unlinked_copy);
  CHECK(h.consumer_op == "layer");
  CHECK(h.producer_key == "load#0/out/y");
  CHECK(h.differing == 0);
  const std::string text = flat_text(r);
  CHECK(text.find("input x of layer (it matches) holds the bytes load#0/out/y wrote") != std::string::npos);
  CHECK(text.find("by an op that declared its result elsewhere") != std::string::npos);
  CHECK(text.find("code outside any op between") == std::string::npos);
}

TEST_CASE("copied results: bytes of one repeated value are no copy of an output that holds them") {
  temp_dir d;
  const int order[k_copied_parts] = {0, 1, 2};
  copied_engine(d / "a", order, 0, 0.5, true);
  copied_engine(d / "b", order, 0, 0, true);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(copied_root_keys(run) == std::vector<std::string>{"scale#0"});
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].kind == pa::hint_kind::outside_op);
}

TEST_CASE("copied results: workers started in another order over a copy that differs pair by their rows; one root") {
  temp_dir d;
  const int in_order[k_copied_parts] = {0, 1, 2}, shuffled[k_copied_parts] = {2, 0, 1};
  copied_engine(d / "a", shuffled, 0.5, 0);
  copied_engine(d / "b", in_order, 0, 0);
  const pa::compare_report r = compare(d / "a", d / "b");
  REQUIRE(r.runs.size() == 1);
  const pa::compared_run& run = r.runs[0];
  CHECK(has_note(r, "worker threads began their ops in another order in B"));
  // load is the one root; its copy is a hint at layer, whose workers add neither roots nor hints
  CHECK(copied_root_keys(run) == std::vector<std::string>{"load#0"});
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].kind == pa::hint_kind::unlinked_copy);
  CHECK(run.graph.hints[0].consumer_op == "layer");
  CHECK(run.graph.hints[0].differing == 1);
  // each worker is compared with the one that read the same rows: only the second and third
  // parts' inputs differ, each at its own offset
  int differing = 0;
  for (const pa::compared_pair& p : run.pairs) {
    if (p.op != "layer.part" || !p.is_input) continue;
    CHECK_MESSAGE(p.a.within == "layer#0/in/x", p.key);
    CHECK(p.a.within_at == p.b.within_at);
    if (p.status == pa::pair_status::mismatch) {
      ++differing;
      CHECK(p.a.within_at != 0);
    }
  }
  CHECK(differing == 2);
  CHECK(run.graph.unexplained.empty());
}
