// probe compare on copies made by code outside any op: an input no op wrote that holds an
// earlier output's bytes (hashes), its values cast to another dtype (statistics), or part of
// them, or them among others or reordered (values). The copy is a hint, its output's root is
// carried through it, and nothing else is called a copy. Dumps are written by hand.
#include <doctest/doctest.h>

#include "analysis/compare_json.hpp"
#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

#include <set>

#include "../support/capture.hpp"
#include "manifest_fixture.hpp"
#include "compare_checked.hpp"

using namespace compare_test;
namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;

// The ops a hint's error reaches.
std::set<std::string> copy_reach(const pa::compared_run& run, const std::vector<size_t>& reaches) {
  std::set<std::string> out;
  for (size_t n : reaches) out.insert(run.graph.nodes[n].op_key);
  return out;
}

}  // namespace

namespace {

// p's output copied by code outside any op into a fresh buffer that c reads: c's input has no
// producer, and holds p's bytes in each run (the manifests' hashes say so). Bug: p. With
// `over_fill`, the buffer is one that op fill wrote before: c's input has fill as its stale
// producer.
void copied_output(fixture_dump& d, bool bug, bool same_bytes, bool over_fill = false) {
  std::vector<float> y{1, 2, 3, 4};
  if (bug) y[3] = 4.5f;
  const std::string hash = std::string(R"("hash":")") + (bug ? "00000000000000b1" : "00000000000000a1") + "\"";
  if (over_fill) d.out(1, "fill", "buf", {0, 0, 0, 0});
  d.in(2, "p", "x", {1, 1, 1, 1}, "");
  d.out(2, "p", "y", y, hash);
  std::vector<float> copy = y;
  if (!same_bytes) copy[0] += bug ? 1.f : 0.f;  // not a copy of p's output in the buggy run
  const std::string copy_hash = same_bytes ? hash : R"("hash":"00000000000000c1")";
  if (over_fill)
    d.in(3, "c", "x", copy, "fill#0/out/buf", copy_hash + R"(,"stale":{"producer":"fill#0/out/buf","last_op_before":"p"})");
  else
    d.in(3, "c", "x", copy, "", copy_hash);
  d.out(3, "c", "y", {copy[3] * 2});
  d.finish();
}

// Whether some root is a graph input ("the runs were fed different data").
bool some_graph_input(const pa::compared_run& run) {
  for (const pa::root_cause& root : run.graph.roots)
    if (root.kind == pa::root_kind::graph_input) return true;
  return false;
}

// A tensor record of any float dtype with its .npy file and statistics (the fixture's own
// helpers write float32).
template <class T>
void typed_tensor(fixture_dump& d, uint64_t seq, const std::string& op, bool input, const std::string& slot,
                  const std::vector<T>& v, const std::string& hash) {
  const std::string key = op + "#0/" + (input ? "in/" : "out/") + slot, file = op + "_" + (input ? "in_" : "out_") + slot + ".npy";
  std::string err;
  REQUIRE_MESSAGE(probe::npy::write(d.dir() + "/" + file, probe::view(v.data(), {static_cast<int64_t>(v.size())}), &err), err);
  double mn = v[0], mx = v[0], sum = 0;
  for (T x : v) mn = std::min(mn, static_cast<double>(x)), mx = std::max(mx, static_cast<double>(x)), sum += static_cast<double>(x);
  char stats[320];
  std::snprintf(stats, sizeof stats,
                R"({"count":%zu,"finite":%zu,"min":%.17g,"max":%.17g,"mean":%.17g,"std":1,"nan":0,"posinf":0,"neginf":0,)"
                R"("zero":0,"subnormal":0,"negative":0,"positive":0})",
                v.size(), v.size(), mn, mx, sum / static_cast<double>(v.size()));
  d.raw("{\"record\":\"tensor\",\"seq\":" + std::to_string(seq) + R"(,"step":0,"op":")" + op +
        R"(","type":"","occurrence":0,"parent":null,"io":")" + (input ? "in" : "out") + R"(","slot":")" + slot +
        R"(","key":")" + key + R"(","dtype":")" + (sizeof(T) == 8 ? "float64" : "float32") + R"(","shape":[)" +
        std::to_string(v.size()) + R"(],"file":")" + file + R"(","stats":)" + stats +
        (input ? R"(,"producer":null)" : "") + R"(,"hash":")" + hash + "\"}");
}

