// probe compare on values plain code computes between kernels (a scaling, a normalisation, a
// tanh, a residual sum) into a buffer no op writes: their bytes and statistics are no
// output's, but each is a x + b, or a monotone function, of an earlier output's value at its
// index, or a x + b y + c of it and another tensor's, in both runs. Found by their values,
// they are a hint naming that output, not data the runs were fed; what they carry reaches on.
// Dumped by the library.
#include <doctest/doctest.h>

#include <probe/probe.hpp>

#include <algorithm>
#include <cmath>
#include <string>
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

constexpr int k_scaled_n = 16;

struct scaled_bugs {
  double first = 0;     // added to one element of `first`'s output
  double fed = 0;       // added to one element of the scaled buffer (as if the program was given it)
  bool filled = false;  // an op wrote the scaled buffer once, before (its bytes then stale)
  bool whole = false;   // x holds whole numbers (a ramp): no evidence of a map
  bool squash = false;  // s = tanh(y): a monotone map, no line
  bool wavy = false;    // x goes up and down along its indices (else it rises)
  bool relu = false;    // y = max(x + 1, 0) and s = 0.3 y: zeros mapped to zeros
};

// first: y = x + 1; plain code: s = 0.5 y + 0.25 (into a buffer no op writes, or one `fill`
// wrote before); second: z = k s; third: w = z / k. With k = 1e-3 (`shrink`), a difference
// in s shrinks below float64's absolute tolerance in z and third grows it past it again.
void scaled_engine(const std::string& dir, const scaled_bugs& bug, bool shrink = false) {
  const double k = shrink ? 1e-3 : 2;
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  std::vector<double> x(k_scaled_n), y(k_scaled_n), s(k_scaled_n, 0.0), z(k_scaled_n), w(k_scaled_n);
  for (int i = 0; i < k_scaled_n; ++i)
    x[static_cast<size_t>(i)] = bug.whole ? i : bug.wavy ? 2 * std::sin(1.7 * i) + 0.1 * i : 0.3 * i - 2;
  if (bug.filled) {
    probe::op op("fill", "Fill");
    op.output("s", probe::view(s.data(), {k_scaled_n}));
  }
  {
    probe::op op("first", "Add");
    op.input("x", probe::view(x.data(), {k_scaled_n}));
    for (int i = 0; i < k_scaled_n; ++i)
      y[static_cast<size_t>(i)] = bug.relu ? std::max(x[static_cast<size_t>(i)] + 1, 0.0) : x[static_cast<size_t>(i)] + 1;
    y[3] += bug.first;
    op.output("y", probe::view(y.data(), {k_scaled_n}));
  }
  const double shift = bug.whole ? 1 : bug.relu ? 0 : 0.25;
  for (int i = 0; i < k_scaled_n; ++i) {
    const double v = (bug.whole ? 2 : bug.relu ? 0.3 : 0.5) * y[static_cast<size_t>(i)] + shift;
    s[static_cast<size_t>(i)] = bug.squash ? std::tanh(v) : v;
  }
  s[7] += bug.fed;
  {
    probe::op op("second", "Scale");
    op.input("s", probe::view(s.data(), {k_scaled_n}));
    for (int i = 0; i < k_scaled_n; ++i) z[static_cast<size_t>(i)] = k * s[static_cast<size_t>(i)];
    op.output("z", probe::view(z.data(), {k_scaled_n}));
  }
  {
    probe::op op("third", "Scale");
    op.input("z", probe::view(z.data(), {k_scaled_n}));
    for (int i = 0; i < k_scaled_n; ++i) w[static_cast<size_t>(i)] = z[static_cast<size_t>(i)] / k;
    op.output("w", probe::view(w.data(), {k_scaled_n}));
  }
  probe::set_flags("");
}

struct residual_bugs {
  double f = 0;         // added to one element of mlp's output
  double fed = 0;       // added to one element of the sum (as if the program was given it)
  bool whole = false;   // h and f hold whole numbers: no evidence of a plane
  bool scaled = false;  // h2 = h - 0.5 f + 0.125 (a blend), else h + f
};

