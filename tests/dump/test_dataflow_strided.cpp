// Data flow through strided views: workers writing interleaved rows of one buffer each own
// their rows (no worker updates another's in place), and a reader names each row's writer.
#include <doctest/doctest.h>
#include <probe/formats/json_read.hpp>
#include <probe/probe.h>

#include <map>
#include <thread>

#include "dump_fixture.hpp"

using dump_test::flags_scope;
using dump_test::manifest_lines;
using probe_test::temp_dir;

namespace {
std::map<std::string, probe::json::value> tensors_by_key(const std::string& dir) {
  std::map<std::string, probe::json::value> out;
  for (const std::string& l : manifest_lines(dir)) {
    probe::json::value v;
    REQUIRE(probe::json::parse(l, v));
    if (v.get_string("record") == "tensor") out[v.get_string("key")] = v;
  }
  return out;
}
std::string producer_list(const probe::json::value& rec) {
  std::string s;
  const probe::json::value& ps = rec.get("producers");
  for (size_t i = 0; i < ps.size(); ++i)
    s += (i ? " " : "") + ps[i].get_string("key") + "+" + std::to_string(ps[i].get("bytes").as_int());
  return s;
}

constexpr int k_rows = 8, k_cols = 4, k_workers = 2;

// Worker t computes rows t, t + 2, ... of g (a [Q=2, rows, cols] buffer: each plane's rows
// interleaved between the workers), as an op of its own named "L<t>.rows", through the C API
// as an OpenMP solver marks its threads.
void interleaved_workers(std::vector<double>& g, bool declare_parent_output) {
  const int64_t shape[3] = {2, k_rows, k_cols};
  probe_op* parent = probe_op_begin("collide", "Collide", -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < k_workers; ++t)
    threads.emplace_back([&, t] {
      probe_op* adopted = probe_op_adopt(parent);
      probe_op* w = probe_op_begin("rows", "CollideRows", t);
      for (int q = 0; q < 2; ++q)
        for (int r = t; r < k_rows; r += k_workers)
          for (int c = 0; c < k_cols; ++c) g[static_cast<size_t>((q * k_rows + r) * k_cols + c)] = q + r + 0.5 * c;
      const int64_t mine[3] = {2, k_rows / k_workers, k_cols};
      const int64_t strides[3] = {k_rows * k_cols, k_workers * k_cols, 1};
      probe_op_tensor(w, PROBE_OUT, "g", probe_tensor_strided(g.data() + t * k_cols, PROBE_FLOAT64, 3, mine, strides));
      probe_op_end(w);
      probe_op_unadopt(adopted);
    });
  for (std::thread& th : threads) th.join();
  if (declare_parent_output) probe_op_output(parent, "g", g.data(), PROBE_FLOAT64, 3, shape);
  probe_op_end(parent);
}
}  // namespace

TEST_CASE("dataflow: workers writing interleaved strided rows each own theirs") {
  for (const bool parent_output : {false, true}) {
    CAPTURE(parent_output);
    temp_dir d;
    std::vector<double> g(2 * k_rows * k_cols), sum(1);
    {
      flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
      interleaved_workers(g, parent_output);
      {
        probe::op op("stream", "Stream");
        op.input("g", probe::view(g.data(), {2, k_rows, k_cols}));
        op.output("s", sum);
      }
      {
        probe::op op("odd_rows", "Sum");  // worker 1's rows alone
        op.input("g", probe::view(g.data() + k_cols, {2, k_rows / 2, k_cols}, {k_rows * k_cols, 2 * k_cols, 1}));
        op.output("s", sum);
      }
    }
    const auto m = tensors_by_key(d.path());
    // Neither worker overwrote the other's bytes: no implicit prior state, whichever recorded first.
    CHECK(m.count("L0.rows#0/in/g") == 0);
    CHECK(m.count("L1.rows#0/in/g") == 0);
    const probe::json::value& all = m.at("stream#0/in/g");
    const probe::json::value& odd = m.at("odd_rows#0/in/g");
    if (parent_output) {
      CHECK(all.get_string("producer") == "collide#0/out/g");
      CHECK(odd.get_string("producer") == "collide#0/out/g");
    } else {
      // each worker's 8 rows of 32 bytes (both planes'), as rows: one entry each
      CHECK(producer_list(all) == "L0.rows#0/out/g+256 L1.rows#0/out/g+256");
      const probe::json::value& ps = all.get("producers");
      for (size_t i = 0; i < ps.size(); ++i) CHECK(ps[i].get("rows").as_bool());
      CHECK(producer_list(odd) == "L1.rows#0/out/g+256");  // its 8 rows, one writer
    }
  }
}

