// Copies of one network run on threads (an engine serving two requests) pair by computation,
// not by the order in which the threads started: dumped by the library, compared through the
// analysis API.
#include <doctest/doctest.h>

#include <probe/probe.hpp>

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"
#include "../support/capture.hpp"
#include "manifest_fixture.hpp"
#include "compare_checked.hpp"

namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

using compare_test::compare;
using compare_test::has_note;

constexpr int k_pairing_n = 16;

std::vector<float> request_input(int which) {
  std::vector<float> x(k_pairing_n);
  for (int i = 0; i < k_pairing_n; ++i) x[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i % 7) + 1.5f * static_cast<float>(which);
  return x;
}

// A request's activations, all alive for the whole run: memory freed by one request and
// reused by the other would make its ops read-modify-writes of the other's outputs.
struct activations {
  std::vector<float> h = std::vector<float>(k_pairing_n), m = std::vector<float>(k_pairing_n), y = std::vector<float>(k_pairing_n);
};

// embed(x, w) -> h; mlp(h, w) -> m; head(m) -> y. `bug`: mlp gets one element wrong.
// `after_embed` runs once embed has ended.
template <class F>
void serve(const std::vector<float>& x, activations& act, bool bug, F&& after_embed) {
  static const std::vector<float> we(k_pairing_n, 0.5f), wm(k_pairing_n, -0.75f);
  std::vector<float>&h = act.h, &m = act.m, &y = act.y;
  {
    probe::op op("embed", "Embed");
    op.input("x", probe::view(x.data(), {k_pairing_n})).input("w", probe::view(we.data(), {k_pairing_n}));
    for (size_t i = 0; i < h.size(); ++i) h[i] = x[i] * we[i] + 1.0f;
    op.output("h", probe::view(h.data(), {k_pairing_n}));
  }
  after_embed();
  {
    probe::op op("mlp", "MLP");
    op.input("h", probe::view(h.data(), {k_pairing_n})).input("w", probe::view(wm.data(), {k_pairing_n}));
    for (size_t i = 0; i < m.size(); ++i) m[i] = h[i] * wm[i] > 0 ? h[i] * wm[i] : 0.1f * h[i] * wm[i];
    if (bug) m[3] += 2.0f;
    op.output("m", probe::view(m.data(), {k_pairing_n}));
  }
  {
    probe::op op("head", "Head");
    op.input("m", probe::view(m.data(), {k_pairing_n}));
    for (size_t i = 0; i < y.size(); ++i) y[i] = 2.0f * m[i] - 1.0f;
    op.output("y", probe::view(y.data(), {k_pairing_n}));
  }
}
void serve(const std::vector<float>& x, activations& act) {
  serve(x, act, false, [] {});
}

// Dumps one run: request r on its own thread with input inputs[r]; the thread of first[0]
// begins, the other starts its network once that one's first op has ended, and then both run
// at once. `bug_in`: the request whose mlp is wrong (-1: none).
void dump_requests(const std::string& dir, const int inputs[2], const int first[2], int bug_in = -1) {
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
  std::mutex mu;
  std::condition_variable cv;
  int turn = 0;  // how many threads may begin
  const std::vector<float> xs[2] = {request_input(inputs[0]), request_input(inputs[1])};
  activations act[2];
  auto request = [&](int r, int place) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return turn > place; });
    }
    const std::vector<float>& x = xs[r];
    // the second thread starts once the first one's embed has ended: embed's run-wide
    // occurrence then follows the start order, the later ops interleave freely
    serve(x, act[r], r == bug_in, [&] {
      if (place != 0) return;
      {
        std::lock_guard<std::mutex> lock(mu);
        turn = 2;
      }
      cv.notify_all();
    });
  };
  std::thread t0([&] { request(first[0], 0); }), t1([&] { request(first[1], 1); });
  {
    std::lock_guard<std::mutex> lock(mu);
    turn = 1;
  }
  cv.notify_all();
  t0.join();
  t1.join();
  probe::set_flags("");
}

size_t graph_input_roots(const pa::compared_run& run) {
  size_t n = 0;
  for (const pa::root_cause& c : run.graph.roots) n += c.kind == pa::root_kind::graph_input;
  return n;
}

}  // namespace