// p writes y (float32); plain code casts it to float64 for c, into a fresh buffer. Bug in p:
// y[3]. `same_values` false: the buggy run's cast values are not p's (the cast code changed).
void converted_output(fixture_dump& d, bool bug, bool same_values) {
  std::vector<float> y{1.5f, -2.25f, 3.1f, 4.7f};
  if (bug) y[3] = 5.2f;
  d.in(2, "p", "x", {1, 1, 1, 1}, "");
  typed_tensor(d, 2, "p", false, "y", y, bug ? "00000000000000b1" : "00000000000000a1");
  std::vector<double> z(y.begin(), y.end());
  if (!same_values) z[0] += bug ? 1 : 0;
  typed_tensor(d, 3, "c", true, "x", z, bug ? "00000000000000d1" : "00000000000000c1");
  d.out(3, "c", "y", {static_cast<float>(z[3] * 2)});
  d.finish();
}

// p (float64) writes y; plain code narrows it to float32 for c, which computes in float64.
// Bug in p: y[3] moves by 1e-6, past float64's tolerance but within float32's, so the cast
// copy passes while c's output, 1e4 times y, fails.
void narrowed_output(fixture_dump& d, bool bug) {
  std::vector<double> y{1.5, -2.25, 3.1, 0.7};
  if (bug) y[3] += 1e-6;
  d.in(2, "p", "x", {1, 1, 1, 1}, "");
  typed_tensor(d, 2, "p", false, "y", y, bug ? "00000000000000b1" : "00000000000000a1");
  std::vector<float> z(y.begin(), y.end());
  typed_tensor(d, 3, "c", true, "x", z, bug ? "00000000000000d1" : "00000000000000c1");
  std::vector<double> w;
  for (float x : z) w.push_back(1e4 * static_cast<double>(x));
  typed_tensor(d, 3, "c", false, "y", w, bug ? "00000000000000f1" : "00000000000000e1");
  d.finish();
}

}  // namespace

TEST_CASE("copies: an input holding a differing output's values cast to another dtype is a copy, not fed data") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  converted_output(a, true, true);
  converted_output(b, false, true);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
  for (const pa::root_cause& root : run.graph.roots) CHECK(root.kind != pa::root_kind::graph_input);
  REQUIRE(run.graph.hints.size() == 1);
  const pa::graph_hint& h = run.graph.hints[0];
  CHECK(h.kind == pa::hint_kind::unlinked_copy);
  CHECK(h.producer_key == "p#0/out/y");
  CHECK(h.converted == "float32 -> float64");
  CHECK(copy_reach(run, h.reaches) == std::set<std::string>{"c#0"});
  const std::string text = flat_text(r);
  CHECK(text.find("fed different data") == std::string::npos);
  CHECK(text.find("holds the values p#0/out/y wrote, cast float32 -> float64 (by their statistics), in both runs") !=
        std::string::npos);
  CHECK(pa::compare_json(r).find(R"("converted":"float32 -> float64")") != std::string::npos);

  // Values that are not p's in the buggy run: fed data, as before.
  temp_dir d2;
  fixture_dump a2(d2 / "a"), b2(d2 / "b");
  converted_output(a2, true, false);
  converted_output(b2, false, false);
  const pa::compare_report r2 = compare(d2 / "a", d2 / "b");
  CHECK(r2.runs[0].graph.hints.empty());
  CHECK(some_graph_input(r2.runs[0]));
}

TEST_CASE("copies: a cast copy within the coarser dtype's tolerance carries its root to the op that grows it") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  narrowed_output(a, true);
  narrowed_output(b, false);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
  REQUIRE(run.graph.regrown.size() == 1);
  CHECK(run.graph.nodes[run.graph.regrown[0].first].op_key == "c#0");
}