// embed: h; mlp: f from h; plain code: h2 = h + f (the residual, into a buffer no op writes);
// norm: reads h2.
void residual_engine(const std::string& dir, const residual_bugs& bug) {
  constexpr int n = 40;
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  std::vector<float> h(n), f(n), h2(n), out(n);
  {
    probe::op op("embed", "Embed");
    for (int i = 0; i < n; ++i) h[static_cast<size_t>(i)] = bug.whole ? static_cast<float>(i % 7) : std::sin(0.37f * i + 0.1f);
    op.output("h", h);
  }
  {
    probe::op op("mlp", "MLP");
    op.input("h", h);
    for (int i = 0; i < n; ++i)
      f[static_cast<size_t>(i)] = bug.whole ? static_cast<float>((i * 3) % 5) : std::tanh(0.8f * h[static_cast<size_t>((i + 3) % n)] - 0.2f * h[static_cast<size_t>(i)]);
    f[5] += static_cast<float>(bug.f);
    op.output("f", f);
  }
  for (int i = 0; i < n; ++i)
    h2[static_cast<size_t>(i)] = bug.scaled ? h[static_cast<size_t>(i)] - 0.5f * f[static_cast<size_t>(i)] + 0.125f
                                            : h[static_cast<size_t>(i)] + f[static_cast<size_t>(i)];
  h2[9] += static_cast<float>(bug.fed);
  {
    probe::op op("norm", "Norm");
    op.input("x", h2);
    for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)] = 2 * h2[static_cast<size_t>(i)];
    op.output("y", out);
  }
  probe::set_flags("");
}

std::vector<std::string> root_words(const pa::compared_run& run) {
  std::vector<std::string> out;
  for (const pa::root_cause& r : run.graph.roots)
    out.push_back((r.is_input ? "input of " : "") + run.graph.nodes[r.node].op_key);
  return out;
}

}  // namespace

TEST_CASE("computed outside: values plain code computed from an output that fails are a hint, not fed data") {
  temp_dir d;
  scaled_bugs bug;
  bug.first = 0.5;
  scaled_engine(d / "a", bug);
  scaled_engine(d / "b", scaled_bugs());
  const pa::compare_report r = compare(d / "a", d / "b");
  REQUIRE(r.runs.size() == 1);
  const pa::compared_run& run = r.runs[0];
  CHECK(root_words(run) == std::vector<std::string>{"first#0"});
  REQUIRE(run.graph.hints.size() == 1);
  const pa::graph_hint& h = run.graph.hints[0];
  CHECK(h.kind == pa::hint_kind::unlinked_copy);
  CHECK(h.part == pa::part_relation::affine);
  CHECK(h.consumer_op == "second");
  CHECK(h.slot == "s");
  CHECK(h.producer_key == "first#0/out/y");
  CHECK(h.differing == 1);
  CHECK(run.graph.unexplained.empty());
  const std::string text = flat_text(r);
  CHECK(text.find("input s of second (it differs) holds values computed from those first#0/out/y wrote, each a x + b "
                  "of the one at its index (by their values), in both runs, but no op declared them there: computed "
                  "outside any op?") != std::string::npos);
  CHECK(text.find("copied outside any op") == std::string::npos);
  CHECK(text.find("the runs were fed different data:") == std::string::npos);  // no graph-input root
}

TEST_CASE("computed outside: the same buffer differing with no output differing before it is a graph input") {
  temp_dir d;
  scaled_bugs bug;
  bug.fed = 0.5;
  scaled_engine(d / "a", bug);
  scaled_engine(d / "b", scaled_bugs());
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_words(run) == std::vector<std::string>{"input of second#0"});
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(run.graph.roots[0].kind == pa::root_kind::graph_input);
  CHECK(run.graph.hints.empty());
  CHECK(flat_text(r).find("the runs were fed different data: s of second") != std::string::npos);
}

