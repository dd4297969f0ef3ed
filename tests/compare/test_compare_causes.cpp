// probe compare's causes that must be true when they appear and found when they exist:
// "outside any op" only where outside code shows, differing weights as one finding, a CI gate
// that accepts rounding, every faulty instance of a kernel named (the same roots from a
// stats-only dump as from an .npy dump), and answers whose work grows with the graph.
#include <doctest/doctest.h>

#include "analysis/compare_json.hpp"
#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

#include <cmath>

#include "../support/capture.hpp"
#include "manifest_fixture.hpp"
#include "compare_checked.hpp"

using namespace compare_test;
namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;

// Sorted: these tests name the roots, not their order.
std::vector<std::string> sorted_roots(const pa::compared_run& run) {
  std::vector<std::string> out = root_ops(run);
  std::sort(out.begin(), out.end());
  return out;
}

bool has_outside_hint(const pa::compared_run& run) {
  for (const pa::graph_hint& h : run.graph.hints)
    if (h.kind == pa::hint_kind::outside_op) return true;
  return false;
}

// Three layers rewrite one scratch buffer in full; each later layer's prior state of it is
// recorded as an implicit input after the kernel ran, so it holds the layer's own result.
void scratch_layers(fixture_dump& d, bool bug) {
  std::vector<float> s{1, 2, 3, 4};
  for (uint64_t l = 0; l < 3; ++l) {
    std::vector<float> next(s);
    for (float& v : next) v = v * 2 + 1;
    if (bug && l == 1) next[2] += 5;
    if (l > 0)
      d.in(l + 1, "layer", "scratch", next, "layer#" + std::to_string(l - 1) + "/out/scratch", R"("implicit":true)", 0, l);
    d.out(l + 1, "layer", "scratch", next, "", 0, l);
    s = next;
  }
  d.finish();
}

}  // namespace

TEST_CASE("causes: a scratch buffer each layer rewrites is a normal edge, never code outside any op") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  scratch_layers(a, true);
  scratch_layers(b, false);
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK_FALSE(has_outside_hint(r.runs[0]));
  CHECK(flat_text(r).find("outside any op") == std::string::npos);
}

