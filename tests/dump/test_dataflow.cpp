// Data flow in the dump: read-modify-write (declared and implicit), producers per byte range,
// stale edges, inputs dumped once, indexed op names, op::end, step and slot filters,
// records_tensors.
#include <doctest/doctest.h>
#include <probe/core/context.hpp>
#include <probe/formats/json_read.hpp>
#include <probe/probe.h>

#include <sys/mman.h>
#include <sys/stat.h>

#include <map>
#include <thread>

#include "dump_fixture.hpp"

using dump_test::check_with_numpy;
using dump_test::count_containing;
using dump_test::flags_scope;
using dump_test::manifest_lines;
using dump_test::read_file;
using probe_test::temp_dir;

namespace {
// The manifest's tensor records by key; notes in order.
struct manifest {
  std::map<std::string, probe::json::value> tensors;
  std::vector<probe::json::value> notes;
  explicit manifest(const std::string& dir) {
    for (const std::string& l : manifest_lines(dir)) {
      probe::json::value v;
      REQUIRE(probe::json::parse(l, v));
      const std::string kind = v.get_string("record");
      if (kind == "tensor") tensors[v.get_string("key")] = v;
      if (kind == "note") notes.push_back(v);
    }
  }
  const probe::json::value& at(const std::string& key) const {
    auto it = tensors.find(key);
    REQUIRE_MESSAGE(it != tensors.end(), key);
    return it->second;
  }
};
bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}
std::string producer_keys(const probe::json::value& rec) {
  std::string s;
  const probe::json::value& ps = rec.get("producers");
  for (size_t i = 0; i < ps.size(); ++i) s += (i ? " " : "") + ps[i].get_string("key");
  return s;
}
}  // namespace

TEST_CASE("dataflow: op.inout records the buffer before and after, in the manifest, text and snapshot") {
  temp_dir d;
  std::vector<float> cells{1, 2, 3, 4};
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_as_text --probe_dump_snapshots");
    probe::op op("relax", "Relax");
    op.inout("cells", cells);
    for (float& c : cells) c *= 10;
  }
  const manifest m(d.path());
  const auto& in = m.at("relax#0/in/cells");
  const auto& out = m.at("relax#0/out/cells");
  CHECK(in.get("inout").as_bool());
  CHECK(out.get("inout").as_bool());
  CHECK(in.get_string("stage") == "before");
  CHECK(out.get_string("stage") == "after");
  CHECK(in.get("stats").get("max").as_double() == 4.0);
  CHECK(out.get("stats").get("max").as_double() == 40.0);
  CHECK(in.get_string("hash") != out.get_string("hash"));
  const std::string text = read_file(d / "op_000001.relax.txt");
  CHECK(text.find("in  cells: float32[4]  (inout)") != std::string::npos);
  CHECK(text.find("out cells: float32[4]  (inout)") != std::string::npos);
  std::string err;
  probe::tensor before = probe::npy::read(d / "snapshots/op_000001.relax/in.cells.npy", &err);
  REQUIRE_MESSAGE(!before.empty(), err);
  CHECK(before.data_as<float>()[3] == 4.f);
  probe::tensor after = probe::npy::read(d / "snapshots/op_000001.relax/out.cells.npy", &err);
  REQUIRE_MESSAGE(!after.empty(), err);
  CHECK(after.data_as<float>()[3] == 40.f);
  const std::string snap = read_file(d / "snapshots/op_000001.relax/snapshot.json");
  CHECK(count_containing({snap}, "\"inout\":true") == 1);
  CHECK(snap.find("\"slot\":\"cells\",\"key\":\"relax#0/out/cells\",\"file\":\"out.cells.npy\"") != std::string::npos);
  CHECK(snap.find(in.get_string("hash")) != std::string::npos);
  CHECK(check_with_numpy(d.path(), R"({"records": 2})") == 0);
}