TEST_CASE("copies: an input copied from a differing output outside any op is a hint, not fed data") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  copied_output(a, true, true);
  copied_output(b, false, true);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
  for (const pa::root_cause& root : run.graph.roots) CHECK(root.kind != pa::root_kind::graph_input);
  REQUIRE(run.graph.hints.size() == 1);
  const pa::graph_hint& h = run.graph.hints[0];
  CHECK(h.kind == pa::hint_kind::unlinked_copy);
  CHECK(h.producer_key == "p#0/out/y");
  CHECK(h.differing == 1);
  CHECK(copy_reach(run, h.reaches) == std::set<std::string>{"c#0"});
  const std::string text = flat_text(r);
  CHECK(text.find("fed different data") == std::string::npos);
  CHECK(text.find("holds the bytes p#0/out/y wrote, in both runs, but no op declared them there") != std::string::npos);
  CHECK(pa::compare_json(r).find("\"kind\":\"unlinked_copy\"") != std::string::npos);

  // Bytes that are not the output's in one run: nothing says they were copied from it.
  temp_dir d2;
  fixture_dump a2(d2 / "a"), b2(d2 / "b");
  copied_output(a2, true, false);
  copied_output(b2, false, false);
  const pa::compare_report r2 = compare(d2 / "a", d2 / "b");
  CHECK(r2.runs[0].graph.hints.empty());
  CHECK(some_graph_input(r2.runs[0]));
}

TEST_CASE("copies: a differing output copied outside any op over bytes an op wrote before is a copy, not changed code") {
  // c's input is stale (fill's bytes were overwritten); the bytes are p's in both runs, so
  // the difference is p's, carried by the copy: one root, p, and a copy hint, not a hint that
  // the code outside any op changed.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  copied_output(a, true, true, true);
  copied_output(b, false, true, true);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].kind == pa::hint_kind::unlinked_copy);
  CHECK(run.graph.hints[0].producer_key == "p#0/out/y");
  CHECK(copy_reach(run, run.graph.hints[0].reaches) == std::set<std::string>{"c#0"});

  // Bytes that are not p's in the buggy run: the code outside any op changed them.
  temp_dir d2;
  fixture_dump a2(d2 / "a"), b2(d2 / "b");
  copied_output(a2, true, false, true);
  copied_output(b2, false, false, true);
  const pa::compare_report r2 = compare(d2 / "a", d2 / "b");
  bool outside = false;
  for (const pa::graph_hint& h : r2.runs[0].graph.hints)
    outside = outside || (h.kind == pa::hint_kind::outside_op && h.differing > 0);
  CHECK(outside);
}

namespace {

// Distinct values that are not whole numbers, as an op's output holds.
std::vector<float> spread_values(size_t n, float seed) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i) v.push_back(std::sin(seed + 1.37f * static_cast<float>(i)) * 3.1f);
  return v;
}

std::string hash_of(const std::string& tag, bool bug) { return std::string(bug ? "b" : "a") + "00000000000000" + tag; }

// p writes y (16 values); plain code copies y[4, 12) into a fresh buffer that c reads. Bug in
// p: y[6]. `same_values` false: the buggy run's copy is not p's (the copy code changed).
void sliced_output(fixture_dump& d, bool bug, bool same_values) {
  std::vector<float> y = spread_values(16, 0.5f);
  if (bug) y[6] += 1;
  typed_tensor(d, 2, "p", true, "x", std::vector<float>(16, 1.f), hash_of("1", false));
  typed_tensor(d, 2, "p", false, "y", y, hash_of("2", bug));
  std::vector<float> part(y.begin() + 4, y.begin() + 12);
  if (!same_values && bug) part[0] += 0.25f;
  typed_tensor(d, 3, "c", true, "x", part, hash_of("3", bug));
  typed_tensor(d, 3, "c", false, "y", std::vector<float>{part[2] * 2}, hash_of("4", bug));
  d.finish();
}

// p1 and p2 write 8 values each; plain code writes them side by side into a buffer that c
// reads (a concatenation). Bug in `bug` ("p1", "p2" or "": none).
void gathered_outputs(fixture_dump& d, const std::string& bug) {
  std::vector<float> y1 = spread_values(8, 0.1f), y2 = spread_values(8, 2.9f);
  if (bug == "p1") y1[3] += 1;
  if (bug == "p2") y2[5] += 1;
  typed_tensor(d, 2, "p1", false, "y", y1, hash_of("1", bug == "p1"));
  typed_tensor(d, 3, "p2", false, "y", y2, hash_of("2", bug == "p2"));
  std::vector<float> both(y1);
  both.insert(both.end(), y2.begin(), y2.end());
  typed_tensor(d, 4, "c", true, "x", both, hash_of("3", !bug.empty()));
  float s = 0;
  for (float v : both) s += v;
  typed_tensor(d, 4, "c", false, "y", std::vector<float>{s}, hash_of("4", !bug.empty()));
  d.finish();
}

