// The parts of replay on their own: op attributes where the dump writes them, check_close
// against probe compare's own metrics, the snapshot reader on corrupt input, fake data, and
// the row format a replay child process hands back.
#include <doctest/doctest.h>

#include <probe/probe.hpp>
#include <probe/core/tolerance.hpp>
#include <probe/effects/replay_data.hpp>
#include <probe/effects/replay_report.hpp>
#include <probe/formats/snapshot.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare_tensors.hpp"
#include "../support/capture.hpp"

using probe_test::temp_dir;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("attrs: numbers, strings and integer lists reach the manifest, the text dump and the snapshot") {
  temp_dir d;
  probe_test::capture_fd err;
  probe::set_flags(("--probe_dump_to=" + d.path() + " --probe_dump_snapshots --probe_dump_as_text").c_str());
  {
    const std::vector<float> x(4, 1.0f);
    const std::vector<int> dims = {2, 3};
    const std::array<int64_t, 2> pads = {0, -1};
    const std::string mode = "same";
    const std::vector<int> huge(5000, 1);
    probe::op op("conv", "Conv");
    op.attr("eps", 1e-5).attr("axis", 2).attr("mode", mode).attr("pad_mode", std::string_view("reflect"));
    op.attr("dims", dims).attr("pads", pads).attr("strides", {1, 1}).attr("bias", true).attr("scale", 0.5f);
    op.attr("axis", -1);          // given again: replaces the value, keeps its place
    op.attr("weights", huge);     // too large for an attribute: refused with a message
    op.input("x", x);
    op.output("y", x);
  }
  probe::set_flags("");
  const std::string said = err.stop();
  CHECK(said.find("attribute 'weights' has 5000 elements") != std::string::npos);
  const std::string want =
      "\"attrs\":{\"eps\":1e-05,\"axis\":-1,\"mode\":\"same\",\"pad_mode\":\"reflect\",\"dims\":[2,3],\"pads\":[0,-1],"
      "\"strides\":[1,1],\"bias\":true,\"scale\":0.5}";
  CHECK(read_file(d / "snapshots/op_000001.conv/snapshot.json").find(want) != std::string::npos);
  const std::string manifest = read_file(d / "manifest.jsonl");
  CHECK(manifest.find("{\"record\":\"attrs\",\"seq\":1,\"op\":\"conv\",\"type\":\"Conv\",\"occurrence\":0,\"key\":\"conv#0\"," + want) !=
        std::string::npos);
  CHECK(read_file(d / "op_000001.conv.txt")
            .find("attrs eps=1e-05 axis=-1 mode=\"same\" pad_mode=\"reflect\" dims=[2,3] pads=[0,-1] strides=[1,1] "
                  "bias=true scale=0.5\n") != std::string::npos);
  // Snapshot tensors carry their stats (fake data's value ranges).
  probe::snapshot::info s;
  std::string error;
  REQUIRE(probe::snapshot::read(d / "snapshots/op_000001.conv", &s, &error));
  REQUIRE(s.inputs.size() == 1);
  CHECK(s.inputs[0].have_stats);
  CHECK(s.inputs[0].stats.min == 1.0);
  CHECK(s.attrs.get("dims").size() == 2);
}

TEST_CASE("attrs: nothing is recorded, and nothing runs, when the op is not active") {
  probe::set_flags("");
  probe::op op("quiet", "Q");
  CHECK_FALSE(op.active());
  op.attr("eps", 1e-5).attr("dims", {1, 2}).attr("mode", "x");  // no effect, no crash
}

