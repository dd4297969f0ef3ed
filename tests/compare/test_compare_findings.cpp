// probe compare's findings beyond one root: rounding-level failures and the tolerance that
// passes them, roots ranked by severity, runs whose op sequences differ, snapshot and
// stats-only dumps, faulty op types, failures in one slice, and a report a person reads.
#include <doctest/doctest.h>

#include "analysis/compare_json.hpp"
#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "../support/capture.hpp"
#include "manifest_fixture.hpp"
#include "compare_checked.hpp"

using namespace compare_test;
namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;

// Values near 10 and one near 0: an absolute error of 3e-5 there fails the float32
// tolerance (1e-5 + 1e-5 * 0), while it is 3e-6 of the tensor's scale: rounding.
std::vector<float> noisy(bool a) {
  std::vector<float> v{10, -7, 0, 3, 5};
  if (a) v[2] += 3.3e-5f, v[0] += 1e-5f;
  return v;
}

}  // namespace

TEST_CASE("findings: failures tiny next to the tensor's scale are rounding, with the atol that passes them") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    x->in(1, "mm", "x", {1, 2, 3, 4, 5}, "");
    x->out(1, "mm", "y", noisy(x == &a));
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK(r.exit_code() == 1);
  REQUIRE(r.runs[0].graph.roots.size() == 1);
  CHECK(r.runs[0].graph.roots[0].rounding);
  const std::string text = flat_text(r);
  CHECK(text.find("All failures are rounding-level: --atol 4e-5 passes; largest relative error 3.3e-6") != std::string::npos);
  // and that atol does pass
  pa::compare_settings s;
  s.tol.atol = 4e-5;
  CHECK(pa::compare_paths(d / "a", d / "b", s).exit_code() == 0);
}

TEST_CASE("findings: a real bug is listed before rounding-level roots, whatever their order in the run") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    x->in(1, "first", "x", {1, 2, 3, 4, 5}, "");
    x->out(1, "first", "y", noisy(x == &a));
    x->in(2, "second", "x", {1, 2}, "");
    x->out(2, "second", "y", {1, x == &a ? 2.5f : 2.f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"second#0", "first#0"});
  CHECK_FALSE(run.graph.roots[0].rounding);
  CHECK(run.graph.roots[1].rounding);
  const std::string text = flat_text(r);
  CHECK(text.find("All failures are rounding-level") == std::string::npos);
  // the rounding-level root shares one line after the real ones: no paragraph of its own
  const size_t line = text.find("Rounding-level differences (largest error 3.3e-6 of a tensor's scale) start at 1 op: first#0");
  CHECK(line != std::string::npos);
  CHECK(text.find("Root cause: op second#0") < line);
  CHECK(text.find("Root cause: op first#0") == std::string::npos);
}

namespace {

void chain(fixture_dump& d, bool extra, bool swap) {
  d.out(1, "a", "y", {1, 2});
  if (extra) {
    d.in(2, "extra", "x", {1, 2}, "a#0/out/y");
    d.out(2, "extra", "y", {1, 3});
  }
  const std::string from = extra ? "extra#0/out/y" : "a#0/out/y";
  const std::vector<float> v = extra ? std::vector<float>{1, 3} : std::vector<float>{1, 2};
  d.in(swap ? 4 : 3, "b", "x", v, from);
  d.out(swap ? 4 : 3, "b", "y", {v[1]});
  d.in(swap ? 3 : 4, "c", "x", {1, 2}, "a#0/out/y");
  d.out(swap ? 3 : 4, "c", "y", {2});
  d.finish();
}

}  // namespace

TEST_CASE("findings: runs whose op sequences differ are aligned first; an unpaired producer is never called matched") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  chain(a, true, false);
  chain(b, false, true);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  const pa::alignment& al = run.findings.align;
  REQUIRE(al.only_a.size() == 1);
  CHECK(run.graph.nodes[al.only_a[0]].op_key == "extra#0");
  CHECK(al.only_b.empty());
  REQUIRE(al.reordered.size() == 1);
  CHECK(al.paired == 3);
  // b's input differs because it came from an op B never ran: not a root, not "matched"
  CHECK(run.graph.roots.empty());
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].kind == pa::hint_kind::unpaired_producer);
  const std::string text = flat_text(r);
  CHECK(text.find("The runs' op sequences differ: 1 op only in A (extra#0 (seq 2))") != std::string::npos);
  CHECK(text.find("1 in another order in B") != std::string::npos);
  CHECK(text.find("which ran in A only") != std::string::npos);
  CHECK(text.find("matched") == std::string::npos);
  CHECK(text.find("The runs' op sequences differ") < text.find("Hint:"));
}

