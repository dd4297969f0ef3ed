// probe compare on the reference engine: naive kernels (--probe_reference) against
// optimized ones, with and without a planted bug, through the analysis API; the one-dump
// checks (--nonfinite, --first-above) on ops nested in others.
#include <doctest/doctest.h>

#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"
#include "analysis/first_above.hpp"
#include "analysis/nonfinite.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>

#include "../support/capture.hpp"
#include "reference_engine.hpp"
#include "compare_checked.hpp"

using namespace compare_test;
namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;

std::string op_of(const pa::compared_run& run, size_t node) { return run.graph.nodes[node].op; }

// block { mm; stage { act } }: act adds `planted` to one element of its output, which stage
// and block pass on as theirs. Ops are numbered as they begin, so the enclosing ops come first.
void dump_nested(const std::string& dir, float planted) {
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  constexpr int n = 8;
  std::vector<float> x(n), m(n), a(n);
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i);
  {
    probe::op block("block", "Block");
    block.input("x", probe::view(x.data(), {n}));
    {
      probe::op mm("mm", "MatMul");
      mm.input("x", probe::view(x.data(), {n}));
      for (size_t i = 0; i < n; ++i) m[i] = 2 * x[i];
      mm.output("y", probe::view(m.data(), {n}));
    }
    {
      probe::op stage("stage", "Stage");
      stage.input("x", probe::view(m.data(), {n}));
      {
        probe::op act("act", "Relu");
        act.input("x", probe::view(m.data(), {n}));
        for (size_t i = 0; i < n; ++i) a[i] = std::max(m[i], 0.f);
        a[3] += planted;
        act.output("y", probe::view(a.data(), {n}));
      }
      stage.output("y", probe::view(a.data(), {n}));
    }
    block.output("y", probe::view(a.data(), {n}));
  }
  probe::set_flags("");
}

std::set<std::string> reached_ops(const pa::compared_run& run, const pa::root_cause& r) {
  std::set<std::string> out;
  for (size_t n : r.reaches) out.insert(op_of(run, n));
  return out;
}

const pa::compared_pair* find(const pa::compared_run& run, const std::string& key) {
  for (const pa::compared_pair& p : run.pairs)
    if (p.key == key) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("compare: naive and optimized kernels agree within tolerance, but not bit for bit") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  dump_run<float>(d / "opt", false);
  const pa::compare_report r = compare(d / "opt", d / "ref");
  CHECK(r.exit_code() == 0);
  REQUIRE(r.runs.size() == 1);
  const pa::compared_run& run = r.runs[0];
  CHECK(r.counts.pairs == 18);  // 7 ops, 11 inputs and 7 outputs
  CHECK(r.counts.ok == r.counts.pairs);
  CHECK(run.graph.roots.empty());
  CHECK(run.graph.first_divergence < 0);
  // the kernels really differ: rounding errors, well inside the float32 tolerance
  const pa::compared_pair* fc1 = find(run, "fc1#0/out/y");
  const pa::compared_pair* norm = find(run, "norm#0/out/y");
  REQUIRE(fc1);
  REQUIRE(norm);
  CHECK(fc1->metrics.max_abs > 0);
  CHECK(norm->metrics.max_abs > 0);
  CHECK(norm->metrics.max_abs < 1e-4);
  CHECK(fc1->metrics.max_ulp > 0);
  CHECK(fc1->metrics.cosine > 0.9999999);
  // sequence order, inputs before outputs
  for (size_t i = 1; i < run.pairs.size(); ++i) CHECK(run.pairs[i - 1].seq <= run.pairs[i].seq);
  CHECK(run.pairs[0].key == "fc1#0/in/x");
  CHECK(run.pairs[2].key == "fc1#0/out/y");
}