TEST_CASE("check_close: the same verdict and figures as probe compare's element check") {
  const size_t n = 4096;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    b[i] = std::sin(0.37f * static_cast<float>(i)) * (i % 7 == 0 ? 1e-9f : 3.0f);
    a[i] = b[i] + (i % 13 == 0 ? 1e-3f : i % 5 == 0 ? 2e-6f : 0.0f);
  }
  a[100] = NAN, b[100] = NAN;          // NaN against NaN: passes with equal_nan
  a[200] = NAN;                         // one-sided NaN: fails
  a[300] = INFINITY, b[300] = INFINITY;  // +Inf against +Inf: fails unless inf_equal
  for (bool equal_nan : {true, false})
    for (bool inf_equal : {false, true})
      for (probe::tolerance tol : {probe::tolerance{-1, -1}, probe::tolerance{1e-4, 0}, probe::tolerance{0, 1e-3}}) {
        CAPTURE(equal_nan);
        CAPTURE(inf_equal);
        CAPTURE(tol.atol);
        CAPTURE(tol.rtol);
        const probe::closeness c =
            probe::check_close(probe::view(a.data(), {64, 64}), probe::view(b.data(), {64, 64}), tol, equal_nan, inf_equal);
        probe::analysis::check_settings check;
        check.equal_nan = equal_nan;
        check.inf_equal = inf_equal;
        const auto ref = probe::analysis::compare_tensors(probe::view(a.data(), {64, 64}), probe::view(b.data(), {64, 64}),
                                                          tol, check);
        const auto& m = ref.metrics;
        REQUIRE(c.comparable);
        CHECK(c.pass == m.pass);
        CHECK(c.fail == m.fail);
        CHECK(c.nan_mismatch == m.nan_mismatch);
        CHECK(c.inf_mismatch == m.inf_mismatch);
        CHECK(c.max_abs == doctest::Approx(m.max_abs).epsilon(1e-12));
        CHECK(c.max_rel == doctest::Approx(m.max_rel).epsilon(1e-6));
        CHECK(c.tol.atol == m.tol.atol);
        CHECK(c.tol.rtol == m.tol.rtol);
        if (!m.first_fail.empty()) CHECK(c.first_fail == m.first_fail[0] * 64 + m.first_fail[1]);
        if (!m.worst_fail.empty()) CHECK(c.worst_fail == m.worst_fail[0] * 64 + m.worst_fail[1]);
      }
  // Defaults by the less precise dtype, integers exact, shapes and kinds refused.
  const std::vector<double> d(4, 1.0);
  const std::vector<float> f(4, 1.00001f);
  CHECK(probe::check_close(probe::view(f), probe::view(d)).tol.atol == 1e-5);
  const std::vector<int> i1 = {1, 2, 3}, i2 = {1, 2, 4};
  CHECK(probe::check_close(probe::view(i1), probe::view(i2)).fail == 1);
  CHECK_FALSE(probe::check_close(probe::view(i1), probe::view(d)).comparable);
  CHECK(std::string(probe::check_close(probe::view(i1), probe::view(d)).why) == "shape");
  const std::vector<char> flags(4, 1);
  const bool bools[4] = {true, true, true, true};
  CHECK(std::string(probe::check_close(probe::view(bools, 4), probe::view(d)).why) == "dtype");
  (void)flags;
}

TEST_CASE("snapshot::read: a corrupt or hostile snapshot is one clear error") {
  temp_dir d;
  probe::snapshot::info s;
  std::string error;
  const std::string good_tensor = R"({"slot":"x","key":"k#0/in/x","file":"in.x.npy","dtype":"float32","shape":[2,3]})";
  auto with = [&](const std::string& json) {
    write_file(d / "snapshot.json", json);
    error.clear();
    return probe::snapshot::read(d.path(), &s, &error);
  };
  CHECK(with(R"({"format":"probe-snapshot-1","status":"complete","op":"k","inputs":[)" + good_tensor + "]}"));
  CHECK(s.inputs[0].numel() == 6);
  CHECK_FALSE(with(R"({"format":"probe-snapshot-1","status":"complete","op":"k","inputs":[)"));
  CHECK(error.find("snapshot.json: line 1") != std::string::npos);
  CHECK_FALSE(with(R"({"format":"other"})"));
  CHECK(error.find("not a probe snapshot") != std::string::npos);
  CHECK_FALSE(with(R"({"format":"probe-snapshot-1","status":"done"})"));
  CHECK(error.find("unknown status 'done'") != std::string::npos);
  CHECK_FALSE(with(R"({"format":"probe-snapshot-1","status":"running","inputs":[{"slot":"x","file":"../../etc/passwd","dtype":"float32","shape":[1]}]})"));
  CHECK(error.find("bad file name '../../etc/passwd'") != std::string::npos);
  CHECK_FALSE(with(R"({"format":"probe-snapshot-1","status":"running","inputs":[{"slot":"x","file":"a","dtype":"float128","shape":[1]}]})"));
  CHECK(error.find("unknown dtype 'float128'") != std::string::npos);
  CHECK_FALSE(with(R"({"format":"probe-snapshot-1","status":"running","outputs":[{"slot":"y","file":"a","dtype":"float32","shape":[-1]}]})"));
  CHECK(error.find("bad size") != std::string::npos);
  CHECK_FALSE(with(R"({"format":"probe-snapshot-1","status":"running","outputs":[{"slot":"y","file":"a","dtype":"float32","shape":[1,1,1,1,1,1,1,1,1]}]})"));
  CHECK_FALSE(with(R"({"format":"probe-snapshot-1","status":"running","outputs":[{"slot":"y","file":"a","dtype":"float32","shape":[4294967296,4294967296]}]})"));
  CHECK(error.find("too large") != std::string::npos);
}

