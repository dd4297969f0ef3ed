// Ops begun on worker threads inside an op of the spawning thread: with an adopted context
// they name that op as their parent (manifest) and show it as a frame (breakpoints).
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "../dump/dump_fixture.hpp"
#include <probe/effects/breakpoint_frames.hpp>

using dump_test::count_containing;
using dump_test::manifest_lines;
using dump_test::flags_scope;
using probe_test::temp_dir;

TEST_CASE("op context: worker ops name the spawning thread's op as their parent") {
  temp_dir d;
  std::vector<float> x(8, 1.f);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    probe::op layer("L3", "Block");
    layer.input("x", x);
    const probe::op_context ctx = probe::current_op_context();
    CHECK_FALSE(ctx.empty());
    std::vector<std::thread> pool;
    for (int k = 0; k < 2; ++k)
      pool.emplace_back([&, k] {
        probe::adopt_op_context adopt(ctx);
        probe::op tile(k == 0 ? "L3.tile0" : "L3.tile1", "MatMul");
        tile.input("x", probe::view(x.data() + 4 * k, {4}));
        probe::op inner("L3.inner", "Add");  // nested on the worker: its parent is the tile
        inner.input("x", probe::view(x.data() + 4 * k, {4}));
      });
    for (auto& t : pool) t.join();
    std::thread([&] {
      probe::op alone("alone", "Work");  // no adoption: top-level, as before
      alone.input("x", x);
    }).join();
    // The spawning thread adopting its own context changes nothing: its chain stays.
    {
      probe::op own("own", "Leaf");
      probe::adopt_op_context adopt(ctx);
      probe::op child("child", "Leaf");
      child.input("x", x);
    }
  }
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"op\":\"L3.tile0\",\"type\":\"MatMul\",\"occurrence\":0,\"parent\":1,") == 1);
  CHECK(count_containing(lines, "\"op\":\"L3.tile1\",\"type\":\"MatMul\",\"occurrence\":0,\"parent\":1,") == 1);
  CHECK(count_containing(lines, "\"op\":\"L3.inner\",\"type\":\"Add\",\"occurrence\":0,\"parent\":1,") == 0);
  CHECK(count_containing(lines, "\"op\":\"L3.inner\"") == 2);
  CHECK(count_containing(lines, "\"op\":\"alone\",\"type\":\"Work\",\"occurrence\":0,\"parent\":null,") == 1);
  CHECK(count_containing(lines, "\"op\":\"child\",\"type\":\"Leaf\",\"occurrence\":0,\"parent\":7,") == 1);
}

TEST_CASE("op context: a breakpoint on a worker shows the spawning thread's op as a frame") {
  flags_scope f("--probe_breakpoint=prompt");
  std::vector<float> x{1, 2};
  probe::op layer("L1", "Block");
  layer.input("x", x);
  const probe::op_context ctx = probe::current_op_context();
  std::vector<std::string> titles;
  std::thread([&] {
    probe::adopt_op_context adopt(ctx);
    probe::op tile("L1.tile", "MatMul");
    const probe::var_ref vars[] = {probe::var("x", x)};
    probe::detail::stop_info s = probe::detail::breakpoint_stop("w.cpp", 3, "work", vars, 1);
    for (size_t i = 0; i < s.frames.size(); ++i) titles.push_back(probe::detail::frame_title(s.frames[i], i));
  }).join();
  REQUIRE(titles.size() == 3);
  CHECK(titles[1] == "#1 op L1.tile (MatMul) seq 2, step 0");
  CHECK(titles[2] == "#2 op L1 (Block) seq 1, step 0");
  // After the adopter ends, the worker thread has no op again.
  std::thread([&] {
    { probe::adopt_op_context adopt(ctx); }
    probe::op alone("alone");
    CHECK(probe::detail::breakpoint_stop("w.cpp", 4, "work", nullptr, 0).frames.size() == 2);
  }).join();
}

TEST_CASE("op context: empty when ops are not recorded") {
  flags_scope f("");
  probe::op layer("L1", "Block");
  CHECK(probe::current_op_context().empty());
  probe::adopt_op_context adopt(probe::current_op_context());  // harmless
}