TEST_CASE("compare: a bug planted in one optimized kernel is the only root; its descendants and the first divergence") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  engine_options o;
  o.planted = plant::wrong_norm;
  dump_run<float>(d / "opt", false, o);
  const pa::compare_report r = compare(d / "opt", d / "ref");
  CHECK(r.exit_code() == 1);
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.graph.roots.size() == 1);
  const pa::root_cause& root = run.graph.roots[0];
  CHECK_FALSE(root.is_input);
  CHECK(op_of(run, root.node) == "norm");
  CHECK(reached_ops(run, root) == std::set<std::string>{"mix", "fc2", "softmax"});
  REQUIRE(run.graph.first_divergence >= 0);
  CHECK(op_of(run, static_cast<size_t>(run.graph.first_divergence)) == "norm");
  CHECK(run.graph.unexplained.empty());
  // the sibling branch and everything upstream are untouched
  for (const char* key : {"fc1#0/out/y", "act#0/out/y", "pool#0/out/y", "norm#0/in/x", "mix#0/in/a"})
    CHECK_MESSAGE(find(run, key)->status == pa::pair_status::ok, key);
  for (const char* key : {"norm#0/out/y", "mix#0/in/b", "mix#0/out/y", "fc2#0/out/y", "softmax#0/out/y"})
    CHECK_MESSAGE(find(run, key)->status == pa::pair_status::mismatch, key);
  const pa::tensor_metrics& m = find(run, "norm#0/out/y")->metrics;
  CHECK(m.fail > 0);
  CHECK(m.first_fail.size() == 2);
  CHECK(m.worst_fail.size() == 2);
  CHECK(m.min_atol == doctest::Approx(m.max_abs));

  const std::string text = pa::compare_text(r);
  CHECK(text.find("First divergence: op norm#0 (LayerNorm) at seq 3") != std::string::npos);
  CHECK(text.find("Root cause: op norm#0 (LayerNorm) at seq 3: its inputs match") != std::string::npos);
  CHECK(text.find("Its error reaches 3 ops: mix#0 (seq 4), fc2#0 (seq 6), softmax#0 (seq 7)") != std::string::npos);
}

TEST_CASE("compare: the answers follow sequence numbers and edges, not the order of manifest lines") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  engine_options o;
  o.planted = plant::wrong_norm;
  dump_run<float>(d / "opt", false, o);
  // reverse the tensor lines of the run under test
  const std::string path = d / "opt/manifest.jsonl";
  std::vector<std::string> lines;
  {
    FILE* f = fopen(path.c_str(), "r");
    char buf[8192];
    while (fgets(buf, sizeof buf, f)) lines.push_back(buf);
    fclose(f);
  }
  FILE* f = fopen(path.c_str(), "w");
  fputs(lines.front().c_str(), f);
  for (size_t i = lines.size() - 2; i >= 1; --i) fputs(lines[i].c_str(), f);
  fputs(lines.back().c_str(), f);
  fclose(f);
  const pa::compare_report r = compare(d / "opt", d / "ref");
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(op_of(run, run.graph.roots[0].node) == "norm");
  CHECK(op_of(run, static_cast<size_t>(run.graph.first_divergence)) == "norm");
  CHECK(run.pairs[0].seq == 1);
  CHECK(run.pairs[0].is_input);
  CHECK(run.pairs.back().key == "softmax#0/out/y");
}

TEST_CASE("compare: a planted NaN is found by the non-finite check and roots the comparison") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  engine_options o;
  o.planted = plant::nan_act;
  dump_run<float>(d / "opt", false, o);

  const pa::nonfinite_report nf = pa::find_first_nonfinite(d / "opt");
  REQUIRE(nf.error.empty());
  CHECK(nf.exit_code() == 1);
  REQUIRE(nf.runs.size() == 1);
  const pa::nonfinite_run& hit = nf.runs[0];
  CHECK(hit.found);
  CHECK(hit.op_key == "act#0");
  REQUIRE(hit.outputs.size() == 1);
  CHECK(hit.outputs[0].nan == 1);
  CHECK(hit.outputs[0].verified);
  REQUIRE(hit.inputs.size() == 1);
  CHECK(hit.inputs[0].nonfinite() == 0);
  CHECK(hit.outputs_nonfinite >= 4);  // act, mix, pool, fc2, softmax hold it downstream
  CHECK(pa::nonfinite_text(nf).find("this op made the NaN/Inf") != std::string::npos);
  CHECK(pa::find_first_nonfinite(d / "ref").exit_code() == 0);

  const pa::compare_report r = compare(d / "opt", d / "ref");
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(op_of(run, run.graph.roots[0].node) == "act");
  CHECK(reached_ops(run, run.graph.roots[0]) == std::set<std::string>{"mix", "pool", "fc2", "softmax"});
  const pa::tensor_metrics& m = find(run, "act#0/out/y")->metrics;
  CHECK(m.nan_mismatch == 1);
  CHECK(m.fail == 1);
  CHECK(m.first_fail == std::vector<int64_t>{77 / 24, 77 % 24});
  CHECK(m.worst_fail == m.first_fail);
  CHECK(std::isinf(m.min_atol));
}