TEST_CASE("snapshot::find: snapshot folders, dump folders with rank folders, folders of snapshots, globs") {
  temp_dir d;
  const std::string snap = R"({"format":"probe-snapshot-1","status":"complete"})";
  for (const char* p : {"run/rank_0000/snapshots/op_000001.a", "run/rank_0001/snapshots/op_000001.a",
                        "run/rank_0001/snapshots/op_000002.b", "flat/op_000007.c"}) {
    REQUIRE(std::system(("mkdir -p '" + (d / p) + "'").c_str()) == 0);
    write_file(d / (std::string(p) + "/snapshot.json"), snap);
  }
  std::vector<std::string> dirs;
  std::string error;
  REQUIRE(probe::snapshot::find(d / "run", &dirs, &error));
  CHECK(dirs.size() == 3);
  dirs.clear();
  REQUIRE(probe::snapshot::find(d / "flat" + "\n" + (d / "run/rank_0001/snapshots/op_000002.b/snapshot.json"), &dirs, &error));
  REQUIRE(dirs.size() == 2);
  CHECK(dirs[1] == d / "run/rank_0001/snapshots/op_000002.b");
  dirs.clear();
  REQUIRE(probe::snapshot::find(d / "run/rank_*/snapshots/op_000001.*", &dirs, &error));
  CHECK(dirs.size() == 2);
  CHECK_FALSE(probe::snapshot::find(d / "nothing_here_*", &dirs, &error));
  CHECK(error.find("matches no snapshot") != std::string::npos);
  CHECK_FALSE(probe::snapshot::find(d.path(), &dirs, &error));  // holds only folders of folders
  CHECK(error.find("holds no snapshot") != std::string::npos);
  // A path that exists is taken as written, even with a glob character in its name.
  REQUIRE(std::system(("cp -r '" + (d / "run") + "' '" + (d / "run[1]") + "'").c_str()) == 0);
  dirs.clear();
  REQUIRE(probe::snapshot::find(d / "run[1]", &dirs, &error));
  CHECK(dirs.size() == 3);
  dirs.clear();
  REQUIRE(probe::snapshot::find(d / "ru[n]/rank_0000", &dirs, &error));  // no such path: a glob
  CHECK(dirs.size() == 1);
}