// The op keys of one request, from its embed on, following the data: the op that read what
// embed wrote, and the op that read what that one wrote.
static std::set<std::string> request_ops(const pa::compared_run& run, const std::string& embed_key) {
  std::set<std::string> ops{embed_key};
  for (int hop = 0; hop < 2; ++hop)
    for (const pa::compared_pair& p : run.pairs)
      for (const pa::dump_producer& from : p.producers)
        if (p.is_input && ops.count(from.key.substr(0, from.key.find('/')))) ops.insert(p.op_key());
  CHECK(ops.size() == 3);
  return ops;
}

static void check_planted_root(const std::string& a, const std::string& b, const std::string& embed_key) {
  const pa::compare_report r = compare(a, b);
  const std::string text = pa::compare_text(r);
  INFO(text);
  CHECK(r.exit_code() == 1);
  REQUIRE(r.runs.size() == 1);
  const pa::compared_run& run = r.runs[0];
  const std::set<std::string> request_1 = request_ops(run, embed_key);
  REQUIRE(run.graph.roots.size() == 1);
  const pa::root_cause& root = run.graph.roots[0];
  CHECK(root.kind == pa::root_kind::op);
  CHECK(run.graph.nodes[root.node].op == "mlp");
  CHECK(request_1.count(run.graph.nodes[root.node].op_key) == 1);
  CHECK(graph_input_roots(run) == 0);
  CHECK(text.find("Graph inputs") == std::string::npos);
  CHECK(text.find("pairing ambiguous") == std::string::npos);
  CHECK(run.findings.align.reordered.empty());
  CHECK(has_note(r, "as A's embed#"));
  for (const pa::compared_pair& p : run.pairs) {
    const bool bad = request_1.count(p.op_key()) && ((p.op == "mlp" && !p.is_input) || p.op == "head");
    CHECK_MESSAGE((p.status == pa::pair_status::mismatch) == bad, p.key);
  }
  REQUIRE(run.graph.first_divergence >= 0);
  CHECK(static_cast<size_t>(run.graph.first_divergence) == root.node);
}

TEST_CASE("pairing: two requests on threads started in the other order; the planted op is the single root") {
  temp_dir d;
  const int inputs[2] = {0, 1}, in_order[2] = {0, 1}, reversed[2] = {1, 0};
  dump_requests(d / "a", inputs, in_order);
  dump_requests(d / "b", inputs, reversed, 1);  // request 1's mlp is wrong in B
  // A's request 1 began second: embed#1; in B it began first: embed#0. (The later ops'
  // numbers depend on how the threads interleave.)
  check_planted_root(d / "a", d / "b", "embed#1");
  check_planted_root(d / "b", d / "a", "embed#0");
}

TEST_CASE("pairing: one request fed other data in B is the only graph input that differs, whatever the start order") {
  temp_dir d;
  const int inputs[2] = {0, 1}, other[2] = {0, 2}, in_order[2] = {0, 1}, reversed[2] = {1, 0};
  dump_requests(d / "a", inputs, in_order);
  dump_requests(d / "b", other, reversed);  // request 0 as in A, request 1 fed other data
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run = r.runs[0];
  // request 0's thread reads what A's request 0 read: they pair; the other two are what is
  // left, and pair by elimination: its input x differs, and that is the only root
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(run.graph.roots[0].kind == pa::root_kind::graph_input);
  CHECK(run.pairs[run.graph.roots[0].input].key == "embed#1/in/x");
  CHECK(text.find("pairing ambiguous") == std::string::npos);
  const std::set<std::string> request_0 = request_ops(run, "embed#0");
  for (const pa::compared_pair& p : run.pairs)
    if (request_0.count(p.op_key())) CHECK_MESSAGE(p.status == pa::pair_status::ok, p.key);
    else if (p.slot != "w") CHECK_MESSAGE(p.status == pa::pair_status::mismatch, p.key);
}

TEST_CASE("pairing: threads that read different data in both runs cannot be paired; compare says so and blames none") {
  temp_dir d;
  const int ia[2] = {0, 1}, ib[2] = {2, 3}, in_order[2] = {0, 1}, reversed[2] = {1, 0};
  dump_requests(d / "a", ia, in_order);
  dump_requests(d / "b", ib, reversed);
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  CHECK(r.exit_code() == 1);  // the tensors still differ
  const pa::compared_run& run = r.runs[0];
  CHECK(has_note(r, "pairing ambiguous: 2 threads of A and 2 of B begin with op embed and differ in input x of embed"));
  CHECK(text.find("pairing ambiguous") != std::string::npos);
  CHECK(run.graph.roots.empty());
  CHECK(run.graph.hints.empty());
  CHECK(run.graph.first_divergence < 0);
  CHECK(text.find("Graph inputs") == std::string::npos);
  CHECK(run.graph.unexplained.empty());  // the note says why they are not judged
}