TEST_CASE("findings: snapshot tensors and same_as files are read; nothing to compare is not a pass") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  // A: an npy dump where the weight is dumped once and named again by same_as
  a.in(1, "mm", "w", {1, 2, 3}, "");
  a.out(1, "mm", "y", {6});
  tensor_spec again;
  again.seq = 2, again.op = "mm", again.occurrence = 1, again.slot = "w", again.input = true, again.values = {1, 2, 3};
  again.write_file = false;
  again.extra = "\"producer\":null,\"same_as\":\"" + fixture_dump::file_name({1, "mm", "", "w", 0, 0, true, {}, {}, "", true, false}) + "\"";
  a.add(again);
  a.out(2, "mm", "y", {6}, "", 0, 1);
  a.finish();
  // B: a snapshot-only dump (file null; the data is in snapshots/)
  mkdir((d / "b/snapshots").c_str(), 0755);
  auto snap = [&](uint64_t seq, uint64_t occ, float y) {
    const std::string folder = d / ("b/snapshots/op_00000" + std::to_string(seq) + ".mm");
    mkdir(folder.c_str(), 0755);
    std::vector<float> w{1, 2, 3}, yv{y};
    REQUIRE(probe::npy::write(folder + "/in.w.npy", probe::view(w.data(), probe::dims{3})));
    REQUIRE(probe::npy::write(folder + "/out.y.npy", probe::view(yv.data(), probe::dims{1})));
    const std::string o = std::to_string(occ);
    std::ofstream(folder + "/snapshot.json")
        << R"({"format":"probe-snapshot-1","status":"complete","op":"mm","seq":)" << seq << R"(,"occurrence":)" << occ
        << R"(,"inputs":[{"slot":"w","key":"mm#)" << o << R"(/in/w","file":"in.w.npy"}],"outputs":[{"slot":"y","key":"mm#)"
        << o << R"(/out/y","file":"out.y.npy"}]})";
  };
  snap(1, 0, 6);
  snap(2, 1, 7);
  for (uint64_t seq : {1, 2}) {
    tensor_spec w, y;
    w.seq = y.seq = seq;
    w.op = y.op = "mm";
    w.occurrence = y.occurrence = seq - 1;
    w.slot = "w", y.slot = "y";
    w.input = true;
    w.values = {1, 2, 3}, y.values = {6};
    w.write_file = y.write_file = false;
    w.extra = "\"producer\":null";
    b.add(w);
    b.add(y);
  }
  b.finish();
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK(r.counts.no_data == 0);
  CHECK(r.counts.ok == 3);
  CHECK(r.counts.mismatch == 1);  // mm#1's output: 6 against 7, read from the snapshot
  CHECK(root_ops(r.runs[0]) == std::vector<std::string>{"mm#1"});

  // keys that do not pair up: exit 2 with the reason, not "all within tolerance"
  fixture_dump c(d / "c"), e(d / "e");
  c.out(1, "x", "y", {1});
  e.out(1, "z", "y", {1});
  c.finish();
  e.finish();
  const pa::compare_report none = pa::compare_paths(d / "c", d / "e", pa::compare_settings());
  CHECK(none.exit_code() == 2);
  CHECK(none.error.find("nothing to compare: 1 tensors only in A and 1 only in B") != std::string::npos);

  // run folders that do not pair up: the reason names them
  mkdir((d / "ranks").c_str(), 0755);
  mkdir((d / "hosts").c_str(), 0755);
  for (const char* run : {"ranks/rank_0000", "ranks/rank_0001", "hosts/host_1"}) {
    fixture_dump f(d / run);
    f.out(1, "x", "y", {1});
    f.finish();
  }
  const pa::compare_report apart = pa::compare_paths(d / "ranks", d / "hosts", pa::compare_settings());
  CHECK(apart.exit_code() == 2);
  CHECK(apart.error.find("no run folder pairs up: A has rank_0000, rank_0001, B has host_1") != std::string::npos);
  const pa::compare_report one = pa::compare_paths(d / "ranks", d / "c", pa::compare_settings());
  CHECK(one.error.find("no run folder pairs up: A has rank_0000, rank_0001, B has one run at its top") !=
        std::string::npos);
}

namespace {

// x -> relu#0 -> scale#0 -> relu#1 -> scale#1 -> relu#2; a bug in the relu kernel makes
// negative inputs 0.5 instead of 0, at every instance.
void relus(fixture_dump& d, bool bug) {
  std::vector<float> v{-1, 2, -3, 4, -5, 6, -7, 8};
  uint64_t seq = 1;
  std::string from;
  d.out(seq++, "input", "y", v);
  from = "input#0/out/y";
  for (int i = 0; i < 3; ++i) {
    const std::string name = "relu" + std::to_string(i);
    d.in(seq, name, "x", v, from, "", 0, 0, "ReLU");
    for (float& x : v) x = x < 0 ? (bug ? 0.5f : 0.f) : x;
    d.out(seq++, name, "y", v, "", 0, 0, "ReLU");
    if (i == 2) break;
    const std::string sc = "scale" + std::to_string(i);
    d.in(seq, sc, "x", v, name + "#0/out/y", "", 0, 0, "Scale");
    for (size_t k = 0; k < v.size(); ++k) v[k] = (k % 2 ? 1.f : -1.f) * (v[k] * 0.001f + static_cast<float>(k));
    d.out(seq++, sc, "y", v, "", 0, 0, "Scale");
    from = sc + "#0/out/y";
  }
  d.finish();
}

}  // namespace

