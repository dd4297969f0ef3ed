// probe compare on the data-flow records of real engines: in-place and partial writes
// (inout, implicit, producers per byte range), buffers written outside any op (stale), and
// filters (--tol, --step) that must not invent a diagnosis. Dumps are written by hand.
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

// The report with wrapped lines joined again.
std::set<std::string> reach_of(const pa::compared_run& run, const std::vector<size_t>& reaches) {
  std::set<std::string> out;
  for (size_t n : reaches) out.insert(run.graph.nodes[n].op_key);
  return out;
}

// Two ops write the halves of one buffer; `sum` reads all of it. Bug: "left" or "right".
void halves(fixture_dump& d, const std::string& bug) {
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  d.out(1, "src", "y", x);
  std::vector<float> l{2, 4, 6, 8}, r{10, 12, 14, 16};
  if (bug == "left") l[1] += 1;
  if (bug == "right") r[2] += 1;
  d.in(2, "left", "x", x, "src#0/out/y");
  d.out(2, "left", "y", l);
  d.in(3, "right", "x", x, "src#0/out/y");
  d.out(3, "right", "y", r);
  std::vector<float> buf(l);
  buf.insert(buf.end(), r.begin(), r.end());
  // the singular producer names the one covering most bytes (here: right, by a tie)
  d.in(4, "sum", "x", buf, "right#0/out/y",
       R"("producers":[{"key":"left#0/out/y","bytes":16,"offset":0},{"key":"right#0/out/y","bytes":16,"offset":16}])");
  float s = 0;
  for (float v : buf) s += v;
  d.out(4, "sum", "y", {s});
  d.finish();
}

}  // namespace

TEST_CASE("dataflow: two ops write disjoint halves of a buffer; a bug in either is the one root") {
  for (const char* bug : {"left", "right"}) {
    CAPTURE(bug);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    halves(a, bug);
    halves(b, "");
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_ops(run) == std::vector<std::string>{std::string(bug) + "#0"});
    REQUIRE(run.graph.roots.size() == 1);
    CHECK(reach_of(run, run.graph.roots[0].reaches) == std::set<std::string>{"sum#0"});
    CHECK(run.graph.hints.empty());
    CHECK(run.graph.unexplained.empty());
    const std::string text = flat_text(r);
    CHECK(text.find("changed in between") == std::string::npos);
    CHECK(text.find("outside any op") == std::string::npos);
  }
}

namespace {

// f is updated in place by `scale` then `shift` (op.inout); `read` consumes it.
// bugs: "scale" (elements 0, 1), "shift" (element 5), or both.
void in_place(fixture_dump& d, bool bug_scale, bool bug_shift, bool implicit) {
  std::vector<float> f0{1, 2, 3, 4, 5, 6};
  d.out(1, "init", "f", f0);
  std::vector<float> f1(f0), f2;
  for (float& v : f1) v *= 2;
  if (bug_scale) f1[0] += 3, f1[1] += 3;
  f2 = f1;
  for (float& v : f2) v += 1;
  if (bug_shift) f2[5] += 7;
  const std::string mark = implicit ? R"("implicit":true)" : R"("inout":true)";
  d.in(2, "scale", "f", f0, "init#0/out/f", mark);
  d.out(2, "scale", "f", f1, implicit ? "" : mark);
  d.in(3, "shift", "f", f1, "scale#0/out/f", mark);
  d.out(3, "shift", "f", f2, implicit ? "" : mark);
  d.in(4, "read", "x", f2, "shift#0/out/f");
  d.out(4, "read", "y", {f2[0] + f2[5]});
  d.finish();
}

}  // namespace