// p writes a 2x4 matrix; plain code writes its transpose into the buffer c reads.
void transposed_output(fixture_dump& d, bool bug) {
  std::vector<float> y = spread_values(8, 1.3f);
  if (bug) y[1] += 1;
  typed_tensor(d, 2, "p", false, "y", y, hash_of("1", bug));
  std::vector<float> t(8);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c) t[static_cast<size_t>(c * 2 + r)] = y[static_cast<size_t>(r * 4 + c)];
  typed_tensor(d, 3, "c", true, "x", t, hash_of("2", bug));
  typed_tensor(d, 3, "c", false, "y", std::vector<float>{t[2] + t[3]}, hash_of("3", bug));
  d.finish();
}

// A graph input g (no producer), fed different data in A, read by `pad` (which writes it with
// zeros around: or, `identity`, as it is) and read again, later, by `add`. Bug: none.
void input_read_twice(fixture_dump& d, bool a, bool identity) {
  std::vector<float> g = spread_values(8, a ? 0.7f : 0.2f);
  typed_tensor(d, 2, "pad", true, "x", g, hash_of("1", a));
  std::vector<float> padded(g);
  if (!identity) {
    padded.insert(padded.begin(), 0.f);
    padded.push_back(0.f);
  }
  typed_tensor(d, 2, "pad", false, "y", padded, identity ? hash_of("1", a) : hash_of("2", a));
  typed_tensor(d, 3, "add", true, "x", g, hash_of("1", a));
  typed_tensor(d, 3, "add", false, "y", std::vector<float>{g[0] + 1}, hash_of("3", a));
  d.finish();
}

const pa::graph_hint* copy_hint(const pa::compared_run& run) {
  for (const pa::graph_hint& h : run.graph.hints)
    if (h.kind == pa::hint_kind::unlinked_copy) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("copies: an input holding part of a differing output's values is a copy, not fed data") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  sliced_output(a, true, true);
  sliced_output(b, false, true);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
  CHECK_FALSE(some_graph_input(run));
  const pa::graph_hint* h = copy_hint(run);
  REQUIRE(h);
  CHECK(h->producer_key == "p#0/out/y");
  CHECK(h->part == pa::part_relation::part_of);
  CHECK(copy_reach(run, h->reaches) == std::set<std::string>{"c#0"});
  CHECK(run.graph.part_checks == 1);
  CHECK(run.graph.part_values_read <= 2 * (8 + 16));
  CHECK(flat_text(r).find("holds part of the values p#0/out/y wrote (by their values), in both runs") != std::string::npos);
  CHECK(pa::compare_json(r).find(R"("part":"part")") != std::string::npos);

  // Values that are not p's in the buggy run: fed data, as before.
  temp_dir d2;
  fixture_dump a2(d2 / "a"), b2(d2 / "b");
  sliced_output(a2, true, false);
  sliced_output(b2, false, false);
  const pa::compare_report r2 = compare(d2 / "a", d2 / "b");
  CHECK(copy_hint(r2.runs[0]) == nullptr);
  CHECK(some_graph_input(r2.runs[0]));
}

TEST_CASE("copies: an input holding differing outputs' values side by side is a copy of the one that fails") {
  for (const char* bug : {"p1", "p2"}) {
    CAPTURE(bug);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    gathered_outputs(a, bug);
    gathered_outputs(b, "");
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_ops(run) == std::vector<std::string>{std::string(bug) + "#0"});
    CHECK_FALSE(some_graph_input(run));
    const pa::graph_hint* h = copy_hint(run);
    REQUIRE(h);
    CHECK(h->producer_key == std::string(bug) + "#0/out/y");
    CHECK(h->part == pa::part_relation::among);
    CHECK(flat_text(r).find("wrote among others (by their values)") != std::string::npos);
  }
}

TEST_CASE("copies: an input holding a differing output's values in another order is a copy") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  transposed_output(a, true);
  transposed_output(b, false);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
  const pa::graph_hint* h = copy_hint(run);
  REQUIRE(h);
  CHECK(h->part == pa::part_relation::reordered);
  CHECK(pa::compare_json(r).find(R"("part":"reordered")") != std::string::npos);
}