TEST_CASE("computed outside: whole numbers mapped to whole numbers are no evidence of a map") {
  // x a ramp 0, 1, 2...: y = x + 1 and s = 2 y + 1 lie on a line as any two ramps do
  temp_dir d;
  scaled_bugs bug, ref;
  bug.first = 1;
  bug.whole = ref.whole = true;
  scaled_engine(d / "a", bug);
  scaled_engine(d / "b", ref);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  for (const pa::graph_hint& h : run.graph.hints) CHECK(h.part != pa::part_relation::affine);
  CHECK(root_words(run) == std::vector<std::string>{"first#0", "input of second#0"});
}

TEST_CASE("computed outside: values a monotone function of an output's are found where the output turns") {
  for (const bool wavy : {true, false}) {
    CAPTURE(wavy);
    temp_dir d;
    scaled_bugs bug, ref;
    bug.first = 0.5;
    bug.squash = ref.squash = true;
    bug.wavy = ref.wavy = wavy;
    scaled_engine(d / "a", bug);
    scaled_engine(d / "b", ref);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    if (wavy) {  // tanh of a tensor that goes up and down: the same order is evidence
      CHECK(root_words(run) == std::vector<std::string>{"first#0"});
      REQUIRE(run.graph.hints.size() == 1);
      CHECK(run.graph.hints[0].part == pa::part_relation::monotone);
      CHECK(flat_text(r).find("holds values computed from those first#0/out/y wrote, each a monotone function of "
                              "the one at its index (by their values)") != std::string::npos);
    } else {  // a rising tensor shares its order with any other rising one: no evidence
      for (const pa::graph_hint& h : run.graph.hints) CHECK(h.part != pa::part_relation::monotone);
      std::vector<std::string> roots = root_words(run);
      std::sort(roots.begin(), roots.end());
      CHECK(roots == std::vector<std::string>{"first#0", "input of second#0"});
    }
  }
}

TEST_CASE("computed outside: an op downstream that grows the carried difference past its tolerance is not a root") {
  // first fails by 1e-5; s, computed from it outside any op, differs; second's output passes
  // (the difference shrunk below float64's absolute tolerance); third grows it past the
  // tolerance again: first's difference, carried through the plain code, not a root of its
  // own. So whether or not an op filled s before (its bytes then stale).
  for (const bool filled : {false, true}) {
    CAPTURE(filled);
    temp_dir d;
    scaled_bugs bug, ref;
    bug.first = 1e-5;
    bug.filled = ref.filled = filled;
    scaled_engine(d / "a", bug, true);
    scaled_engine(d / "b", ref, true);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_words(run) == std::vector<std::string>{"first#0"});
    REQUIRE(run.graph.hints.size() == 1);
    CHECK(run.graph.hints[0].part == pa::part_relation::affine);
    REQUIRE(run.graph.regrown.size() == 1);
    CHECK(run.graph.nodes[run.graph.regrown[0].first].op == "third");
    CHECK(run.graph.unexplained.empty());
  }
}

TEST_CASE("computed outside: a residual added by plain code (a x + b y + c of an output and another tensor) is a hint") {
  for (const bool scaled : {false, true}) {
    CAPTURE(scaled);
    temp_dir d;
    residual_bugs bug, ref;
    bug.f = 0.25;
    bug.scaled = ref.scaled = scaled;
    residual_engine(d / "a", bug);
    residual_engine(d / "b", ref);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_words(run) == std::vector<std::string>{"mlp#0"});
    REQUIRE(run.graph.hints.size() == 1);
    const pa::graph_hint& h = run.graph.hints[0];
    CHECK(h.part == pa::part_relation::combined);
    CHECK(h.producer_key == "mlp#0/out/f");
    CHECK(h.with_key == "mlp#0/in/h");  // the latest tensor holding h's bytes
    CHECK(flat_text(r).find("input x of norm (it differs) holds values computed from those mlp#0/out/f wrote and those "
                            "of mlp#0/in/h, each a x + b y + c of the two at its index (by their values)") !=
          std::string::npos);
    CHECK(flat_text(r).find("the runs were fed different data") == std::string::npos);
  }
}