TEST_CASE("fake data: the recorded shape, dtype and range; the same seed gives the same values") {
  probe::snapshot::tensor_entry t;
  t.slot = "x";
  t.type = probe::dtype::float32;
  t.ndim = 2;
  t.shape[0] = 16, t.shape[1] = 32;
  t.have_stats = true;
  t.stats.finite = 10;
  t.stats.min = -3, t.stats.max = 5;
  const probe::tensor a = probe::detail::fake_tensor(t, "op#0", 7), b = probe::detail::fake_tensor(t, "op#0", 7);
  const probe::tensor c = probe::detail::fake_tensor(t, "op#0", 8);
  REQUIRE(a.numel() == 512);
  CHECK(a.type() == probe::dtype::float32);
  CHECK(std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
  CHECK(std::memcmp(a.data(), c.data(), a.nbytes()) != 0);
  const probe::health h = probe::compute_health(a.view());
  CHECK(h.min >= -3);
  CHECK(h.max <= 5);
  CHECK(h.max - h.min > 6);  // spread over the range
  t.type = probe::dtype::int32;
  t.stats.min = 0, t.stats.max = 9;  // indices, say: stay in range
  const probe::health hi = probe::compute_health(probe::detail::fake_tensor(t, "op#0", 1).view());
  CHECK(hi.min == 0);
  CHECK(hi.max == 9);
  t.have_stats = false;
  t.type = probe::dtype::float16;
  const probe::health hh = probe::compute_health(probe::detail::fake_tensor(t, "op#0", 1).view());
  CHECK(hh.all_finite());
  CHECK(hh.min >= -1);
  CHECK(hh.max <= 1);
}

TEST_CASE("fake data: a recorded range past what the dtype holds is cut to the dtype") {
  // snapshot.json may come from another build or be damaged: statistics it records are
  // not trusted to fit the dtype
  probe::snapshot::tensor_entry t;
  t.slot = "x";
  t.ndim = 1;
  t.shape[0] = 4096;
  t.have_stats = true;
  t.stats.finite = 10;
  t.stats.min = -1.7e308, t.stats.max = 1.7e308;
  for (probe::dtype d : {probe::dtype::float16, probe::dtype::bfloat16, probe::dtype::float32, probe::dtype::float64}) {
    t.type = d;
    const probe::health h = probe::compute_health(probe::detail::fake_tensor(t, "op#0", 3).view());
    CAPTURE(probe::dtype_name(d));
    CHECK(h.all_finite());
    CHECK(h.min < 0);
    CHECK(h.max > 0);
  }
  t.type = probe::dtype::float16;
  CHECK(probe::compute_health(probe::detail::fake_tensor(t, "op#0", 3).view()).max <= 65504);
  // integers: inside the dtype (undefined behaviour otherwise: UBSan runs catch it)
  t.type = probe::dtype::int8;
  t.stats.min = -1000, t.stats.max = 1000;
  probe::health h = probe::compute_health(probe::detail::fake_tensor(t, "op#0", 3).view());
  CHECK(h.min == -128);
  CHECK(h.max == 127);
  t.type = probe::dtype::uint64;
  t.stats.min = 5, t.stats.max = 3e30;
  h = probe::compute_health(probe::detail::fake_tensor(t, "op#0", 3).view());
  CHECK(h.min >= 5);
  CHECK(h.max <= 18446744073709551615.0);
  // a range wholly past the dtype: its nearest value
  t.type = probe::dtype::uint8;
  t.stats.min = 300, t.stats.max = 400;
  h = probe::compute_health(probe::detail::fake_tensor(t, "op#0", 3).view());
  CHECK(h.min == 255);
  CHECK(h.max == 255);
  // min above max (damaged): one value, not a range turned inside out
  t.type = probe::dtype::float32;
  t.stats.min = 2, t.stats.max = -2;
  h = probe::compute_health(probe::detail::fake_tensor(t, "op#0", 3).view());
  CHECK(h.min == 2);
  CHECK(h.max == 2);
}

TEST_CASE("replay rows: the JSON a child process hands back reads back the same") {
  probe::detail::replay_row r;
  r.key = "norm#0";
  r.type = "LayerNorm";
  r.status = "running";
  r.outcome = probe::detail::replay_outcome::mismatch;
  r.times_ns = {10, 20};
  probe::detail::replay_output_row o;
  o.slot = "y";
  o.shape = "float32[2]";
  o.result = "MISMATCH";
  o.compared = true;
  o.c.comparable = true;
  o.c.fail = 2;
  o.c.max_abs = 0.5;
  o.c.worst_ratio = INFINITY;
  o.worst_at = "[1]";
  r.outputs.push_back(o);
  probe::detail::replay_row back;
  REQUIRE(probe::detail::replay_row_from_json(probe::detail::replay_row_json(r), &back));
  CHECK(back.key == "norm#0");
  CHECK(back.outcome == probe::detail::replay_outcome::mismatch);
  CHECK(back.times_ns == std::vector<int64_t>{10, 20});
  REQUIRE(back.outputs.size() == 1);
  CHECK(back.outputs[0].c.fail == 2);
  CHECK(std::isinf(back.outputs[0].c.worst_ratio));
  CHECK(back.outputs[0].worst_at == "[1]");
  CHECK_FALSE(probe::detail::replay_row_from_json("{\"key\":", &back));
}

TEST_CASE("replay table: rows from an MPI job's rank folders name their rank") {
  probe::detail::replay_report rep;
  for (int rank = 0; rank < 3; ++rank) {
    probe::detail::replay_row r;
    r.dir = "/tmp/job/rank_000" + std::to_string(rank) + "/snapshots/op_000013.stencil";
    r.key = "stencil#2";
    r.type = "Heat";
    r.status = "complete";
    probe::detail::replay_output_row o;
    o.slot = "v";
    o.shape = "float64[8]";
    o.result = rank == 2 ? "MISMATCH" : "ok";
    r.outcome = rank == 2 ? probe::detail::replay_outcome::mismatch : probe::detail::replay_outcome::ok;
    r.outputs.push_back(o);
    rep.rows.push_back(r);
  }
  probe::detail::replay_row flat;
  flat.dir = "/tmp/rank_run/snapshots/op_000001.a";  // a folder that only starts like a rank's
  flat.key = "a#0";
  flat.type = "A";
  flat.status = "complete";
  rep.rows.push_back(flat);
  const std::string text = probe::detail::replay_text(rep);
  INFO(text);
  CHECK(text.find("rank 0 stencil#2  Heat") != std::string::npos);
  CHECK(text.find("rank 2 stencil#2  Heat") != std::string::npos);
  CHECK(text.find("1 of 4 ops mismatch their recorded outputs: rank 2 stencil#2 (Heat).") != std::string::npos);
  CHECK(text.find("\na#0 ") != std::string::npos);
}