TEST_CASE("dataflow: in-place updates are blamed only for the elements they got wrong") {
  for (bool implicit : {false, true}) {
    CAPTURE(implicit);
    struct {
      bool scale, shift;
      std::vector<std::string> roots;
    } cases[] = {{true, false, {"scale#0"}},
                 {false, true, {"shift#0"}},
                 // shift reads what scale got wrong (declared or not): only scale is a root
                 // cause; shift's own error is replay's to find
                 {true, true, {"scale#0"}}};
    for (const auto& c : cases) {
      CAPTURE(c.scale);
      CAPTURE(c.shift);
      temp_dir d;
      fixture_dump a(d / "a"), b(d / "b");
      in_place(a, c.scale, c.shift, implicit);
      in_place(b, false, false, implicit);
      const pa::compare_report r = compare(d / "a", d / "b");
      const pa::compared_run& run = r.runs[0];
      std::vector<std::string> got = root_ops(run);
      std::sort(got.begin(), got.end());
      CHECK(got == c.roots);
      CHECK(run.graph.unexplained.empty());
      if (c.scale && !c.shift) {
        // shift carries scale's error on: reached, not blamed
        REQUIRE(run.graph.roots.size() == 1);
        CHECK(reach_of(run, run.graph.roots[0].reaches) == std::set<std::string>{"shift#0", "read#0"});
      }
      if (c.scale && c.shift) {
        REQUIRE(run.graph.roots.size() == 1);
        CHECK(reach_of(run, run.graph.roots[0].reaches) == std::set<std::string>{"shift#0", "read#0"});
      }
    }
  }
}

namespace {

// `bias` writes rows of f (a bug in A: one column); `rowscale` divides each row in place by
// its mean |value| (its prior state recorded with data, as output_at_end given before the
// kernel records it, or from its producers); `read` consumes f.
void row_scale(fixture_dump& d, bool bug, bool with_data) {
  std::vector<float> f{1, 2, 3, 4, 5, 6, 7, 8};  // 2 rows of 4
  if (bug) f[1] += 1;
  d.out(1, "bias", "f", f);
  std::vector<float> g(f);
  for (int r = 0; r < 2; ++r) {
    float m = 0;
    for (int k = 0; k < 4; ++k) m += g[static_cast<size_t>(4 * r + k)];
    for (int k = 0; k < 4; ++k) g[static_cast<size_t>(4 * r + k)] /= m / 4;
  }
  if (with_data) d.in(2, "rowscale", "f", f, "bias#0/out/f", R"("implicit":true)");
  else {
    compare_test::tensor_spec t;  // recorded after the kernel: no data, its producers' verdict
    t.seq = 2, t.op = "rowscale", t.slot = "f", t.values = f, t.input = true, t.write_file = false;
    t.extra = R"("producer":"bias#0/out/f","implicit":true,"prior":"producers")";
    d.add(t);
  }
  d.out(2, "rowscale", "f", g);
  d.in(3, "read", "x", g, "rowscale#0/out/f");
  d.out(3, "read", "y", {g[0] + g[5]});
  d.finish();
}

}  // namespace

TEST_CASE("dataflow: an in-place row-wise update of a state that differs is not blamed for the row it spreads over") {
  // The one failing element of f spreads over its row; elements that were right before the
  // update fail after it, yet the update is right: the bias op is the one root.
  for (bool with_data : {true, false}) {
    CAPTURE(with_data);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    row_scale(a, true, with_data);
    row_scale(b, false, with_data);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_ops(run) == std::vector<std::string>{"bias#0"});
    REQUIRE(run.graph.roots.size() == 1);
    CHECK(reach_of(run, run.graph.roots[0].reaches) == std::set<std::string>{"rowscale#0", "read#0"});
    CHECK(run.graph.hints.empty());
  }
}

namespace {

// `fill` writes buf; code outside any op then overwrites it in A (stale) before `use` reads
// it, at each of three steps.
void scratch(fixture_dump& d, bool clobber, bool stale_field) {
  for (int step = 0; step < 3; ++step) {
    const uint64_t base = static_cast<uint64_t>(10 * step);
    const std::string occ = std::to_string(step);
    std::vector<float> v{1, 2, 3, 4};
    d.out(base + 1, "fill", "buf", v, "", step, static_cast<uint64_t>(step));
    d.out(base + 2, "other", "y", {0}, "", step, static_cast<uint64_t>(step));
    std::vector<float> seen = v;
    if (clobber) seen[2] = -9;
    const std::string stale = clobber && stale_field
                                  ? R"("stale":{"producer":"fill#)" + occ + R"(/out/buf","last_op_before":"other"})"
                                  : "";
    d.in(base + 3, "use", "x", seen, "fill#" + occ + "/out/buf", stale, step, static_cast<uint64_t>(step));
    d.out(base + 3, "use", "y", {seen[2] * 2}, "", step, static_cast<uint64_t>(step));
  }
  d.finish();
}

}  // namespace