TEST_CASE("copies: a graph input read again after an op copied it is fed data, not a copy of that op's output") {
  // pad's output holds g (and identity's its bytes) because g was there first: add's input
  // is the graph input, fed different data, as pad's is.
  for (bool identity : {false, true}) {
    CAPTURE(identity);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    input_read_twice(a, true, identity);
    input_read_twice(b, false, identity);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(copy_hint(run) == nullptr);
    size_t graph_inputs = 0;
    for (const pa::root_cause& root : run.graph.roots) graph_inputs += root.kind == pa::root_kind::graph_input;
    CHECK(graph_inputs == 2);
  }
}

TEST_CASE("copies: values that are not evidence (a mask of zeros and ones) are no copy") {
  // m holds 0 and 1, as p's output does; m was fed different data.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const bool bug = x == &a;
    std::vector<float> y = spread_values(16, 0.4f);
    y[0] = 0, y[1] = 1;
    if (bug) y[9] += 1;
    typed_tensor(*x, 2, "p", false, "y", y, hash_of("1", bug));
    std::vector<float> m{1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1};
    if (bug) m[2] = 1;
    typed_tensor(*x, 3, "c", true, "m", m, hash_of("2", bug));
    typed_tensor(*x, 3, "c", false, "y", std::vector<float>{bug ? 2.f : 1.f}, hash_of("3", bug));
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK(copy_hint(r.runs[0]) == nullptr);
  CHECK(some_graph_input(r.runs[0]));
}

TEST_CASE("copies: the lookup by value reads at most its budget, and a few outputs per input") {
  // 40 layers, each with a weight no op wrote that differs (other weights) and an output that
  // fails: each weight may be looked up among the outputs before it.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const bool other = x == &a;
    for (int l = 0; l < 40; ++l) {
      const std::string op = "layer" + std::to_string(l), tag = std::to_string(l);
      typed_tensor(*x, static_cast<uint64_t>(l + 1), op, true, "w", spread_values(16, other ? 0.3f * l : 0.7f * l),
                   hash_of("w" + tag, other));
      typed_tensor(*x, static_cast<uint64_t>(l + 1), op, false, "y", spread_values(64, other ? 5.f + l : 9.f + l),
                   hash_of("y" + tag, other));
    }
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(run.graph.roots.size() == 40);
  CHECK(run.graph.part_checks <= 40 * pa::copy_lookup::k_part_candidates);
  CHECK(run.graph.part_values_read <= run.graph.part_checks * 2 * (64 + 64));
  // each tensor is read once however many inputs it is held against: 40 outputs of 64 values
  // and 40 weights of 16, in both runs
  CHECK(run.graph.part_values_read <= 2 * 40 * (64 + 16));

  pa::graph_context ctx;
  ctx.outside_step = &run.outside_step;
  ctx.open_values = pa::open_npy_values;
  ctx.value_budget = 500;
  const pa::graph_answers g = pa::analyze_graph(run.pairs, ctx);
  CHECK(g.part_values_read > 0);
  CHECK(g.part_values_read <= 500);
  CHECK(g.roots.size() == 40);
}

TEST_CASE("copies: a graph input read in part by an op that copies it is fed data where read again whole") {
  // slice reads x[0, 8) through its own view (other bytes, another hash) and writes them as
  // they are; add reads all of x later. slice's output holds part of x because x was there
  // first: both inputs are graph inputs fed different data, neither a copy.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* f : {&a, &b}) {
    const bool fed = f == &a;
    const std::vector<float> x = spread_values(16, fed ? 0.8f : 0.1f), head(x.begin(), x.begin() + 8);
    typed_tensor(*f, 2, "slice", true, "x", head, hash_of("1", fed));
    typed_tensor(*f, 2, "slice", false, "y", head, hash_of("1", fed));
    typed_tensor(*f, 3, "add", true, "x", x, hash_of("2", fed));
    typed_tensor(*f, 3, "add", false, "y", std::vector<float>{x[0] + x[15]}, hash_of("3", fed));
    f->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(copy_hint(run) == nullptr);
  size_t graph_inputs = 0;
  for (const pa::root_cause& root : run.graph.roots) graph_inputs += root.kind == pa::root_kind::graph_input;
  CHECK(graph_inputs == 2);
}