TEST_CASE("dataflow: the C interface's probe_op_inout") {
  temp_dir d;
  float x[3] = {1, 2, 3};
  const int64_t shape[1] = {3};
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    probe_op* op = probe_op_begin("c_rmw", "Test", 2);
    CHECK(probe_op_records_tensors(op) == 1);
    probe_op_inout(op, "x", x, PROBE_FLOAT32, 1, shape);
    x[0] = 7;
    probe_op_end(op);
  }
  const manifest m(d.path());
  CHECK(m.at("L2.c_rmw#0/in/x").get("stats").get("max").as_double() == 3.0);
  CHECK(m.at("L2.c_rmw#0/out/x").get("stats").get("max").as_double() == 7.0);
  CHECK(m.at("L2.c_rmw#0/out/x").get("inout").as_bool());
}

TEST_CASE("dataflow: an output written in place without being declared as input is read-modify-write") {
  temp_dir d;
  std::vector<float> f(16, 1.f);
  {
    flags_scope fl("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    for (int step = 0; step < 2; ++step) {
      probe::set_step(step);
      {
        probe::op op("collide", "BGK");
        op.input("f", f);
        for (float& v : f) v += 1;
        op.output("f", f);
      }
      {
        probe::op op("bounce", "BounceBack");
        op.output_at_end("f", f);  // given before the kernel: its prior state is recorded
        f[0] = -5.f;
      }
      {
        probe::op op("stream", "Stream");
        op.input("f", f);
      }
    }
    std::vector<float> scratch(8, 0.f);
    for (int layer = 0; layer < 2; ++layer) {
      {
        probe::op op("q", "MatMul", layer);
        op.output("s", scratch);
      }
      probe::op op("attn", "Attention", layer);
      op.input("s", scratch);
    }
  }
  const manifest m(d.path());
  const auto& implicit = m.at("bounce#0/in/f");
  CHECK(implicit.get("implicit").as_bool());
  CHECK(implicit.get_string("producer") == "collide#0/out/f");
  CHECK(implicit.get("stats").get("min").as_double() == 2.0);  // before the kernel wrote -5
  CHECK(m.at("bounce#0/out/f").get("stats").get("min").as_double() == -5.0);
  CHECK(m.at("bounce#1/in/f").get("implicit").as_bool());
  // The in-place op's consumer reads what it wrote.
  CHECK(m.at("stream#0/in/f").get_string("producer") == "bounce#0/out/f");
  CHECK(m.at("collide#1/in/f").get_string("producer") == "bounce#0/out/f");
  // A scratch buffer read by an op and then rewritten by another is overwritten, not updated.
  CHECK(m.tensors.count("L1.q#0/in/s") == 0);
  CHECK(m.at("L1.q#0/out/s").get_string("slot") == "s");
  // One note per op name, not per execution.
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0].get_string("op") == "bounce");
  CHECK(m.notes[0].get_string("key_prefix") == "bounce#0/");
  const std::string note = m.notes[0].get_string("text");
  CHECK(note.find("read-modify-write") != std::string::npos);
  // It names the bytes' writer, and claims no update in place: the library did not see the
  // op read them (an op that overwrites a buffer an init op filled gets the same note).
  CHECK(note.find("over bytes collide#0/out/f wrote") != std::string::npos);
  CHECK(note.find("in place") == std::string::npos);
  // collide declares f as input: not implicit; a buffer its own writer rewrites is not either.
  CHECK(m.tensors.count("collide#1/in/f") == 1);
  CHECK_FALSE(m.at("collide#1/in/f").get("implicit").as_bool());
  CHECK(check_with_numpy(d.path()) == 0);
}

