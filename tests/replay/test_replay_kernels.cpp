// Replaying in this process: kernels registered here run on snapshots this test dumps, and
// every check a kernel's requests go through ends in one clear error row.
#include <doctest/doctest.h>

#include <signal.h>

#include <probe/probe.hpp>
#include <probe/effects/replay_run.hpp>
#include <probe/formats/snapshot.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "../support/capture.hpp"

using probe_test::temp_dir;
namespace pd = probe::detail;

namespace {

// Dumps one op "t" of type `type` (x: float32[2,3] in, y = 2x out) with attributes. With
// finish false the op throws before its output: snapshot status "exception", no output.
probe::snapshot::info dump_one(const temp_dir& d, const char* type, bool finish = true) {
  probe::set_flags(("--probe_dump_to=" + d.path() + " --probe_dump_snapshots").c_str());
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y(6);
  try {
    probe::op op("t", type);
    op.attr("eps", 0.25).attr("axis", 1).attr("mode", "fast").attr("dims", {2, 3});
    op.input("x", probe::view(x.data(), {2, 3}));
    for (int i = 0; i < 6; ++i) y[i] = 2 * x[i];
    if (!finish) throw std::runtime_error("the op fails");
    op.output("y", probe::view(y.data(), {2, 3}));
  } catch (const std::runtime_error&) {
  }
  probe::set_flags("");
  std::vector<std::string> dirs;
  std::string error;
  REQUIRE(probe::snapshot::find(d.path(), &dirs, &error));
  probe::snapshot::info s;
  REQUIRE(probe::snapshot::read(dirs.at(0), &s, &error));
  return s;
}

pd::replay_row replay(const probe::snapshot::info& s, bool isolated = false) {
  pd::replay_settings settings;
  return isolated ? pd::replay_isolated(s, settings) : pd::replay_one(s, settings);
}

void doubling(probe::replay_context& ctx) {
  auto x = ctx.input<float>("x", {-1, 3});
  auto y = ctx.output<float>("y");
  for (int64_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];
}

}  // namespace

TEST_CASE("replay kernels: a good kernel matches, with attributes as the kernel's own types") {
  temp_dir d;
  static std::string seen;
  probe::register_kernel("DoubleGood", [](probe::replay_context& ctx) {
    seen = ctx.attr<std::string>("mode") + " " + std::to_string(ctx.attr<int>("axis")) + " " +
           std::to_string(ctx.attr<double>("eps")) + " " + std::to_string(ctx.attr<std::vector<int>>("dims").size()) +
           " " + std::to_string(ctx.attr("missing", 7)) + " " + ctx.op_name() + " " + ctx.op_type();
    CHECK(ctx.has_attr("eps"));
    CHECK(ctx.has_input("x"));
    CHECK(ctx.has_output("y"));
    CHECK_FALSE(ctx.has_input("y"));
    doubling(ctx);
  });
  const pd::replay_row r = replay(dump_one(d, "DoubleGood"));
  CHECK(r.error == "");
  CHECK(r.outcome == pd::replay_outcome::ok);
  CHECK(r.kernel == "DoubleGood");
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].result == "ok");
  CHECK(r.outputs[0].c.count == 6);
  CHECK(seen == "fast 1 0.250000 2 7 t DoubleGood");
}