TEST_CASE("copies: the lookup by value refuses shapes past what it can read, without reading") {
  // A damaged header's shape (2^40 x 2^40 elements overflows; 2^29 elements is past what a
  // sketch holds, and 2^61 elements would overflow its size): no relation, and nothing read.
  struct counting : pa::side_values {
    explicit counting(size_t* reads) : reads_(reads) {}
    bool read(int64_t, size_t n, std::vector<double>* out) override {
      ++*reads_;
      out->assign(n, 0.5);
      return true;
    }
    size_t* reads_;
  };
  size_t reads = 0;
  pa::part_copy_finder finder([&](const pa::pair_side&) { return std::unique_ptr<pa::side_values>(new counting(&reads)); },
                              uint64_t{1} << 62);
  for (int64_t big : {int64_t{1} << 40, int64_t{1} << 29, int64_t{1} << 61}) {
    CAPTURE(big);
    pa::compared_pair in, out;
    for (pa::pair_side* s : {&in.a, &in.b, &out.a, &out.b}) {
      s->present = true;
      s->type = probe::dtype::float32;
      s->file = s == &in.a ? "in_a" : s == &in.b ? "in_b" : s == &out.a ? "out_a" : "out_b";
      s->ndim = 1;
      s->shape[0] = 16;
    }
    for (pa::pair_side* s : {&out.a, &out.b}) {
      s->ndim = big == (int64_t{1} << 40) ? 2 : 1;
      s->shape[0] = big;
      s->shape[1] = big;
    }
    CHECK(finder.relation(in, out) == pa::part_relation::none);
  }
  CHECK(finder.values_read() <= 16);  // at most the small side's samples
}

namespace {

// p writes y (16 values, dtype P); plain code copies y[4, 12) cast to dtype C into a fresh
// buffer that c reads. Bug in p: y[6] moves by bug_size.
template <class P, class C>
void sliced_and_cast(fixture_dump& d, bool bug, P bug_size = 1) {
  std::vector<P> y;
  for (float v : spread_values(16, 0.9f)) y.push_back(static_cast<P>(v) / 3);
  if (bug) y[6] += bug_size;
  typed_tensor(d, 2, "p", false, "y", y, hash_of("1", bug));
  std::vector<C> part;
  for (size_t i = 4; i < 12; ++i) part.push_back(static_cast<C>(y[i]));
  typed_tensor(d, 3, "c", true, "x", part, hash_of("2", bug));
  typed_tensor(d, 3, "c", false, "y", std::vector<C>{part[2] * 2}, hash_of("3", bug));
  d.finish();
}

}  // namespace

TEST_CASE("copies: part of a differing output's values cast to another dtype is a copy, widened or narrowed") {
  for (bool widened : {true, false}) {
    CAPTURE(widened);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    if (widened) {
      sliced_and_cast<float, double>(a, true);
      sliced_and_cast<float, double>(b, false);
    } else {
      sliced_and_cast<double, float>(a, true);
      sliced_and_cast<double, float>(b, false);
    }
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
    CHECK_FALSE(some_graph_input(run));
    const pa::graph_hint* h = copy_hint(run);
    REQUIRE(h);
    CHECK(h->part == pa::part_relation::part_of);
    const std::string cast = widened ? "float32 -> float64" : "float64 -> float32";
    CHECK(h->converted == cast);
    CHECK(flat_text(r).find("holds part of the values p#0/out/y wrote, cast " + cast + " (by their values)") !=
          std::string::npos);
  }
}

TEST_CASE("copies: a widened copy that fails where its source passes is a copy, not fed data") {
  // p's bug (4e-6 on a value near 0.4) is within float32's tolerance, so p passes; the copy,
  // widened to float64, is judged at float64's and fails, as c does.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  sliced_and_cast<float, double>(a, true, 4e-6f);
  sliced_and_cast<float, double>(b, false);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(run.graph.roots.empty());
  const pa::graph_hint* h = copy_hint(run);
  REQUIRE(h);
  CHECK(h->producer_key == "p#0/out/y");
  CHECK(h->differing == 1);
  CHECK(copy_reach(run, h->reaches) == std::set<std::string>{"c#0"});
}