TEST_CASE("findings: a bug in every instance of an op type names every instance") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  relus(a, true);
  relus(b, false);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"relu0#0"});
  std::set<std::string> amplifiers;
  for (const pa::amplifier& x : run.findings.amplifiers) amplifiers.insert(run.graph.nodes[x.node].op_key);
  CHECK(amplifiers == std::set<std::string>{"relu1#0", "relu2#0"});
  REQUIRE(run.findings.types.size() == 1);
  CHECK(run.findings.types[0].type == "ReLU");
  CHECK(run.findings.types[0].faulty.size() == 3);
  CHECK(run.findings.types[0].instances == 3);
  const std::string text = flat_text(r);
  CHECK(text.find("Op type ReLU: faulty at 3 of 3 instances: relu0#0 (seq 2), relu1#0 (seq 4), relu2#0 (seq 6)") !=
        std::string::npos);
  CHECK(text.find("Adds error beyond its inputs: op relu1#0") != std::string::npos);
}

// y = x - w where the reference's y is all zeros: its error has no scale to be relative to,
// so the op cannot be said to add error beyond its inputs (it passes on x's 0.5 unchanged).
TEST_CASE("findings: an op whose reference output is all zeros is not called an amplifier") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (int side = 0; side < 2; ++side) {
    fixture_dump& f = side ? b : a;
    const float off = side ? 0.f : 0.5f;
    const std::vector<float> x{10 + off, 20 + off}, w{10, 20}, y{off, off};
    f.out(1, "input", "y", x);
    f.out(2, "weights", "y", w);
    f.in(3, "head", "x", x, "input#0/out/y", "", 0, 0, "Sub");
    f.in(3, "head", "w", w, "weights#0/out/y", "", 0, 0, "Sub");
    f.out(3, "head", "y", y, "", 0, 0, "Sub");
    f.finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].findings.amplifiers.empty());
  CHECK(flat_text(r).find("Adds error beyond its inputs") == std::string::npos);
}

TEST_CASE("findings: all failures in one channel; graph inputs and weights that differ are named") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    std::vector<float> img(2 * 4 * 3 * 3);
    for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<float>(i % 7);
    tensor_spec in;
    in.seq = 1, in.op = "conv", in.slot = "x", in.input = true, in.values = img, in.shape = {2, 4, 3, 3};
    in.extra = "\"producer\":null";
    x->add(in);
    std::vector<float> out = img;
    if (x == &a)
      for (int n = 0; n < 2; ++n)
        for (int k = 0; k < 9; ++k) out[static_cast<size_t>(n * 36 + 2 * 9 + k)] += 1;
    tensor_spec o = in;
    o.input = false, o.slot = "y", o.values = out, o.extra = "";
    x->add(o);
    x->in(2, "head", "w", {1, x == &a ? 2.5f : 2.f}, "");
    x->out(2, "head", "y", {1, x == &a ? 2.5f : 2.f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = flat_text(r);
  CHECK(text.find("all 18 failures in channel 2") != std::string::npos);
  CHECK(text.find("Root cause: graph inputs or weights differ, the runs were fed different data: w of head") !=
        std::string::npos);
}

TEST_CASE("findings: a root repeated at every occurrence is one finding; no line of the report is over 120 columns") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  const std::string op = "model.layers.0.self_attention.rotary_position_embedding";
  for (fixture_dump* x : {&a, &b}) {
    uint64_t seq = 1;
    for (int step = 0; step < 6; ++step) {
      const uint64_t occ = static_cast<uint64_t>(step);
      x->in(seq, op, "query_states_before_rotation", {1, 2, 3}, "", "", step, occ, "RotaryEmbedding");
      x->out(seq++, op, "query_states_after_rotation", {1, 2, x == &a ? 9.f : 3.f}, "", step, occ, "RotaryEmbedding");
      x->in(seq, "model.layers.0.self_attention.scaled_dot_product", "q", {1, 2, x == &a ? 9.f : 3.f},
            op + "#" + std::to_string(occ) + "/out/query_states_after_rotation", "", step, occ, "Attention");
      x->out(seq++, "model.layers.0.self_attention.scaled_dot_product", "out", {x == &a ? 9.f : 3.f}, "", step, occ,
             "Attention");
    }
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK(r.runs[0].graph.roots.size() == 6);
  const std::string text = pa::compare_text(r);
  const std::string flat = flat_text(r);
  CHECK(flat.find(op + ": root cause at 6 of 6 occurrences (steps 0 to 5): " + op + "#0 (seq 1), " + op + "#1 (seq 3)") !=
        std::string::npos);
  CHECK(flat.find("; first at step 0: op " + op + "#0") != std::string::npos);
  size_t count = 0;
  for (size_t at = 0; (at = flat.find("Root cause:", at)) != std::string::npos; ++at) ++count;
  CHECK(count == 1);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK_MESSAGE(line.size() <= 120, line);
  // the details stay in the JSON
  CHECK(pa::compare_json(r).find("query_states_after_rotation") != std::string::npos);
}