TEST_CASE("dataflow: an input written by several ops lists each producer, in address order; the graph draws each") {
  temp_dir d;
  std::vector<float> cache(4 * 8, 0.f), y(8);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only --probe_dump_as_dot");
    for (int pos = 0; pos < 3; ++pos) {
      probe::set_step(pos);
      {
        probe::op op("kv", "KV");
        float* row = cache.data() + pos * 8;
        for (int i = 0; i < 8; ++i) row[i] = static_cast<float>(pos);
        op.output("k", probe::view(row, {1, 8}));
      }
      {
        probe::op op("attn", "Attention");
        op.input("k", probe::view(cache.data(), {pos + 1, 8}));
        op.output("y", y);
      }
    }
  }
  const manifest m(d.path());
  const auto& k2 = m.at("attn#2/in/k");
  CHECK(producer_keys(k2) == "kv#0/out/k kv#1/out/k kv#2/out/k");
  const auto& ps = k2.get("producers");
  for (size_t i = 0; i < 3; ++i) {
    CHECK(ps[i].get("bytes").as_int() == 32);
    CHECK(ps[i].get("offset").as_int() == static_cast<int64_t>(32 * i));
  }
  CHECK(k2.get_string("producer") == "kv#2/out/k");  // equal shares: the latest
  CHECK(producer_keys(m.at("attn#0/in/k")) == "kv#0/out/k");
  const std::string dot = read_file(d / "graph.dot");
  // kv#0..2 are nodes 1, 3, 5; attn#2 is node 6.
  CHECK(dot.find("n1 -> n6") != std::string::npos);
  CHECK(dot.find("n3 -> n6") != std::string::npos);
  CHECK(dot.find("n5 -> n6") != std::string::npos);
}

TEST_CASE("dataflow: a buffer changed outside any op since its producer wrote it is stale, not an edge") {
  temp_dir d;
  std::vector<float> a(32, 1.f), b(32);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    {
      probe::op op("fill", "Fill");
      op.output("a", a);
    }
    {
      probe::op op("other", "Other");
      op.output("b", b);
    }
    a[7] = 3.f;  // scratch reuse behind probe's back
    {
      probe::op op("use", "Use");
      op.input("a", a);
    }
    {
      probe::op op("use_b", "Use");
      op.input("b", b);
    }
    std::vector<float> c(8, 0.f), e(8, 0.f);
    {
      probe::op op("early", "Early");
      op.output("c", c);  // before the kernel: recorded as given, never read again
      op.output_at_end("e", e);  // read when the op ends
      c[2] = 5.f;
      e[2] = 5.f;
    }
    {
      probe::op op("late", "Late");
      op.input("c", c).input("e", e);
    }
  }
  const manifest m(d.path());
  const auto& use = m.at("use#0/in/a");
  CHECK(use.get("producer").is_null());
  CHECK(use.find("producers") == nullptr);
  CHECK(use.get("stale").get_string("producer") == "fill#0/out/a");
  CHECK(use.get("stale").get_string("last_op_before") == "other");
  // output() reads the view during the call only: given before the kernel, what the op then
  // wrote is not its record, and the consumer says so. output_at_end() reads it as the op ends.
  CHECK(m.at("late#0/in/c").get("stale").get_string("producer") == "early#0/out/c");
  CHECK(m.at("early#0/out/c").get("stats").get("max").as_double() == 0.0);
  CHECK(m.at("late#0/in/e").get_string("producer") == "early#0/out/e");
  CHECK(m.at("late#0/in/e").find("stale") == nullptr);
  const auto& ok = m.at("use_b#0/in/b");
  CHECK(ok.get_string("producer") == "other#0/out/b");
  CHECK(ok.find("stale") == nullptr);
  CHECK(ok.get_string("hash") == m.at("other#0/out/b").get_string("hash"));
  CHECK(ok.get_string("hash").size() == 16);
}