// A manifest's tensor records as written.
struct raw_record {
  std::string op, key;
  int64_t occurrence = 0, thread = -1, lane = -1, lane_occurrence = -1;
};

static std::vector<raw_record> raw_records(const std::string& dir) {
  pa::dump_run run;
  std::string err, text;
  REQUIRE(pa::read_manifest(dir, &run, &err));  // a manifest probe compare reads
  REQUIRE(pa::read_regular_file(dir + "/manifest.jsonl", &text, &err));
  std::vector<raw_record> out;
  for (size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
    probe::json::value v;
    REQUIRE(probe::json::parse(text.data() + at, end - at, v));
    if (v.get_string("record") != "tensor") continue;
    raw_record r;
    r.op = v.get_string("op");
    r.key = v.get_string("key");
    r.occurrence = v.get_int("occurrence");
    r.thread = v.get_int("thread", -1);
    r.lane = v.get_int("lane", -1);
    r.lane_occurrence = v.get_int("lane_occurrence", -1);
    out.push_back(r);
  }
  return out;
}

TEST_CASE("pairing: the manifest names each op's thread lineage and its occurrence there; an adopting worker joins its parent's") {
  temp_dir d;
  const int inputs[2] = {0, 1}, reversed[2] = {1, 0};
  dump_requests(d / "a", inputs, reversed);
  for (const raw_record& t : raw_records(d / "a")) {
    INFO(t.key);
    CHECK(t.lane == t.thread);
    CHECK(t.lane_occurrence == 0);  // each request thread runs each op once
  }

  probe::set_flags(("--probe_dump_to=" + (d / "w") + " --probe_dump_as_npy").c_str());
  const std::vector<float> x = request_input(0);
  activations act[3];
  serve(x, act[0]);  // main thread: lane occurrence 0 of each op
  {
    probe::op layer("layer", "Block");
    layer.input("x", probe::view(x.data(), {k_pairing_n}));
    const probe::op_context ctx = probe::current_op_context();
    std::thread worker([&] {
      probe::adopt_op_context adopt(ctx);
      serve(x, act[1]);  // in the main thread's lane: its second embed, mlp, head
    });
    worker.join();
  }
  std::thread stray([&] { serve(x, act[2]); });  // a lane of its own
  stray.join();
  probe::set_flags("");
  const std::vector<raw_record> w = raw_records(d / "w");
  int64_t main_lane = -2;
  for (const raw_record& t : w)
    if (t.op == "layer") main_lane = t.lane;
  CHECK(main_lane >= 0);
  size_t embeds = 0;
  for (const raw_record& t : w) {
    if (t.op != "embed") continue;
    INFO(t.key);
    ++embeds;
    if (t.occurrence < 2) {
      CHECK(t.lane == main_lane);
      CHECK(t.lane_occurrence == t.occurrence);
      CHECK((t.thread != main_lane) == (t.occurrence == 1));  // the worker runs on its own thread
    } else {
      CHECK(t.lane != main_lane);
      CHECK(t.lane == t.thread);
      CHECK(t.lane_occurrence == 0);
    }
  }
  CHECK(embeds == 9);  // x, w and h of three embeds
}