TEST_CASE("replay kernels: a kernel's request that cannot be met is one error row") {
  struct bad_case {
    const char* type;
    probe::kernel_fn fn;
    const char* error;
  };
  const bad_case cases[] = {
      {"WrongDtype", [](probe::replay_context& ctx) { ctx.input<double>("x"); },
       "input 'x' is float32[2,3]; the kernel reads it as float64"},
      {"WrongShape", [](probe::replay_context& ctx) { ctx.input<float>("x", {3, 2}); },
       "input 'x' is float32[2,3]; the kernel expects shape [3,2]"},
      {"NoSlot", [](probe::replay_context& ctx) { ctx.input<float>("w"); },
       "the kernel asks for input 'w'; the snapshot has x"},
      {"NoAttr", [](probe::replay_context& ctx) { ctx.attr<double>("alpha"); },
       "the kernel asks for attribute 'alpha'; the snapshot has eps, axis, mode, dims"},
      {"AttrType", [](probe::replay_context& ctx) { ctx.attr<int>("eps"); },
       "attribute 'eps' is 0.25; the kernel reads it as an integer"},
      {"AttrString", [](probe::replay_context& ctx) { ctx.attr<std::string>("axis"); },
       "attribute 'axis' is 1; the kernel reads it as a string"},
      {"OutDtype", [](probe::replay_context& ctx) { ctx.output<int>("y"); },
       "output 'y' was recorded as float32[2,3]; the kernel writes int32"},
      {"OutShape", [](probe::replay_context& ctx) { ctx.output<float>("y", {6}); },
       "output 'y' was recorded as float32[2,3]; the kernel gives shape [6]"},
      {"NoOutput", [](probe::replay_context& ctx) { ctx.input<float>("x"); },
       "the kernel wrote no output 'y' (ctx.output<T>(\"y\"))"},
      {"Throws", [](probe::replay_context&) { throw std::runtime_error("bad kernel"); },
       "the kernel threw: bad kernel"},
      // A kernel's own handler for std::exception does not swallow a failed check.
      {"CatchesAll", [](probe::replay_context& ctx) {
         try {
           ctx.input<double>("x");
         } catch (const std::exception&) {
         }
       },
       "input 'x' is float32[2,3]; the kernel reads it as float64"},
  };
  for (const bad_case& c : cases) {
    CAPTURE(c.type);
    temp_dir d;
    probe::register_kernel(c.type, c.fn);
    const pd::replay_row r = replay(dump_one(d, c.type));
    CHECK(r.outcome == pd::replay_outcome::error);
    CHECK(r.error == c.error);
  }
  temp_dir d;
  const pd::replay_row none = replay(dump_one(d, "NobodyRegisteredThis"));
  CHECK(none.outcome == pd::replay_outcome::error);
  CHECK(none.error.rfind("no kernel registered for op 't' or type 'NobodyRegisteredThis'", 0) == 0);
}

TEST_CASE("replay kernels: a mismatch, the reference form, and an op that never finished") {
  probe::register_kernel(
      "DoubleOff", [](probe::replay_context& ctx) {
        doubling(ctx);
        ctx.output<float>("y")[4] += 1;  // the same memory when asked again: one wrong element
      },
      doubling);
  temp_dir d;
  const probe::snapshot::info s = dump_one(d, "DoubleOff");
  pd::replay_row r = replay(s);
  CHECK(r.outcome == pd::replay_outcome::mismatch);
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].c.fail == 1);
  CHECK(r.outputs[0].worst_at == "[1,1]");
  pd::replay_settings reference;
  reference.reference = true;
  CHECK(pd::replay_one(s, reference).outcome == pd::replay_outcome::ok);

  // No recorded output: the kernel must say the shape; what it writes is not compared.
  temp_dir d2;
  probe::register_kernel("DoubleUnfinished", doubling);
  const probe::snapshot::info unfinished = dump_one(d2, "DoubleUnfinished", false);
  CHECK(unfinished.status == "exception");
  CHECK(unfinished.outputs.empty());
  r = replay(unfinished);
  CHECK(r.error.find("output 'y' was not recorded (the op did not finish); give its shape") != std::string::npos);
  probe::register_kernel("DoubleUnfinished", [](probe::replay_context& ctx) {
    auto x = ctx.input<float>("x");
    auto y = ctx.output<float>("y", x.shape());
    for (int64_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];
  });
  r = replay(dump_one(d2, "DoubleUnfinished", false));
  CHECK(r.outcome == pd::replay_outcome::ok);
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].result == "new");
}

TEST_CASE("replay kernels: in a child process, a crash is an error row naming the signal") {
  probe::register_kernel("Crashes", [](probe::replay_context& ctx) {
    ctx.input<float>("x");
    raise(SIGSEGV);
  });
  temp_dir d;
  const pd::replay_row r = replay(dump_one(d, "Crashes"), true);
  CHECK(r.isolated);
  CHECK(r.outcome == pd::replay_outcome::error);
  CHECK(r.error.rfind("the kernel crashed: SIGSEGV (signal 11", 0) == 0);
  // A good kernel in a child reports its row as it would here.
  probe::register_kernel("DoubleChild", doubling);
  temp_dir d2;
  const pd::replay_row good = replay(dump_one(d2, "DoubleChild"), true);
  CHECK(good.outcome == pd::replay_outcome::ok);
  REQUIRE(good.outputs.size() == 1);
  CHECK(good.outputs[0].c.count == 6);
}