TEST_CASE("causes: an input read with another shape from matching bytes is no sign of outside code") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const bool is_a = x == &a;
    x->out(1, "p", "y", {1, 2, 3, 4});
    tensor_spec in;
    in.seq = 2, in.op = "c", in.slot = "x", in.input = true, in.values = {1, 2, 3, 4};
    in.shape = is_a ? std::vector<int64_t>{1, 4} : std::vector<int64_t>{4};
    in.extra = R"("producer":"p#0/out/y","producers":[{"key":"p#0/out/y","bytes":16,"offset":0}])";
    x->add(in);
    x->out(2, "c", "y", {is_a ? 11.f : 10.f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK_FALSE(has_outside_hint(run));
  CHECK(sorted_roots(run) == std::vector<std::string>{"c#0"});
  const std::string text = flat_text(r);
  CHECK(text.find("outside any op") == std::string::npos);
  CHECK(text.find("input x is read with another shape (SHAPE [1,4] vs [4]) from bytes that match") != std::string::npos);
}

TEST_CASE("causes: a stale mark the hashes contradict is no hint") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const std::string h = x == &a ? R"("hash":"00000000000000aa")" : R"("hash":"00000000000000bb")";
    x->out(1, "fill", "buf", {1, 2, 3}, h);
    x->in(2, "use", "x", {1, 2, 3}, "",
          h + R"(,"stale":{"producer":"fill#0/out/buf","last_op_before":"fill"})");
    x->out(2, "use", "y", {x == &a ? 7.f : 6.f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK_FALSE(has_outside_hint(r.runs[0]));
  CHECK(sorted_roots(r.runs[0]) == std::vector<std::string>{"use#0"});
}

namespace {

// A model of `layers` layers run for 5 tokens: each layer's matmul reads the previous output
// and its weight w (a graph input); model A's weights differ from B's.
void model(fixture_dump& d, int layers, float weight) {
  uint64_t seq = 1;
  for (int token = 0; token < 5; ++token) {
    const uint64_t occ = static_cast<uint64_t>(token);
    std::string from;
    float x = 1;
    for (int l = 0; l < layers; ++l) {
      const std::string op = "L" + std::to_string(l) + ".mm";
      d.in(seq, op, "x", {x}, from, "", token, occ, "MatMul");
      d.in(seq, op, "w", {weight + static_cast<float>(l)}, "", "", token, occ, "MatMul");
      x *= weight + static_cast<float>(l);
      d.out(seq++, op, "y", {x}, "", token, occ, "MatMul");
      from = op + "#" + std::to_string(token) + "/out/y";
    }
  }
  d.finish();
}

}  // namespace

TEST_CASE("causes: two different models: differing weights are one finding, by op and slot") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  model(a, 3, 2);
  model(b, 2, 3);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(run.graph.roots.size() == 10);  // w of L0.mm and L1.mm at each of 5 tokens
  REQUIRE(run.findings.input_groups.size() == 2);
  CHECK(run.findings.input_groups[0].roots.size() == 5);
  const std::string text = flat_text(r);
  CHECK(count_of(text, "Root cause:") == 1);
  CHECK(text.find("Root cause: graph inputs or weights differ, the runs were fed different data: "
                  "w of L0.mm (5 of 5 occurrences), w of L1.mm (5 of 5 occurrences).") != std::string::npos);
}

namespace {

// Values near 10 and one near 0: an error of 3e-5 there fails float32's tolerance while it
// is 3e-6 of the tensor's scale, rounding.
std::vector<float> rounding_noise(bool a) {
  std::vector<float> v{10, -7, 0, 3, 5};
  if (a) v[2] += 3.3e-5f;
  return v;
}

}  // namespace

TEST_CASE("causes: --accept-rounding passes a gate when every failure is rounding-level, and only then") {
  // in_place: `act` updates mm2's output in place without declaring it (its prior state
  // recorded after the kernel, no data: its producer's verdict, which is rounding-level)
  for (bool real_bug : {false, true})
    for (bool in_place : {false, true}) {
    CAPTURE(real_bug);
    CAPTURE(in_place);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    for (fixture_dump* x : {&a, &b}) {
      for (uint64_t k = 0; k < 3; ++k) {
        const std::string op = "mm" + std::to_string(k);
        x->in(k + 1, op, "x", {1, 2, 3, 4, 5}, "");
        x->out(k + 1, op, "y", rounding_noise(x == &a));
      }
      if (in_place) {
        compare_test::tensor_spec t;
        t.seq = 5, t.op = "act", t.slot = "y", t.values = rounding_noise(x == &a), t.input = true, t.write_file = false;
        t.extra = R"("producer":"mm2#0/out/y","implicit":true,"prior":"producers",)"
                  R"("producers":[{"key":"mm2#0/out/y","bytes":20,"offset":0}])";
        x->add(t);
        x->out(5, "act", "y", rounding_noise(x == &a));
      }
      x->in(4, "head", "x", {1, 2}, "");
      x->out(4, "head", "y", {1, x == &a && real_bug ? 2.5f : 2.f});
      x->finish();
    }
    const pa::compare_report plain = compare(d / "a", d / "b");
    CHECK(plain.exit_code() == 1);
    pa::compare_settings s;
    s.accept_rounding = true;
    const pa::compare_report r = compare(d / "a", d / "b", s);
    CHECK(r.exit_code() == (real_bug ? 1 : 0));
    CHECK(r.all_rounding == !real_bug);
    const std::string text = flat_text(r);
    // no paragraph per rounding-level root: one line names them
    CHECK(count_of(text, "Root cause:") == (real_bug ? 1u : 0u));
    CHECK(text.find("Rounding-level differences (largest error 3.3e-6 of a tensor's scale) start at 3 ops: mm0#0 (seq 1), "
                    "mm1#0 (seq 2), mm2#0 (seq 3).") != std::string::npos);
    if (real_bug) CHECK(text.find("Root cause: op head#0") != std::string::npos);
    else CHECK(text.find("accepted (--accept-rounding)") != std::string::npos);
  }
}

namespace {

// x -> conv#0 -> shrink#0 -> conv#1 -> conv#2 over 4096 values. The conv kernel is wrong at
// conv#0 and conv#2 (a large error at one element); shrink makes conv#0's error small enough
// that the statistics of what follows still agree, while the values do not.
void conv_chain(fixture_dump& d, bool bug, bool stats_only) {
  const size_t n = 4096;
  std::vector<float> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = static_cast<float>((k * 37) % 101) / 100.f - 0.5f;
  uint64_t seq = 1;
  std::string from;
  auto add = [&](bool input, const std::string& op, uint64_t occ, const char* type, const std::vector<float>& x) {
    tensor_spec t;
    t.seq = seq, t.op = op, t.occurrence = occ, t.type = type, t.slot = input ? "x" : "y", t.input = input;
    t.values = x, t.write_file = !stats_only, t.stats = true;
    if (input) t.extra = "\"producer\":" + (from.empty() ? std::string("null") : "\"" + from + "\"");
    d.add(t);
    if (!input) from = op + "#" + std::to_string(occ) + "/out/y";
  };
  auto conv = [&](uint64_t occ, bool wrong) {
    add(true, "conv", occ, "Conv", v);
    std::vector<float> o(n);
    for (size_t k = 0; k < n; ++k) o[k] = 0.5f * v[k] + 0.25f * v[(k + 1) % n];
    if (wrong) o[1 + 13 * occ] += 0.1f;
    add(false, "conv", occ, "Conv", o);
    ++seq;
    v = o;
  };
  conv(0, bug);
  add(true, "shrink", 0, "Scale", v);
  for (float& x : v) x *= 1e-3f;
  add(false, "shrink", 0, "Scale", v);
  ++seq;
  conv(1, false);
  conv(2, bug);
  d.finish();
}

}  // namespace

TEST_CASE("causes: a stats-only dump and an .npy dump of the same runs name the same roots and faulty instances") {
  std::vector<std::string> roots[2];
  for (int stats_only = 0; stats_only < 2; ++stats_only) {
    CAPTURE(stats_only);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    conv_chain(a, true, stats_only);
    conv_chain(b, false, stats_only);
    const pa::compare_report r = compare(d / "a", d / "b");
    roots[stats_only] = sorted_roots(r.runs[0]);
    CHECK(roots[stats_only] == std::vector<std::string>{"conv#0"});
    // conv#2's inputs differ already: not provable, but named with the faulty type (adding
    // error beyond its inputs where values measure it; not judged where statistics do)
    REQUIRE(r.runs[0].findings.types.size() == 1);
    const pa::type_group& t = r.runs[0].findings.types[0];
    bool named = false;
    for (const std::vector<size_t>* v : {&t.faulty, &t.suspects})
      for (size_t ni : *v) named = named || r.runs[0].graph.nodes[ni].op_key == "conv#2";
    CHECK_MESSAGE(named, pa::compare_text(r));
  }
  CHECK(roots[0] == roots[1]);
}

TEST_CASE("causes: a later faulty instance is named whatever its error next to the error it inherits") {
  // conv#0 and conv#2 wrong; conv#2 adds less error than it inherits from conv#0
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    std::vector<float> v{0.5f, -1, 2, -0.25f, 1.5f, 3, -2, 0.75f};
    std::string from;
    for (uint64_t l = 0; l < 3; ++l) {
      x->in(l + 1, "conv", "x", v, from, "", 0, l, "Conv");
      std::vector<float> o(v.size());
      for (size_t k = 0; k < v.size(); ++k) o[k] = v[k] + 0.25f * v[(k + 1) % v.size()];
      if (x == &a && l == 0) o[3] += 0.04f;
      if (x == &a && l == 2) o[5] += 0.004f;
      x->out(l + 1, "conv", "y", o, "", 0, l, "Conv");
      from = "conv#" + std::to_string(l) + "/out/y";
      v = o;
    }
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(sorted_roots(run) == std::vector<std::string>{"conv#0"});
  REQUIRE(run.findings.types.size() == 1);
  const pa::type_group& t = run.findings.types[0];
  REQUIRE(t.suspects.size() == 2);
  CHECK(run.graph.nodes[t.suspects[1]].op_key == "conv#2");
  CHECK(t.growth[1] < 1.5);
  const std::string text = flat_text(r);
  CHECK(text.find("not judged, their inputs differ already (probe replay judges each alone): conv#1 (seq 2, error x") !=
        std::string::npos);
  CHECK(text.find("conv#2 (seq 3, error x") != std::string::npos);
}

TEST_CASE("causes: an op that is a root at several occurrences names every one") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b})
    for (uint64_t l = 0; l < 3; ++l) {
      x->in(l + 1, "conv", "x", {1, 2, 3}, "", "", 0, l, "Conv");
      x->out(l + 1, "conv", "y", {2, 4, x == &a && l != 1 ? 7.f : 6.f}, "", 0, l, "Conv");
      if (l == 2) x->finish();
    }
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK(sorted_roots(r.runs[0]) == std::vector<std::string>{"conv#0", "conv#2"});
  const std::string text = flat_text(r);
  CHECK(count_of(text, "Root cause:") == 1);
  CHECK(text.find("conv: root cause at 2 of 3 occurrences: conv#0 (seq 1), conv#2 (seq 3); first at step 0") !=
        std::string::npos);
}

