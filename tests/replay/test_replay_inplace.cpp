// Replaying an op that writes part of a buffer in place (collision writes the fluid cells of
// a buffer bounce-back wrote the walls of, tests/support/inplace_solver.hpp): its output
// starts from the recorded prior state, put together from the producers' snapshot files, so a
// correct kernel matches and a kernel that does nothing, or one cell too much, does not.
#include <doctest/doctest.h>

#include <probe/probe.hpp>
#include <probe/effects/replay_run.hpp>
#include <probe/formats/snapshot.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "../support/capture.hpp"
#include "../support/inplace_solver.hpp"

using probe_test::temp_dir;
namespace pd = probe::detail;
namespace is = inplace_solver;

namespace {

// The snapshot of op execution `key` in the dump folder dir.
probe::snapshot::info snapshot_of(const std::string& dir, const std::string& key) {
  std::vector<std::string> dirs;
  std::string error;
  REQUIRE(probe::snapshot::find(dir, &dirs, &error));
  for (const std::string& s : dirs) {
    probe::snapshot::info info;
    REQUIRE_MESSAGE(probe::snapshot::read(s, &info, &error), error);
    if (info.key() == key) return info;
  }
  FAIL("no snapshot of " << key);
  return {};
}

// Replays the snapshot with `kernel` registered under its type.
pd::replay_row replay_with(const probe::snapshot::info& s, probe::kernel_fn kernel) {
  probe::register_kernel(s.type.c_str(), kernel);
  return pd::replay_one(s, pd::replay_settings());
}

}  // namespace

TEST_CASE("replay in place: a partial writer starts from the prior state its producers recorded") {
  temp_dir d;
  probe::set_flags(("--probe_dump_to=" + d.path() + " --probe_dump_snapshots").c_str());
  {
    is::solver s;
    s.run(is::plant::none);
  }
  probe::set_flags("");
  const probe::snapshot::info collision = snapshot_of(d.path(), "collision#1");
  const probe::snapshot::tensor_entry* prior = collision.input("cells");
  REQUIRE(prior != nullptr);
  CHECK(prior->implicit);
  CHECK(prior->prior == "producers");
  CHECK(prior->file.empty());
  REQUIRE(prior->pieces.size() == 3);
  CHECK(prior->pieces[1].key == "stream#1/out/cells");
  CHECK(prior->pieces[1].offset == 16);
  CHECK(prior->pieces[1].at == 16);  // the fluid cells are the middle of stream's output

  auto correct = [](probe::replay_context& ctx) {
    auto g = ctx.output<float>("cells");
    is::collide_kernel(g.data());
  };
  auto nothing = [](probe::replay_context& ctx) { ctx.output<float>("cells"); };
  auto one_too_many = [](probe::replay_context& ctx) {
    auto g = ctx.output<float>("cells");
    for (int i = is::k_wall - 1; i < is::k_cells - is::k_wall; ++i) g[i] = 0.75f * g[i] + 0.125f * static_cast<float>(i % 3);
  };
  const pd::replay_row ok = replay_with(collision, correct);
  INFO(ok.error);
  CHECK(ok.outcome == pd::replay_outcome::ok);
  CHECK(replay_with(collision, nothing).outcome == pd::replay_outcome::mismatch);
  // copying the input into the output computes nothing either: the input is the prior state
  auto copy_input = [](probe::replay_context& ctx) {
    auto f = ctx.input<float>("cells");
    auto g = ctx.output<float>("cells");
    for (int64_t i = 0; i < g.size(); ++i) g[i] = f[i];
  };
  CHECK(replay_with(collision, copy_input).outcome == pd::replay_outcome::mismatch);
  CHECK(replay_with(collision, one_too_many).outcome == pd::replay_outcome::mismatch);

  // bounce-back's prior state of each wall is a piece of stream's output, too
  const probe::snapshot::info bounce = snapshot_of(d.path(), "bounce_back#1");
  auto walls = [](probe::replay_context& ctx) {
    auto w = ctx.output<float>("west");
    auto e = ctx.output<float>("east");
    is::bounce_kernel(w.data(), 0, is::k_wall);
    is::bounce_kernel(e.data(), 0, is::k_wall);
  };
  const pd::replay_row b = replay_with(bounce, walls);
  INFO(b.error);
  CHECK(b.outcome == pd::replay_outcome::ok);
  auto no_walls = [](probe::replay_context& ctx) {
    ctx.output<float>("west");
    ctx.output<float>("east");
  };
  CHECK(replay_with(bounce, no_walls).outcome == pd::replay_outcome::mismatch);
}