TEST_CASE("dataflow: a buffer written by code outside any op is a hint once per place, not a root cause") {
  for (bool stale_field : {true, false}) {
    CAPTURE(stale_field);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    scratch(a, true, stale_field);
    scratch(b, false, false);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(run.graph.roots.empty());
    REQUIRE(run.graph.hints.size() == 1);
    const pa::graph_hint& h = run.graph.hints[0];
    CHECK(h.kind == pa::hint_kind::outside_op);
    CHECK(h.inputs.size() == 3);
    CHECK(h.differing == 3);
    CHECK(reach_of(run, h.reaches) == std::set<std::string>{"use#0", "use#1", "use#2"});
    CHECK(run.graph.unexplained.empty());
    const std::string text = flat_text(r);
    CHECK(text.find("Root cause") == std::string::npos);
    CHECK(text.find("changed in between") == std::string::npos);
    CHECK(text.find("written by code outside any op between fill#0/out/buf and use") != std::string::npos);
    CHECK(text.find("mark that code") != std::string::npos);
    if (stale_field) CHECK(text.find("the last op before it: other") != std::string::npos);
  }
}

TEST_CASE("dataflow: a stale input that matches is still a hint; a bug upstream stays the root") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    x->out(1, "fill", "buf", {1, 2, 3});
    x->in(2, "use", "x", {1, 2, 3}, "fill#0/out/buf", R"("stale":{"producer":"fill#0/out/buf","last_op_before":"fill"})");
    x->out(2, "use", "y", {x == &a ? 7.f : 6.f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"use#0"});
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].differing == 0);
  CHECK(pa::compare_text(r).find("(it matches)") != std::string::npos);
}

TEST_CASE("dataflow: a stale input differing as the output it overwrote did is not said to match") {
  // fill fails; code outside any op then rewrites its bytes (a residual added in place): the
  // difference is fill's, carried on, so the code is not blamed, and the input differs
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    x->out(1, "fill", "buf", {1, 2, x == &a ? 4.f : 3.f});
    x->in(2, "use", "x", {2, 4, x == &a ? 8.f : 6.f}, "fill#0/out/buf",
          R"("stale":{"producer":"fill#0/out/buf","last_op_before":"fill"})");
    x->out(2, "use", "y", {x == &a ? 7.f : 6.f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_ops(run) == std::vector<std::string>{"fill#0"});
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].differing == 0);
  CHECK(run.graph.hints[0].carried == 1);
  const std::string text = pa::compare_text(r);
  CHECK(text.find("(it matches)") == std::string::npos);
  CHECK(text.find("input x of use (it differs, as fill#0/out/buf did) was written by code outside any op") !=
        std::string::npos);
}

namespace {

void producer_consumer(fixture_dump& d, bool bug, const std::string& hashes) {
  std::vector<float> y{1, 2, 3, 4};
  if (bug) y[3] = 4.5f;
  d.in(1, "p", "x", {1, 1, 1, 1}, "");
  d.out(1, "p", "y", y, hashes.empty() ? "" : R"("hash":")" + hashes + "\"");
  d.in(2, "c", "x", y, "p#0/out/y", hashes.empty() ? "" : R"("hash":")" + hashes + "\"");
  d.out(2, "c", "y", {y[3]});
  d.finish();
}

}  // namespace