TEST_CASE("causes: the answers' work grows with the number of roots, not its square") {
  // n independent ops, each reading a matching graph input and writing a differing output
  for (size_t n : {2000, 8000}) {
    CAPTURE(n);
    std::vector<pa::compared_pair> pairs;
    for (size_t i = 0; i < n; ++i)
      for (int io = 0; io < 2; ++io) {
        pa::compared_pair p;
        p.op = "op" + std::to_string(i);
        p.slot = io ? "y" : "x";
        p.is_input = io == 0;
        p.key = p.op + "#0/" + (io ? "out/y" : "in/x");
        p.seq = i + 1;
        p.a.present = p.b.present = true;
        p.a.type = p.b.type = probe::dtype::float32;
        p.status = io ? pa::pair_status::mismatch : pa::pair_status::ok;
        p.metrics.max_abs = io ? 0.5 : 0;
        p.scale = 2;
        pairs.push_back(std::move(p));
      }
    pa::graph_answers g = pa::analyze_graph(pairs);
    const pa::run_findings f = pa::find_more(pairs, &g);
    CHECK(g.roots.size() == n);
    CHECK(f.root_groups.size() == n);
    CHECK(f.types.size() == n);
    // every node is looked at a few times, whatever the number of roots
    CHECK(g.visits + f.visits <= 4 * n);
  }
}