TEST_CASE("compare: an f16 run against an f32 reference is judged at f16 precision") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  dump_run<probe::float16>(d / "half", false);
  const pa::compare_report r = compare(d / "half", d / "ref");
  CHECK(r.exit_code() == 0);
  const pa::compared_run& run = r.runs[0];
  for (const pa::compared_pair& p : run.pairs) {
    CHECK(p.a.type == probe::dtype::float16);
    CHECK(p.b.type == probe::dtype::float32);
    CHECK(p.metrics.tol.rtol == 1e-2);
    CHECK(p.metrics.ulp_valid);
    CHECK_MESSAGE(p.metrics.max_ulp < 0x7c00, p.key);  // in float16 units (near zero they are small)
    CHECK(p.metrics.cosine > 0.9999);
  }
  // the graph inputs were rounded to f16 from the reference's values: rounded to f16 too,
  // the reference's values are the same, zero ULPs apart
  CHECK(find(run, "fc1#0/in/x")->metrics.max_ulp == 0);
  CHECK(find(run, "fc1#0/in/x")->metrics.max_abs > 0);
  CHECK(find(run, "fc1#0/out/y")->metrics.max_abs > 1e-4);  // f16 rounding, not zero

  // at float32's tolerance the same run fails, and the graph inputs are the roots: they
  // were rounded to f16 before anything ran
  pa::compare_settings tight;
  tight.tol = {1e-5, 1e-5};
  const pa::compare_report t = compare(d / "half", d / "ref", tight);
  CHECK(t.exit_code() == 1);
  REQUIRE_FALSE(t.runs[0].graph.roots.empty());
  for (const pa::root_cause& c : t.runs[0].graph.roots) {
    CHECK(c.is_input);
    CHECK(t.runs[0].pairs[c.input].producer.empty());
  }
}

TEST_CASE("compare: tensors on one side only and shape changes are reported, not dropped") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  engine_options o;
  o.extra_op = true;
  o.reshape_pool = true;
  dump_run<float>(d / "opt", false, o);
  const pa::compare_report r = compare(d / "opt", d / "ref");
  CHECK(r.exit_code() == 1);
  const pa::compared_run& run = r.runs[0];
  CHECK(r.counts.only_a == 2);
  CHECK(find(run, "debug_copy#0/in/x")->status == pa::pair_status::only_a);
  CHECK(find(run, "debug_copy#0/out/y")->status == pa::pair_status::only_a);
  const pa::compared_pair* pool = find(run, "pool#0/out/y");
  CHECK(pool->status == pa::pair_status::shape);
  CHECK(pool->why == "shape [1,24] vs [24]");
  // a shape mismatch takes part in root finding
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(op_of(run, run.graph.roots[0].node) == "pool");
  const std::string text = pa::compare_text(r);
  CHECK(text.find("2 only in A") != std::string::npos);
  CHECK(text.find("1 with different shapes") != std::string::npos);
  CHECK(text.find("SHAPE [1,24] vs [24]") != std::string::npos);

  // and the other way round
  const pa::compare_report back = compare(d / "ref", d / "opt");
  CHECK(back.counts.only_b == 2);
}

TEST_CASE("compare: --step picks one step; keys pair occurrence by occurrence") {
  temp_dir d;
  dump_run<float>(d / "ref", true, engine_options(), 3);
  engine_options o;
  o.planted = plant::wrong_norm;
  dump_run<float>(d / "opt", false, o, 3);
  pa::compare_settings s;
  s.has_step = true;
  s.step = 2;
  const pa::compare_report r = compare(d / "opt", d / "ref", s);
  CHECK(r.counts.pairs == 18);
  for (const pa::compared_pair& p : r.runs[0].pairs) CHECK(p.step == 2);
  REQUIRE(r.runs[0].graph.roots.size() == 1);
  CHECK(r.runs[0].graph.nodes[r.runs[0].graph.roots[0].node].op_key == "norm#2");
  s.step = 7;
  CHECK(pa::compare_paths(d / "opt", d / "ref", s).exit_code() == 2);
}

TEST_CASE("compare: per-key tolerance overrides, last match wins") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  engine_options o;
  o.planted = plant::wrong_norm;
  dump_run<float>(d / "opt", false, o);
  pa::compare_settings s;
  std::string err;
  REQUIRE(s.add_override("norm|mix|fc2|softmax=1,1", &err));
  REQUIRE(s.add_override("softmax=1e-9,0", &err));
  const pa::compare_report r = compare(d / "opt", d / "ref", s);
  const pa::compared_run& run = r.runs[0];
  CHECK(find(run, "norm#0/out/y")->status == pa::pair_status::ok);
  CHECK(find(run, "norm#0/out/y")->metrics.tol.atol == 1);
  CHECK(find(run, "softmax#0/out/y")->status == pa::pair_status::mismatch);
  CHECK(find(run, "softmax#0/out/y")->metrics.tol.atol == 1e-9);
  CHECK(find(run, "softmax#0/out/y")->metrics.tol.rtol == 0);
  // fc2's output and softmax's input are the same bytes: one verdict, at the stricter
  // tolerance of the two views, so the error is not invented at softmax's input
  CHECK(find(run, "fc2#0/out/y")->metrics.tol.atol == 1e-9);
  CHECK(find(run, "fc2#0/out/y")->status == pa::pair_status::mismatch);
  CHECK(find(run, "softmax#0/in/x")->tol_note.find("stricter tolerance") != std::string::npos);
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(op_of(run, run.graph.roots[0].node) == "fc2");
  CHECK(run.graph.hints.empty());
  CHECK_FALSE(s.add_override("x(=1,1", &err));
  CHECK(err.find("--tol") != std::string::npos);
  CHECK_FALSE(s.add_override("conv=abc", &err));
}