TEST_CASE("dataflow: --tol cannot pass bytes as one op's output and fail the same bytes as the next op's input") {
  for (bool with_hash : {true, false}) {
    CAPTURE(with_hash);
    temp_dir d;
    fixture_dump a(d / "a"), b(d / "b");
    producer_consumer(a, true, with_hash ? "00000000000000aa" : "");
    producer_consumer(b, false, with_hash ? "00000000000000bb" : "");
    pa::compare_settings s;
    std::string err;
    REQUIRE(s.add_override("^p#=1,0", &err));
    const pa::compare_report r = compare(d / "a", d / "b", s);
    const pa::compared_run& run = r.runs[0];
    CHECK(root_ops(run) == std::vector<std::string>{"p#0"});
    CHECK(run.graph.hints.empty());
    for (const pa::compared_pair& p : run.pairs)
      if (p.key == "p#0/out/y" || p.key == "c#0/in/x") {
        CHECK(p.status == pa::pair_status::mismatch);
        CHECK(p.metrics.tol.atol == doctest::Approx(1e-5));
        CHECK(p.tol_note.find("stricter tolerance of the two views") != std::string::npos);
      }
    const std::string text = flat_text(r);
    CHECK(text.find("stricter tolerance of the two views") != std::string::npos);
    CHECK(text.find("changed in between") == std::string::npos);
  }
}

TEST_CASE("dataflow: with --step, a producer at another step is outside --step, not missing") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const float v = x == &a ? 5.f : 4.f;
    x->in(1, "embed", "x", {1, 2}, "", "", 0);
    x->out(1, "embed", "y", {1, v}, "", 0);
    x->in(2, "decode", "x", {1, v}, "embed#0/out/y", "", 1);
    x->out(2, "decode", "y", {v * 2}, "", 1);
    x->finish();
  }
  pa::compare_settings s;
  s.has_step = true;
  s.step = 1;
  const pa::compare_report r = compare(d / "a", d / "b", s);
  const pa::compared_run& run = r.runs[0];
  CHECK(run.graph.roots.empty());
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].kind == pa::hint_kind::outside_step);
  CHECK(run.graph.hints[0].producer_step == 0);
  const std::string text = flat_text(r);
  CHECK(text.find("was not dumped") == std::string::npos);
  CHECK(text.find("outside --step (step 0)") != std::string::npos);
}

TEST_CASE("dataflow: an input partly written by an op and partly fed is a graph input where the op's part matches") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    x->out(1, "head", "y", {1, 2});
    // bytes 0..7 written by head, bytes 8..15 loaded by the host: they differ in A
    x->in(2, "use", "x", {1, 2, 3, x == &a ? 9.f : 4.f}, "head#0/out/y",
          R"("producers":[{"key":"head#0/out/y","bytes":8,"offset":0}])");
    x->out(2, "use", "y", {x == &a ? 9.f : 4.f});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(run.graph.roots[0].kind == pa::root_kind::graph_input);
  CHECK(run.graph.hints.empty());
  CHECK(flat_text(r).find("the runs were fed different data") != std::string::npos);
}

TEST_CASE("dataflow: the library's notes about an op are said once when both runs wrote them, with the run otherwise") {
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    x->out(1, "gelu", "y", {1, 2});
    x->raw(R"({"record":"note","seq":1,"op":"gelu","key_prefix":"gelu#0/","text":"both runs say this"})");
    if (x == &a) x->raw(R"({"record":"note","seq":1,"op":"gelu","key_prefix":"gelu#0/","text":"only A says this"})");
    x->finish();
  }
  const std::string text = flat_text(compare(d / "a", d / "b"));
  CHECK(count_of(text, "both runs say this") == 1);
  CHECK(count_of(text, "in A only: gelu: only A says this") == 1);
}

TEST_CASE("dataflow: a root whose inputs pass but differ says by how much") {
  // src's output differs within tolerance (a loosened tolerance, rounding); grow's output
  // differs past it: grow is the root, and the words say its inputs were not equal.
  temp_dir d;
  fixture_dump a(d / "a"), b(d / "b");
  for (fixture_dump* x : {&a, &b}) {
    const float v = x == &a ? 1.0000001f : 1.f;
    x->out(1, "src", "y", {v, 2});
    x->in(2, "grow", "x", {v, 2}, "src#0/out/y");
    x->out(2, "grow", "y", {x == &a ? 5.f : 1.f, 2});
    x->finish();
  }
  const pa::compare_report r = compare(d / "a", d / "b");
  CHECK(root_ops(r.runs[0]) == std::vector<std::string>{"grow#0"});
  CHECK(flat_text(r).find("its inputs match within tolerance (they differ by up to 1.2e-7, input x), and output") !=
        std::string::npos);
}