TEST_CASE("computed outside: a residual differing with no output differing before it is a graph input") {
  temp_dir d;
  residual_bugs bug;
  bug.fed = 0.25;
  residual_engine(d / "a", bug);
  residual_engine(d / "b", residual_bugs());
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_words(run) == std::vector<std::string>{"input of norm#0"});
  CHECK(run.graph.hints.empty());
}

TEST_CASE("computed outside: a sum of whole numbers is no evidence of a residual") {
  temp_dir d;
  residual_bugs bug, ref;
  bug.f = 1;
  bug.whole = ref.whole = true;
  residual_engine(d / "a", bug);
  residual_engine(d / "b", ref);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  for (const pa::graph_hint& h : run.graph.hints) CHECK(h.part != pa::part_relation::combined);
  CHECK(root_words(run) == std::vector<std::string>{"mlp#0", "input of norm#0"});
}

TEST_CASE("computed outside: a scaling of an output with exact zeros is found (the fit's rounding is the means')") {
  temp_dir d;
  scaled_bugs bug, ref;
  bug.first = 0.5;
  bug.relu = ref.relu = true;
  bug.wavy = ref.wavy = true;
  scaled_engine(d / "a", bug);
  scaled_engine(d / "b", ref);
  const pa::compare_report r = compare(d / "a", d / "b");
  const pa::compared_run& run = r.runs[0];
  CHECK(root_words(run) == std::vector<std::string>{"first#0"});
  REQUIRE(run.graph.hints.size() == 1);
  CHECK(run.graph.hints[0].part == pa::part_relation::affine);
}

namespace {
// embed: h (amplitude `scale`); mlp: f = tanh(0.37 h) + 0.16, off by `bug` at every third
// element; plain code: h2 = h + f; norm reads h2. With a small amplitude f is nearly a line
// in h: the fit of h2 against f and h is ill-conditioned (float64), or f and h lie on one
// line to float32's precision in the run without the bug.
template <class T>
void correlated_residual(const std::string& dir, double scale, double bug) {
  constexpr int n = 48;
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  std::vector<T> h(n), f(n), h2(n), out(n);
  {
    probe::op op("embed", "Embed");
    for (int i = 0; i < n; ++i) h[static_cast<size_t>(i)] = static_cast<T>(scale * std::sin(0.37 * i + 0.1));
    op.output("h", h);
  }
  {
    probe::op op("mlp", "MLP");
    op.input("h", h);
    for (int i = 0; i < n; ++i)
      f[static_cast<size_t>(i)] = static_cast<T>(std::tanh(0.37 * static_cast<double>(h[static_cast<size_t>(i)])) + 0.16 +
                                                 (i % 3 == 0 ? bug * (1 + 0.1 * i) : 0.0));
    op.output("f", f);
  }
  for (size_t i = 0; i < h.size(); ++i) h2[i] = h[i] + f[i];
  {
    probe::op op("norm", "Norm");
    op.input("x", h2);
    for (size_t i = 0; i < h.size(); ++i) out[i] = 2 * h2[i];
    op.output("y", out);
  }
  probe::set_flags("");
}
}  // namespace

TEST_CASE("computed outside: a residual of an output nearly a line in the other tensor is still found") {
  SUBCASE("float64, the fit refined for correlated tensors") {
    temp_dir d;
    correlated_residual<double>(d / "a", 1.0, 0.01);
    correlated_residual<double>(d / "b", 1.0, 0);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_words(run) == std::vector<std::string>{"mlp#0"});
    REQUIRE(run.graph.hints.size() == 1);
    CHECK(run.graph.hints[0].part == pa::part_relation::combined);
  }
  SUBCASE("float32, one line in the run without the bug: that run agrees, the other is the evidence") {
    temp_dir d;
    correlated_residual<float>(d / "a", 0.048, 0.01);
    correlated_residual<float>(d / "b", 0.048, 0);
    const pa::compare_report r = compare(d / "a", d / "b");
    const pa::compared_run& run = r.runs[0];
    CHECK(root_words(run) == std::vector<std::string>{"mlp#0"});
    REQUIRE(run.graph.hints.size() == 1);
    CHECK(run.graph.hints[0].part == pa::part_relation::combined);
  }
}