TEST_CASE("compare: rank folders are paired by name") {
  temp_dir d;
  for (const char* rank : {"0", "1"}) {
    setenv("OMPI_COMM_WORLD_RANK", rank, 1);
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    dump_run<float>(d / "ref", true);
    engine_options o;
    if (rank[0] == '1') o.planted = plant::wrong_norm;
    dump_run<float>(d / "opt", false, o);
  }
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("OMPI_COMM_WORLD_SIZE");
  const pa::compare_report r = compare(d / "opt", d / "ref");
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[0].name == "rank_0000");
  CHECK(r.runs[0].graph.roots.empty());
  CHECK(r.runs[1].name == "rank_0001");
  REQUIRE(r.runs[1].graph.roots.size() == 1);
  CHECK(op_of(r.runs[1], r.runs[1].graph.roots[0].node) == "norm");
  CHECK(pa::compare_text(r).find("rank_0001: Root cause: op norm#0") != std::string::npos);
}

TEST_CASE("compare: kernels that differ by rounding only, at a tolerance too tight: rounding-level, and the atol that passes") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  dump_run<float>(d / "opt", false);
  pa::compare_settings s;
  s.tol = {1e-9, 1e-9};
  const pa::compare_report r = compare(d / "opt", d / "ref", s);
  CHECK(r.exit_code() == 1);
  std::string text = pa::compare_text(r);
  for (size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");
  const size_t at = text.find("All failures are rounding-level: --atol ");
  REQUIRE(at != std::string::npos);
  for (const pa::root_cause& root : r.runs[0].graph.roots) CHECK(root.rounding);
  // the atol it names passes
  const double atol = std::strtod(text.c_str() + at + 40, nullptr);
  CHECK(atol > 0);
  s.tol.atol = atol;
  CHECK(pa::compare_paths(d / "opt", d / "ref", s).exit_code() == 0);
}

TEST_CASE("nonfinite: an op that encloses the op that made the NaN yields to it, at any depth") {
  temp_dir d;
  dump_nested(d / "nan", std::nanf(""));
  const pa::nonfinite_report nf = pa::find_first_nonfinite(d / "nan");
  REQUIRE(nf.error.empty());
  REQUIRE(nf.runs.size() == 1);
  const pa::nonfinite_run& hit = nf.runs[0];
  CHECK(hit.op_key == "act#0");  // not block#0 (seq 1) nor stage#0 (seq 3), whose outputs are act's
  CHECK(hit.seq == 4);
  REQUIRE(hit.outputs.size() == 1);
  CHECK(hit.outputs[0].nan == 1);
  CHECK(hit.outputs_nonfinite == 3);
  CHECK(pa::nonfinite_text(nf).find("op act#0 (Relu) at seq 4") != std::string::npos);
  CHECK(pa::nonfinite_text(nf).find("this op made the NaN/Inf") != std::string::npos);
}

TEST_CASE("first-above: an op that encloses the op whose output is above X yields to it, at any depth") {
  temp_dir d;
  dump_nested(d / "big", 1e6f);
  pa::above_report r = pa::find_first_above({d / "big"}, 100, false, 0);
  REQUIRE(r.error.empty());
  CHECK(r.first.op_key == "act#0");
  CHECK(r.first.largest == 1000001.5);
  // mm (seq 2, up to 3.5) is nested in block too, and began before act
  r = pa::find_first_above({d / "big"}, 1, false, 0);
  CHECK(r.first.op_key == "mm#0");
}

TEST_CASE("first-above: a NaN is above no X; the finite values beside it still count") {
  temp_dir d;
  dump_nested(d / "nan", std::nanf(""));
  pa::above_report r = pa::find_first_above({d / "nan"}, 100, false, 0);
  REQUIRE(r.error.empty());
  CHECK_FALSE(r.first.found);
  CHECK(r.exit_code() == 0);
  CHECK(r.nan_outputs == 3);  // act's, and stage's and block's, the same tensor
  const std::string text = pa::first_above_text(r);
  CHECK(text.find("No output holds a value with |value| > 100") != std::string::npos);
  CHECK(text.find("3 outputs hold NaN") != std::string::npos);
  CHECK(text.find("|value| inf") == std::string::npos);
  r = pa::find_first_above({d / "nan"}, 3, false, 0);
  CHECK(r.first.op_key == "mm#0");
  CHECK(r.first.largest == 3.5);
}