TEST_CASE("causes: the lookup for cast copies tries a bounded number of outputs per input") {
  // n ops, each reading a differing float64 graph input (other weights) and writing a
  // differing float32 output of as many elements that no input is a cast of
  for (size_t n : {500, 2000}) {
    CAPTURE(n);
    std::vector<pa::compared_pair> pairs;
    for (size_t i = 0; i < n; ++i)
      for (int io = 0; io < 2; ++io) {
        pa::compared_pair p;
        p.op = "op" + std::to_string(i);
        p.slot = io ? "y" : "w";
        p.is_input = io == 0;
        p.key = p.op + "#0/" + (io ? "out/y" : "in/w");
        p.seq = i + 1;
        for (pa::pair_side* s : {&p.a, &p.b}) {
          s->present = true;
          s->type = io ? probe::dtype::float32 : probe::dtype::float64;
          s->have_stats = true;
          s->stats.count = s->stats.finite = 4;
          s->stats.min = io ? -1.0 : 10.0 + static_cast<double>(i);
          s->stats.max = io ? 1.0 : 20.0 + static_cast<double>(i);
          s->stats.mean = 0.5;
        }
        p.status = pa::pair_status::mismatch;
        p.metrics.compared = true;
        p.metrics.max_abs = 0.5;
        p.scale = 2;
        pairs.push_back(std::move(p));
      }
    const pa::graph_answers g = pa::analyze_graph(pairs);
    CHECK(g.roots.size() >= n);  // each input is fed data
    CHECK(g.hints.empty());
    CHECK(g.cast_checks <= 2 * 64 * n);  // not n^2 / 2
  }
}