TEST_CASE("dataflow: an input whose bytes did not change is written once") {
  std::vector<float> w(64), x(64, 0.5f), y(64);
  for (int threads : {0, 2}) {
    CAPTURE(threads);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
    temp_dir run;
    {
      flags_scope f("--probe_dump_to=" + run.path() + " --probe_dump_as_npy --probe_dump_threads=" +
                    std::to_string(threads));
      for (int i = 0; i < 50; ++i) {
        probe::op op("mm", "MatMul", i);  // L0.mm ... L49.mm: the same weight at the same address
        op.input("w", w).input("x", x);
        op.output("y", y);
      }
      w[3] = -1.f;  // changed: written again
      probe::op op("mm", "MatMul", 50);
      op.input("w", w);
    }
    const manifest m(run.path());
    int files = 0, same = 0;
    for (const auto& t : m.tensors)
      if (t.second.get_string("slot") == "w") {
        files += t.second.find("file") != nullptr;
        same += t.second.find("same_as") != nullptr;
      }
    CHECK(files == 2);
    CHECK(same == 49);
    CHECK(m.at("L7.mm#0/in/w").get_string("same_as") == "op_000001.L0.mm.in.w.npy");
    CHECK(m.at("L7.mm#0/in/w").get("stats").get("max").as_double() == 63.0);
    CHECK(exists(run / "op_000051.L50.mm.in.w.npy"));
    CHECK_FALSE(exists(run / "op_000002.L1.mm.in.w.npy"));
    CHECK(check_with_numpy(run.path()) == 0);
  }
}

TEST_CASE("dataflow: indexed names, op.end, records_tensors") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    std::vector<float> x(4, 1.f);
    probe::op op("rope", "RoPE", 3);
    CHECK(op.records_tensors());
    op.input("x", x);
    op.end();
    op.end();  // again: nothing
    CHECK_FALSE(op.active());
    CHECK_FALSE(op.records_tensors());
    op.input("x", x);  // after end: nothing
    probe::op next("after", "After");
    CHECK(probe::detail::current_op() != nullptr);
    CHECK(probe::detail::current_op()->parent == nullptr);  // not nested in the ended op
  }
  const manifest m(d.path());
  CHECK(m.tensors.size() == 1);
  CHECK(m.at("L3.rope#0/in/x").get_string("op") == "L3.rope");
  {
    flags_scope f("--probe_timing");
    probe::op op("t", "T", 1);
    CHECK(op.active());
    CHECK_FALSE(op.records_tensors());  // timing alone looks at no tensor
  }
  probe::op off("off");
  CHECK_FALSE(off.records_tensors());
}

TEST_CASE("dataflow: ops outside the step filter keep keys and producers for the steps dumped") {
  // Weights written once at step 0, an accumulator rewritten every step: step 4 alone is
  // dumped, and its inputs still name the ops of earlier steps that wrote them.
  auto run = [](const std::string& flags) {
    temp_dir d;
    {
      flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only " + flags);
      std::vector<float> w(8), acc(8), y(8);
      probe::set_step(0);
      {
        probe::op op("init", "Init");
        for (float& e : w) e = 0.5f;
        op.output("w", w);
      }
      for (int s = 0; s < 5; ++s) {
        probe::set_step(s);
        probe::op op("use", "Use");
        CHECK(op.records_tensors());  // outside the filter too: the outputs' ranges are kept
        op.input("w", w).input("acc", acc);
        for (size_t i = 0; i < acc.size(); ++i) acc[i] += w[i];
        op.output("acc", acc);
      }
    }
    return manifest(d.path());
  };
  const manifest all = run("");
  const manifest last = run("--probe_dump_steps=4");
  CHECK(last.tensors.size() == 3);
  for (const char* key : {"use#4/in/w", "use#4/in/acc", "use#4/out/acc"}) {
    INFO(key);
    CHECK(last.at(key).get_string("producer") == all.at(key).get_string("producer"));
  }
  CHECK(last.at("use#4/in/w").get_string("producer") == "init#0/out/w");
  CHECK(last.at("use#4/in/acc").get_string("producer") == "use#3/out/acc");
}