TEST_CASE("pairing: dumps without lanes pair by thread; occurrences in a thread are counted from the run-wide ones") {
  using compare_test::fixture_dump;
  temp_dir d;
  // request r: embed(x_r) -> h, head(h) -> y; one thread each, no "lane" fields (older dumps)
  auto request = [](fixture_dump& f, uint64_t seq, uint64_t occ, int thread, int r, bool bug) {
    const float v = static_cast<float>(r + 1);
    const std::string t = "\"thread\":" + std::to_string(thread);
    const std::string h = "embed#" + std::to_string(occ) + "/out/h";
    f.in(seq, "embed", "x", {v, v}, "", t + ",\"hash\":\"x" + std::to_string(r) + "\"", 0, occ);
    f.out(seq, "embed", "h", {2 * v, 2 * v}, t, 0, occ);
    f.in(seq + 2, "head", "h", {2 * v, 2 * v}, h, t + ",\"producers\":[{\"key\":\"" + h + "\",\"bytes\":8,\"offset\":0}]",
         0, occ);
    f.out(seq + 2, "head", "y", {3 * v + (bug ? 1.0f : 0.0f), 3 * v}, t, 0, occ);
  };
  fixture_dump a(d / "a"), b(d / "b");
  request(a, 1, 0, 0, 0, false);  // request 0 began first in A
  request(a, 2, 1, 1, 1, false);
  request(b, 1, 0, 0, 1, true);  // request 1 began first in B, and its head is wrong
  request(b, 2, 1, 1, 0, false);
  a.finish();
  b.finish();
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run = r.runs[0];
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(run.graph.roots[0].kind == pa::root_kind::op);
  CHECK(run.graph.nodes[run.graph.roots[0].node].op_key == "head#1");
  CHECK(text.find("Graph inputs") == std::string::npos);
  CHECK(run.findings.align.reordered.empty());
}

TEST_CASE("pairing: a pool whose workers take tasks in a fixed order pairs by key, whichever worker ran which") {
  using compare_test::fixture_dump;
  temp_dir d;
  // tasks 0, 1, 2 begin in this order in both runs (keys task#0..#2), on the worker that is
  // free: A runs 0 and 2 on thread 0, B runs 1 and 2 on thread 1
  auto task = [](fixture_dump& f, uint64_t occ, int thread, bool bug) {
    const float v = static_cast<float>(occ + 1);
    const std::string t = "\"thread\":" + std::to_string(thread);
    f.in(occ + 1, "task", "x", {v, v}, "", t + ",\"hash\":\"x" + std::to_string(occ) + "\"", 0, occ);
    f.out(occ + 1, "task", "y", {2 * v + (bug ? 1.0f : 0.0f), 2 * v}, t, 0, occ);
  };
  fixture_dump a(d / "a"), b(d / "b");
  task(a, 0, 0, false), task(a, 1, 1, false), task(a, 2, 0, false);
  task(b, 0, 0, false), task(b, 1, 1, false), task(b, 2, 1, true);
  a.finish();
  b.finish();
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run = r.runs[0];
  CHECK(text.find("pairing ambiguous") == std::string::npos);
  CHECK(r.notes.empty());
  REQUIRE(run.graph.roots.size() == 1);
  CHECK(run.graph.nodes[run.graph.roots[0].node].op_key == "task#2");
}

TEST_CASE("pairing: requests that load their own data pair by the loader's attributes, whatever the start order") {
  // no graph input: each request's first op makes its data from the request id it is given
  // (an attribute); the threads start the other way round in B, and B's request 1 is wrong
  temp_dir d;
  auto run = [&](const std::string& dir, bool reversed, int bug_in) {
    probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str());
    for (int k = 0; k < 2; ++k) {
      const int r = reversed ? 1 - k : k;
      std::thread t([&, r] {
        std::vector<float> x(k_pairing_n), y(k_pairing_n);
        {
          probe::op op("load", "Load");
          op.attr("request", r);
          for (int i = 0; i < k_pairing_n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i * (r + 2));
          op.output("x", probe::view(x.data(), {k_pairing_n}));
        }
        probe::op op("double", "Scale");
        op.input("x", probe::view(x.data(), {k_pairing_n}));
        for (int i = 0; i < k_pairing_n; ++i) y[static_cast<size_t>(i)] = 2 * x[static_cast<size_t>(i)] + (r == bug_in && i == 5);
        op.output("y", probe::view(y.data(), {k_pairing_n}));
      });
      t.join();
    }
    probe::set_flags("");
  };
  run(d / "a", false, -1);
  run(d / "b", true, 1);
  const pa::compare_report r = compare(d / "a", d / "b");
  const std::string text = pa::compare_text(r);
  INFO(text);
  const pa::compared_run& run0 = r.runs[0];
  CHECK(has_note(r, "as A's load#"));
  REQUIRE(run0.graph.roots.size() == 1);
  CHECK(run0.graph.roots[0].kind == pa::root_kind::op);
  CHECK(run0.graph.nodes[run0.graph.roots[0].node].op_key == "double#1");  // A's request 1 began second
  for (const pa::compared_pair& p : run0.pairs)
    if (p.op == "load") CHECK_MESSAGE(p.status == pa::pair_status::ok, p.key);
}