TEST_CASE("causes: an op that grows an earlier root's difference back past the tolerance is not a root") {
  // input x differs at x[0]; a scales it by 1e-5, so its error passes the tolerance; b scales
  // it back by 1e5, so b fails while its input "matches": the difference is input#0's.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const float x0 = x == &a ? 1.5f : 1.0f;
    x->out(1, "input", "x", {x0, 2, 3});
    x->in(2, "a", "x", {x0, 2, 3}, "input#0/out/x");
    x->out(2, "a", "y", {x0 * 1e-5f, 2e-5f, 3e-5f});
    x->in(3, "b", "y", {x0 * 1e-5f, 2e-5f, 3e-5f}, "a#0/out/y");
    x->out(3, "b", "z", {x0, 2, 3});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(sorted_roots(run) == std::vector<std::string>{"input#0"});
  REQUIRE(run.graph.regrown.size() == 1);
  CHECK(run.graph.nodes[run.graph.regrown[0].first].op_key == "b#0");
  const std::string text = flat_text(r);
  CHECK(text.find("its difference grows past it again at b#0") != std::string::npos);
  // An op whose inputs are the same bytes in both runs stays a root.
  temp_dir e;
  fixture_dump a2(e / "a"), b2(e / "b");
  for (fixture_dump* x : {&a2, &b2}) {
    x->out(1, "input", "x", {1, 2, 3});
    x->in(2, "a", "x", {1, 2, 3}, "input#0/out/x");
    x->out(2, "a", "y", {x == &a2 ? 7.f : 1.f, 2, 3});
    x->finish();
  }
  CHECK(sorted_roots(compare(e / "a", e / "b").runs[0]) == std::vector<std::string>{"a#0"});
}

TEST_CASE("causes: an op that grows back a difference written outside any op joins that hint, not the roots") {
  // Code outside any op writes a's input x differently in the two runs (a hint at it); a
  // scales it by 1e-5, so its error passes the tolerance; b scales it back and fails while
  // its input "matches": the difference is the hint's, b is no root.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const float x0 = x == &a ? 1.5f : 1.0f;
    const std::string written = x == &a ? R"("hash":"00000000000000aa")" : R"("hash":"00000000000000bb")";
    x->out(1, "fill", "buf", {1, 2, 3}, R"("hash":"0000000000000001")");
    x->in(2, "a", "x", {x0, 2, 3}, "", written + R"(,"stale":{"producer":"fill#0/out/buf","last_op_before":"fill"})");
    x->out(2, "a", "y", {x0 * 1e-5f, 2e-5f, 3e-5f});
    x->in(3, "b", "y", {x0 * 1e-5f, 2e-5f, 3e-5f}, "a#0/out/y");
    x->out(3, "b", "z", {x0, 2, 3});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(sorted_roots(run).empty());
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].kind == pa::hint_kind::outside_op);
  CHECK(run.graph.regrown.empty());
  REQUIRE(run.graph.regrown_by_hint.size() == 1);
  CHECK(run.graph.nodes[run.graph.regrown_by_hint[0].first].op_key == "b#0");
  CHECK(run.graph.regrown_by_hint[0].second == 0);
  CHECK(run.graph.unexplained.empty());
  const std::string text = flat_text(r);
  CHECK(text.find("its difference grows past it again at b#0") != std::string::npos);
  CHECK(pa::compare_json(r).find(R"("regrown_by_hint":[{"op_key":"b#0","hint":0}])") != std::string::npos);
}

TEST_CASE("causes: a root's difference in bytes code outside any op rewrote in part is still that root's") {
  // Root a; s scales its output by 1e-5 (within tolerance, but different); code outside any
  // op halves w[2] in place in both runs; c reads w, scales it back and fails: a's reach.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const float y0 = x == &a ? 1.5f : 1.0f;
    x->out(1, "input", "x", {1, 2, 3});
    x->in(2, "a", "x", {1, 2, 3}, "input#0/out/x");
    x->out(2, "a", "y", {y0, 2, 3});
    x->in(3, "s", "y", {y0, 2, 3}, "a#0/out/y");
    x->out(3, "s", "w", {y0 * 1e-5f, 2e-5f, 3e-5f}, x == &a ? R"("hash":"00000000000000a1")" : R"("hash":"00000000000000b1")");
    x->in(4, "c", "w", {y0 * 1e-5f, 2e-5f, 1.5e-5f}, "",
          std::string(x == &a ? R"("hash":"00000000000000a2")" : R"("hash":"00000000000000b2")") +
              R"(,"stale":{"producer":"s#0/out/w","last_op_before":"s"})");
    x->out(4, "c", "z", {y0, 2, 1.5f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(sorted_roots(run) == std::vector<std::string>{"a#0"});
  REQUIRE(run.graph.regrown.size() == 1);
  CHECK(run.graph.nodes[run.graph.regrown[0].first].op_key == "c#0");
}