TEST_CASE("dataflow: step ranges, every Nth step, slot filter") {
  auto run = [](const std::string& flags) {
    temp_dir d;
    {
      flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only " + flags);
      std::vector<float> x(4), y(4);
      for (int s = 0; s < 12; ++s) {
        probe::set_step(s);
        probe::op op("step_op", "S");
        op.input("x", x).input("bias", y);
        op.output("y", y);
      }
    }
    std::string steps;
    for (const auto& l : manifest_lines(d.path())) {
      probe::json::value v;
      if (!probe::json::parse(l, v) || v.get_string("record") != "tensor" || v.get_string("slot") != "y") continue;
      steps += (steps.empty() ? "" : ",") + std::to_string(v.get("step").as_int());
    }
    return steps + " " + std::to_string(count_containing(manifest_lines(d.path()), "\"record\":\"tensor\""));
  };
  CHECK(run("--probe_dump_steps=0:2,5,10:") == "0,1,5,10,11 15");
  CHECK(run("--probe_dump_every=4") == "0,4,8 9");
  CHECK(run("--probe_dump_steps=:6 --probe_dump_every=2") == "0,2,4 9");
  {
    probe_test::capture_fd quiet(2);
    CHECK(run("--probe_dump_every=abc") == " 0");  // unreadable: nothing, not every step
  }
  CHECK(run("--probe_dump_slot_re=^(y|bias)$") == "0,1,2,3,4,5,6,7,8,9,10,11 24");
  std::string err;
  {
    probe_test::capture_fd cap;
    CHECK(run("--probe_dump_steps=1:x") == " 0");  // selects nothing, with a message: never wider than asked
    err = cap.stop();
  }
  CHECK(err.find("--probe_dump_steps=1:x") != std::string::npos);
}

namespace {
// Memory given back to the system when it goes out of scope: reading it afterwards faults
// (as a freed 4 MiB malloc block does), whatever malloc's thresholds are.
struct mapped_floats {
  float* p = nullptr;
  size_t n = 0;
  explicit mapped_floats(size_t count) : n(count) {
    void* m = ::mmap(nullptr, n * sizeof(float), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    p = static_cast<float*>(m);
  }
  ~mapped_floats() { ::munmap(p, n * sizeof(float)); }
  mapped_floats(const mapped_floats&) = delete;
  mapped_floats& operator=(const mapped_floats&) = delete;
};
}  // namespace

TEST_CASE("dataflow: a view given to output() is not read after the call (the buffer may be gone by the op's end)") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    for (int round = 0; round < 2; ++round) {
      probe::op op("small", "Small");
      std::vector<float> out(64);  // declared after the op: freed before the op ends
      for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(i);
      op.output("y", out);
    }
    {
      probe::op op("large", "Large");
      mapped_floats out(size_t{1} << 20);  // 4 MiB, unmapped before the op ends
      for (size_t i = 0; i < out.n; ++i) out.p[i] = 1.f;
      op.output("y", probe::view(out.p, {static_cast<int64_t>(out.n)}));
    }
    {
      // In place, after a producer: the implicit input is not read either.
      std::vector<float> cells(16, 1.f);
      {
        probe::op op("fill", "Fill");
        op.output("cells", cells);
      }
      probe::op op("partial", "Partial");
      std::vector<float> scratch(16);
      for (size_t i = 0; i < scratch.size(); ++i) scratch[i] = cells[i] * 2;
      cells[3] = 7.f;
      op.output("cells", cells);
    }
  }
  const manifest m(d.path());
  CHECK(m.at("small#1/out/y").get("stats").get("max").as_double() == 63.0);
  CHECK(m.at("large#0/out/y").get("stats").get("count").as_int() == int64_t{1} << 20);
  const auto& prior = m.at("partial#0/in/cells");
  CHECK(prior.get("implicit").as_bool());
  CHECK(prior.get_string("prior") == "producers");
  CHECK(producer_keys(prior) == "fill#0/out/cells");
  CHECK(prior.get("stats").is_null());
  CHECK(prior.find("hash") == nullptr);
}