TEST_CASE("dataflow: a strided writer over part of another output leaves the rest to it") {
  temp_dir d;
  std::vector<float> a(16), y(1);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    {
      probe::op op("fill", "Fill");
      op.output("a", a);
    }
    {
      probe::op op("use", "Sum");  // fill's output is read: later writes over it are no update
      op.input("a", a);
      op.output("y", y);
    }
    {
      probe::op op("even", "Scale");  // columns 0 and 1 of each row of 4
      op.input("a", probe::view(a.data(), {4, 2}, {4, 1}));
      op.output("a", probe::view(a.data(), {4, 2}, {4, 1}));
    }
    {
      probe::op op("tail", "Sum");
      op.input("a", probe::view(a.data() + 2, {2}));  // columns 2-3 of row 0: fill's
      op.output("y", y);
    }
    {
      probe::op op("head", "Sum");
      op.input("a", probe::view(a.data(), {2}));
      op.output("y", y);
    }
  }
  const auto m = tensors_by_key(d.path());
  CHECK(m.at("tail#0/in/a").get_string("producer") == "fill#0/out/a");
  CHECK(m.at("head#0/in/a").get_string("producer") == "even#0/out/a");
  CHECK(producer_list(m.at("use#0/in/a")) == "fill#0/out/a+64");
  CHECK(m.count("even#0/in/a") == 1);  // declared, not implicit
}

TEST_CASE("dataflow: attention heads writing their rows of [T, H, D], past the runs kept apart") {
  // Each head's output is T rows, more than the producer map keeps as separate runs: the rows
  // are equally spaced, so the heads still own theirs.
  constexpr int64_t T = 64, H = 4, D = 8;
  temp_dir d;
  std::vector<float> qkv(static_cast<size_t>(T * H * D)), out(static_cast<size_t>(T * H * D)), y(1);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    {
      probe::op op("qkv", "MatMul");
      op.output("q", qkv);
    }
    for (int64_t h = 0; h < H; ++h) {
      probe::op op("attn", "Attention", h);
      op.input("q", probe::view(qkv.data() + h * D, {T, D}, {H * D, 1}));
      op.output("o", probe::view(out.data() + h * D, {T, D}, {H * D, 1}));
    }
    {
      probe::op op("proj", "MatMul");
      op.input("o", probe::view(out.data(), {T, H * D}));
      op.output("y", y);
    }
  }
  const auto m = tensors_by_key(d.path());
  for (int64_t h = 0; h < H; ++h) {
    const std::string head = "L" + std::to_string(h) + ".attn#0";
    CAPTURE(head);
    REQUIRE(m.count(head + "/in/q") == 1);
    CHECK(producer_list(m.at(head + "/in/q")) == "qkv#0/out/q+" + std::to_string(T * D * 4));
    CHECK(m.count(head + "/in/o") == 0);  // no head updated another's rows in place
  }
  std::string expect;
  for (int64_t h = 0; h < H; ++h)
    expect += std::string(h ? " " : "") + "L" + std::to_string(h) + ".attn#0/out/o+" + std::to_string(T * D * 4);
  CHECK(producer_list(m.at("proj#0/in/o")) == expect);
  // Each head's bytes in o and in q are rows, not one range: the manifest says so.
  const probe::json::value& ps = m.at("proj#0/in/o").get("producers");
  for (size_t i = 0; i < ps.size(); ++i) {
    CHECK(ps[i].get("rows").as_bool());
    CHECK(ps[i].get("offset").as_int() == static_cast<int64_t>(i * D * 4));
  }
  CHECK(m.at("L1.attn#0/in/q").get("producers")[0].get("rows").as_bool());
  CHECK(m.at("proj#0/in/o").get("producers")[0].find("at") == nullptr);
}