TEST_CASE("replay in place: an op.inout output starts from the recorded input") {
  temp_dir d;
  probe::set_flags(("--probe_dump_to=" + d.path() + " --probe_dump_snapshots").c_str());
  std::vector<float> f = {1, 2, 3, 4, 5, 6};
  {
    probe::op op("relax_half", "RelaxHalf");
    op.inout("f", f);
    for (size_t i = 0; i < 3; ++i) f[i] *= 2;  // the first half only
  }
  probe::set_flags("");
  const probe::snapshot::info s = snapshot_of(d.path(), "relax_half#0");
  auto half = [](probe::replay_context& ctx) {
    auto g = ctx.output<float>("f");
    for (int i = 0; i < 3; ++i) g[i] *= 2;
  };
  CHECK(replay_with(s, half).outcome == pd::replay_outcome::ok);
  auto nothing = [](probe::replay_context& ctx) { ctx.output<float>("f"); };
  CHECK(replay_with(s, nothing).outcome == pd::replay_outcome::mismatch);
}

TEST_CASE("replay in place: a snapshot without its producers' files is not judged, not blamed") {
  // Copied alone, collision's prior state cannot be put together: it starts from zeros, and
  // an output that then differs says nothing about the kernel.
  temp_dir d, lone;
  probe::set_flags(("--probe_dump_to=" + d.path() + " --probe_dump_snapshots").c_str());
  {
    is::solver s;
    s.run(is::plant::none);
  }
  probe::set_flags("");
  const probe::snapshot::info collision = snapshot_of(d.path(), "collision#1");
  REQUIRE(std::system(("cp -r '" + collision.dir + "' '" + lone.path() + "/'").c_str()) == 0);
  probe::snapshot::info alone;
  std::string error;
  const std::string copy = lone.path() + collision.dir.substr(collision.dir.rfind('/'));
  REQUIRE_MESSAGE(probe::snapshot::read(copy, &alone, &error), error);
  auto correct = [](probe::replay_context& ctx) {
    auto g = ctx.output<float>("cells");
    is::collide_kernel(g.data());
  };
  const pd::replay_row r = replay_with(alone, correct);
  CHECK(r.outcome == pd::replay_outcome::error);
  CHECK(r.error.find("started from zeros") != std::string::npos);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("start from zeros") != std::string::npos);
}

TEST_CASE("replay in place: producers whose bytes are rows of the input give no prior state to copy") {
  // init writes the whole [T, 2, D] buffer; head 1 writes its rows (T of them, past the runs the
  // producer map keeps apart: a grid); T contiguous ops then rewrite head 1's part of each row.
  // What is left of init is head 0's rows: rows of the input, not one range, so the in-place op's
  // prior state cannot be copied from init's snapshot file as a range.
  constexpr int64_t T = 40, D = 4;
  temp_dir d;
  std::vector<float> buf(static_cast<size_t>(T * 2 * D));
  probe::set_flags(("--probe_dump_to=" + d.path() + " --probe_dump_snapshots").c_str());
  {
    {
      probe::op op("init", "Fill");
      for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<float>(i);
      op.output("b", buf);
    }
    {
      probe::op op("head", "Attention");
      op.output("b", probe::view(buf.data() + D, {T, D}, {2 * D, 1}));
    }
    for (int64_t t = 0; t < T; ++t) {
      probe::op op("row", "Fill");
      op.output("b", probe::view(buf.data() + t * 2 * D + D, {D}));
    }
    probe::op op("scale", "Scale");  // in place, its input undeclared
    for (float& x : buf) x *= 2;
    op.output("b", buf);
  }
  probe::set_flags("");
  const probe::snapshot::info scale = snapshot_of(d.path(), "scale#0");
  const probe::snapshot::tensor_entry* prior = scale.input("b");
  REQUIRE(prior != nullptr);
  CHECK(prior->implicit);
  CHECK(prior->pieces.empty());
  CHECK(prior->prior == "unknown");
}