TEST_CASE("dataflow: an op declaring as output what the ops it encloses wrote does not write it in place") {
  temp_dir d;
  std::vector<float> x(8, 1.f), y(8, 0.f), z(8, 0.f);
  {
    flags_scope fl("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    {
      probe::op block("layer", "Block");  // a module around its kernel
      block.input("x", x);
      {
        probe::op k("kernel", "Scale");
        k.input("x", x);
        for (size_t i = 0; i < y.size(); ++i) y[i] = 2 * x[i];
        k.output("y", y);
      }
      block.output("y", y);
    }
    {
      probe::op parent("tiled", "Scale");  // an op split over a worker
      parent.input("y", y);
      const probe::op_context ctx = probe::current_op_context();
      std::thread t([&] {
        probe::adopt_op_context adopt(ctx);
        probe::op w("tiled.part", "Scale");
        w.input("y", y);
        for (size_t i = 0; i < z.size(); ++i) z[i] = 3 * y[i];
        w.output("z", z);
      });
      t.join();
      parent.output("z", z);
    }
  }
  const manifest m(d.path());
  CHECK(m.tensors.count("layer#0/in/y") == 0);
  CHECK(m.tensors.count("tiled#0/in/z") == 0);
  CHECK(m.notes.empty());
  CHECK(m.at("tiled#0/in/y").get_string("producer") == "layer#0/out/y");
}

TEST_CASE("dataflow: a worker's input no op wrote says where it lies in the input of the op it works for") {
  temp_dir d;
  std::vector<float> w(16), x(8, 1.f), out(8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5f * static_cast<float>(i);
  {
    flags_scope fl("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    {
      probe::op fill("fill", "Fill");
      fill.output("x", x);
    }
    {
      probe::op parent("mm", "MatVec");
      parent.input("w", w);  // weights no op wrote
      parent.input("x", x);
      const probe::op_context ctx = probe::current_op_context();
      std::thread t([&] {
        probe::adopt_op_context adopt(ctx);
        probe::op part("mm.part", "MatVec");
        part.input("w", probe::view(w.data() + 8, {8}));  // the second row
        part.input("x", x);                               // an op wrote it: its producer says where
        out[0] = 1;
        part.output("y", probe::view(out.data(), {1}));
      });
      t.join();
      parent.output("y", out);
    }
    {
      probe::op later("later", "Sum");  // not nested: the ended op's input is not its
      later.input("w", probe::view(w.data() + 8, {8}));
    }
  }
  const manifest m(d.path());
  const probe::json::value& part = m.at("mm.part#0/in/w");
  CHECK(part.get("within").get_string("key") == "mm#0/in/w");
  CHECK(part.get("within").get("at").as_int() == 8 * 4);
  CHECK(m.at("mm.part#0/in/x").get("within").is_null());
  CHECK(m.at("mm#0/in/w").get("within").is_null());
  CHECK(m.at("later#0/in/w").get("within").is_null());
  CHECK(check_with_numpy(d.path()) == 0);
}

TEST_CASE("dataflow: inside a block, bytes of its unwritten input that a kernel rewrote come from that kernel") {
  temp_dir d;
  std::vector<float> x(8, 2.f), y(4);
  {
    flags_scope fl("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    probe::op block("layer", "Block");
    block.input("x", x);  // no op wrote it
    {
      probe::op norm("norm", "Scale");
      norm.inout("x", x);
      for (float& v : x) v *= 0.5f;
    }
    {
      probe::op mm("mm", "MatVec");
      mm.input("x", probe::view(x.data() + 4, {4}));
      mm.output("y", y);
    }
    block.output("y", y);
  }
  const manifest m(d.path());
  CHECK(m.at("norm#0/in/x").get("within").get_string("key") == "layer#0/in/x");  // its prior state: the block's
  CHECK(m.at("mm#0/in/x").get_string("producer") == "norm#0/out/x");
  CHECK(m.at("mm#0/in/x").get("within").is_null());
}
