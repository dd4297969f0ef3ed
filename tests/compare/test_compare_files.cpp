// probe compare on files: folders of .npy, single files, files numpy writes in other
// layouts, many threads against one, and inputs that are broken in every way we know.
#include <doctest/doctest.h>

#include "analysis/compare_json.hpp"
#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "../support/capture.hpp"
#include "manifest_fixture.hpp"
#include "reference_engine.hpp"

using namespace compare_test;
namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

void write_npy(const std::string& path, const std::vector<float>& v, std::initializer_list<int64_t> shape) {
  std::string err;
  REQUIRE_MESSAGE(probe::npy::write(path, probe::view(v.data(), probe::dims(shape)), &err), err);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("compare files: folders of .npy paired by relative path, single files") {
  temp_dir d;
  mkdir((d / "a").c_str(), 0755);
  mkdir((d / "b").c_str(), 0755);
  mkdir((d / "a/sub").c_str(), 0755);
  mkdir((d / "b/sub").c_str(), 0755);
  std::vector<float> x(100, 1.0f), y(100, 1.0f);
  y[42] = 2;
  write_npy(d / "a/sub/t1.npy", x, {10, 10});
  write_npy(d / "b/sub/t1.npy", y, {10, 10});
  write_npy(d / "a/t0.npy", x, {100});
  write_npy(d / "b/t0.npy", x, {100});
  write_npy(d / "a/only.npy", x, {100});
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  REQUIRE(r.error.empty());
  CHECK(r.kind == "npy folders");
  REQUIRE(r.runs[0].pairs.size() == 3);
  CHECK(r.runs[0].pairs[0].key == "only.npy");
  CHECK(r.runs[0].pairs[0].status == pa::pair_status::only_a);
  CHECK(r.runs[0].pairs[1].key == "sub/t1.npy");
  CHECK(r.runs[0].pairs[1].metrics.first_fail == std::vector<int64_t>{4, 2});
  CHECK(r.runs[0].pairs[2].status == pa::pair_status::ok);
  CHECK_FALSE(r.runs[0].graph.available);
  CHECK(r.exit_code() == 1);
  CHECK(pa::compare_text(r).find("First mismatching file (in name order): sub/t1.npy") != std::string::npos);

  const pa::compare_report f = pa::compare_paths(d / "a/t0.npy", d / "b/t0.npy", pa::compare_settings());
  CHECK(f.kind == "npy files");
  CHECK(f.exit_code() == 0);
  CHECK(pa::compare_paths(d / "a/t0.npy", d / "b", pa::compare_settings()).exit_code() == 2);
}

TEST_CASE("compare files: big-endian and Fortran-order files written by numpy compare equal to native ones") {
  temp_dir d;
  const std::string script = "import numpy as np, os\n"
                             "d = '" + d.path() + "'\n"
                             "os.makedirs(d + '/a'); os.makedirs(d + '/b')\n"
                             "x = (np.arange(60, dtype=np.float64).reshape(3, 4, 5) * 0.37).astype(np.float32)\n"
                             "np.save(d + '/a/le.npy', x); np.save(d + '/b/le.npy', x.astype('>f4'))\n"
                             "np.save(d + '/a/f.npy', np.asfortranarray(x)); np.save(d + '/b/f.npy', x)\n"
                             "z = (x[0] + 1j * x[1]).astype('>c8')\n"
                             "np.save(d + '/a/z.npy', z); np.save(d + '/b/z.npy', z.astype('<c8'))\n";
  spit(d / "make.py", script);
  REQUIRE(std::system((std::string(PROBE_TEST_PYTHON) + " " + (d / "make.py")).c_str()) == 0);
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  INFO(pa::compare_text(r));
  REQUIRE(r.error.empty());
  REQUIRE(r.runs[0].pairs.size() == 3);
  for (const pa::compared_pair& p : r.runs[0].pairs) {
    CHECK_MESSAGE(p.status == pa::pair_status::ok, p.key);
    CHECK(p.metrics.max_abs == 0);
    CHECK(p.metrics.count > 0);
  }
}

TEST_CASE("compare files: answers do not depend on the number of threads") {
  temp_dir d;
  mkdir((d / "a").c_str(), 0755);
  mkdir((d / "b").c_str(), 0755);
  std::mt19937 g(11);
  std::normal_distribution<float> nd;
  for (int t = 0; t < 3; ++t) {
    const size_t n = (size_t{3} << 20) + 12345 * static_cast<size_t>(t);  // several chunks each
    std::vector<float> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      b[i] = nd(g);
      a[i] = b[i] + (i % 100003 == 7 ? 1e-3f : 1e-7f * nd(g));
    }
    write_npy(d / ("a/t" + std::to_string(t) + ".npy"), a, {static_cast<int64_t>(n)});
    write_npy(d / ("b/t" + std::to_string(t) + ".npy"), b, {static_cast<int64_t>(n)});
  }
  pa::compare_settings one, many;
  one.threads = 1;
  many.threads = 5;
  const pa::compare_report r1 = pa::compare_paths(d / "a", d / "b", one);
  const pa::compare_report r5 = pa::compare_paths(d / "a", d / "b", many);
  REQUIRE(r1.error.empty());
  REQUIRE(r5.error.empty());
  for (size_t i = 0; i < 3; ++i) {
    const pa::tensor_metrics &x = r1.runs[0].pairs[i].metrics, &y = r5.runs[0].pairs[i].metrics;
    CHECK(x.fail > 30);
    CHECK(x.fail == y.fail);
    CHECK(x.first_fail == y.first_fail);
    CHECK(x.worst_fail == y.worst_fail);
    CHECK(x.max_abs == y.max_abs);
    CHECK(x.mean_abs == y.mean_abs);  // merged in position order: bit for bit
    CHECK(x.cosine == y.cosine);
    CHECK(x.p99 == y.p99);
    CHECK(x.first_fail == std::vector<int64_t>{7});
  }
  CHECK(r1.bytes == r5.bytes);
}

TEST_CASE("compare files: a long compare reports its progress, which grows to the total") {
  temp_dir d;
  std::vector<float> v(16 << 20);  // 64 MiB a side
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000);
  write_npy(d / "a.npy", v, {static_cast<int64_t>(v.size())});
  v[777] += 1;
  write_npy(d / "b.npy", v, {static_cast<int64_t>(v.size())});
  struct seen {
    std::vector<std::pair<uint64_t, uint64_t>> calls;
  } log;
  pa::compare_settings s;
  s.threads = 1;
  s.progress_interval_ms = 1;
  s.progress_context = &log;
  s.progress = [](void* c, uint64_t done, uint64_t total) { static_cast<seen*>(c)->calls.emplace_back(done, total); };
  const pa::compare_report r = pa::compare_paths(d / "a.npy", d / "b.npy", s);
  CHECK(r.exit_code() == 1);
  REQUIRE(!log.calls.empty());
  for (size_t i = 0; i < log.calls.size(); ++i) {
    CHECK(log.calls[i].second == (uint64_t{128} << 20));  // both sides
    CHECK(log.calls[i].first <= log.calls[i].second);
    if (i) CHECK(log.calls[i].first >= log.calls[i - 1].first);
  }
}

TEST_CASE("compare files: broken inputs are bad input, and the message names the file") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  dump_run<float>(d / "opt", false);
  pa::compare_settings s;
  auto error_of = [&](const std::string& a, const std::string& b) {
    const pa::compare_report r = pa::compare_paths(a, b, s);
    CHECK(r.exit_code() == 2);
    return r.error;
  };
  CHECK(error_of(d / "nowhere", d / "ref").find("nowhere: no such file or folder") != std::string::npos);
  mkdir((d / "empty").c_str(), 0755);
  CHECK(error_of(d / "empty", d / "ref").find("empty: no manifest.jsonl and no .npy files") != std::string::npos);

  // a truncated data file
  const std::string file = d / "opt/op_000003.norm.out.y.npy";
  const std::string bytes = slurp(file);
  spit(file, bytes.substr(0, bytes.size() - 10));
  std::string e = error_of(d / "opt", d / "ref");
  CHECK(e.find("op_000003.norm.out.y.npy") != std::string::npos);
  CHECK(e.find("truncated") != std::string::npos);
  // not an npy at all
  spit(file, "hello");
  CHECK(error_of(d / "opt", d / "ref").find("op_000003.norm.out.y.npy") != std::string::npos);
  spit(file, bytes);
  CHECK(pa::compare_paths(d / "opt", d / "ref", s).exit_code() == 0);
  // a file the manifest names is missing
  std::remove(file.c_str());
  CHECK(error_of(d / "opt", d / "ref").find("op_000003.norm.out.y.npy: cannot open") != std::string::npos);
  spit(file, bytes);

  // a corrupt line inside the manifest: file and line
  const std::string manifest = d / "opt/manifest.jsonl";
  const std::string text = slurp(manifest);
  const size_t third = text.find('\n', text.find('\n', text.find('\n') + 1) + 1);
  spit(manifest, text.substr(0, third + 1) + "{\"record\": \"tensor\", oops\n" + text.substr(third + 1));
  e = error_of(d / "opt", d / "ref");
  CHECK(e.find("opt/manifest.jsonl:4:") != std::string::npos);
  // a file name that leaves the folder
  spit(manifest, text.substr(0, third + 1) +
                     "{\"record\":\"tensor\",\"seq\":99,\"io\":\"out\",\"key\":\"evil#0/out/y\",\"file\":\"../../etc/passwd\"}\n");
  CHECK(error_of(d / "opt", d / "ref").find("leaves the dump folder") != std::string::npos);

  // a run cut short: the last line is half written; the prefix is compared, with a note
  spit(manifest, text.substr(0, third + 1) + "{\"record\":\"tensor\",\"seq\":2,\"st");
  const pa::compare_report r = pa::compare_paths(d / "opt", d / "ref", s);
  REQUIRE(r.error.empty());
  CHECK(r.counts.ok == 2);  // the two whole tensor lines
  CHECK(r.counts.only_b == 16);
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n.find("incomplete") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("compare files: a stats-only dump is compared by its statistics, and says so") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  probe::set_flags(("--probe_dump_to=" + (d / "stats") + " --probe_dump_stats_only").c_str());
  tiny_net<float>().run();
  probe::set_flags("");
  const pa::compare_report r = pa::compare_paths(d / "stats", d / "ref", pa::compare_settings());
  REQUIRE(r.error.empty());
  CHECK(r.counts.no_data == 0);
  CHECK(r.counts.by_stats == 18);
  CHECK(r.counts.ok == 18);
  CHECK(r.exit_code() == 0);
  CHECK(r.runs[0].graph.roots.empty());
  CHECK(pa::compare_text(r).find("compared by their statistics only") != std::string::npos);
  // a planted bug shows in the statistics: the same root as with the data
  engine_options o;
  o.planted = plant::wrong_norm;
  probe::set_flags(("--probe_dump_to=" + (d / "stats_bug") + " --probe_dump_stats_only").c_str());
  tiny_net<float>(o).run();
  probe::set_flags("");
  const pa::compare_report b = pa::compare_paths(d / "stats_bug", d / "ref", pa::compare_settings());
  REQUIRE(b.error.empty());
  CHECK(b.exit_code() == 1);
  REQUIRE(b.runs[0].graph.roots.size() == 1);
  CHECK(b.runs[0].graph.nodes[b.runs[0].graph.roots[0].node].op == "norm");
  CHECK(pa::compare_text(b).find("MISMATCH (stats)") != std::string::npos);
}

TEST_CASE("compare files: stats-only tensors of different shapes or kinds are a mismatch, not compared") {
  temp_dir d;
  const std::string stats =
      "{\"count\":64,\"finite\":64,\"min\":0.0,\"max\":1.0,\"mean\":0.5,\"std\":0.3,\"nan\":0,"
      "\"posinf\":0,\"neginf\":0,\"zero\":1,\"subnormal\":0,\"negative\":0,\"positive\":63}";
  auto manifest = [&](const std::string& dir, const char* y_shape, const char* z_dtype) {
    mkdir(dir.c_str(), 0755);
    spit(dir + "/manifest.jsonl",
         "{\"record\":\"run\",\"probe_version\":\"0.1.0\"}\n"
         "{\"record\":\"tensor\",\"seq\":1,\"step\":0,\"op\":\"relu\",\"type\":\"Relu\",\"occurrence\":0,"
         "\"io\":\"out\",\"slot\":\"y\",\"key\":\"relu#0/out/y\",\"dtype\":\"float32\",\"shape\":" +
             std::string(y_shape) + ",\"file\":null,\"stats\":" + stats +
             "}\n"
             "{\"record\":\"tensor\",\"seq\":2,\"step\":0,\"op\":\"gate\",\"type\":\"Gate\",\"occurrence\":0,"
             "\"io\":\"out\",\"slot\":\"z\",\"key\":\"gate#0/out/z\",\"dtype\":\"" +
             z_dtype + "\",\"shape\":[64],\"file\":null,\"stats\":" + stats + "}\n{\"record\":\"end\"}\n");
  };
  manifest(d / "a", "[8,8]", "float32");
  manifest(d / "b", "[64]", "bool");
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  INFO(pa::compare_text(r));
  REQUIRE(r.error.empty());
  CHECK(r.counts.shape == 1);
  CHECK(r.counts.dtype == 1);
  CHECK(r.counts.ok == 0);
  CHECK(r.exit_code() == 1);
  CHECK(pa::compare_text(r).find("SHAPE [8,8] vs [64]") != std::string::npos);
  // the same shapes and kinds are judged by their statistics
  manifest(d / "c", "[8,8]", "float32");
  const pa::compare_report same = pa::compare_paths(d / "a", d / "c", pa::compare_settings());
  REQUIRE(same.error.empty());
  CHECK(same.counts.by_stats == 2);
  CHECK(same.exit_code() == 0);
}

TEST_CASE("compare files: a dump with snapshots only compares its values against an npy dump") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  probe::set_flags(("--probe_dump_to=" + (d / "snap") + " --probe_dump_snapshots").c_str());
  tiny_net<float>().run();
  probe::set_flags("");
  const pa::compare_report r = pa::compare_paths(d / "snap", d / "ref", pa::compare_settings());
  INFO(pa::compare_text(r));
  REQUIRE(r.error.empty());
  CHECK(r.counts.no_data == 0);
  CHECK(r.counts.by_stats == 0);
  CHECK(r.counts.ok == 18);
  size_t compared = 0;
  for (const pa::compared_pair& p : r.runs[0].pairs) compared += p.metrics.compared;
  CHECK(compared == 18);
}

TEST_CASE("compare: the note on runs of one build comes only where something differs") {
  // Two runs of one build (their run records say so): an op that differs is non-deterministic,
  // and the note says so; where nothing differs it has nothing to explain.
  probe_test::temp_dir d;
  auto write = [&](const std::string& dir, int pid, float value) {
    compare_test::fixture_dump f(dir);
    f.raw("{\"record\":\"run\",\"host\":\"h\",\"pid\":" + std::to_string(pid) +
          ",\"build\":{\"program\":\"/bin/app\",\"program_bytes\":10,\"program_mtime\":5,\"compiler\":\"g\",\"mode\":\"m\"}}");
    f.out(1, "op", "y", {1, value}, "");
    f.finish();
  };
  write(d / "a", 1, 2);
  write(d / "b", 2, 2);
  write(d / "c", 3, 3);
  const std::string note = "A and B come from the same build of the same program";
  auto has_note = [&](const pa::compare_report& r) {
    for (const std::string& n : r.notes)
      if (n.find(note) != std::string::npos) return true;
    return false;
  };
  const pa::compare_report same = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  REQUIRE(same.error.empty());
  CHECK(same.counts.bad() == 0);
  CHECK_FALSE(has_note(same));
  const pa::compare_report differs = pa::compare_paths(d / "a", d / "c", pa::compare_settings());
  REQUIRE(differs.error.empty());
  CHECK(differs.counts.bad() == 1);
  CHECK(has_note(differs));
}

TEST_CASE("compare: two runs of one build whose environments differ are judged as two builds") {
  // A variable that chooses a kernel (BUG=gelu ./engine against ./engine): the op that differs
  // is a root cause, and a note names the variable; variables that differ between any two
  // runs (the working folder, probe's flags) leave the runs one build.
  probe_test::temp_dir d;
  auto write = [&](const std::string& dir, int pid, float value, const std::string& env) {
    compare_test::fixture_dump f(dir);
    f.raw("{\"record\":\"run\",\"host\":\"h\",\"pid\":" + std::to_string(pid) + ",\"environment\":{" + env +
          "},\"build\":{\"program\":\"/bin/app\",\"program_bytes\":10,\"program_mtime\":5,\"compiler\":\"g\",\"mode\":\"m\"}}");
    f.out(1, "op", "y", {1, value}, "");
    f.finish();
  };
  write(d / "a", 1, 2, R"("HOME":"00000001","PWD":"00000002","PROBE_FLAGS":"00000003")");
  write(d / "b", 2, 3, R"("HOME":"00000001","PWD":"0000000f","PROBE_FLAGS":"0000000e")");
  write(d / "c", 3, 3, R"("HOME":"00000001","PWD":"00000002","PROBE_FLAGS":"00000003","BUG":"0000abcd")");
  const pa::compare_report noise = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  REQUIRE(noise.error.empty());
  CHECK(noise.same_build);
  CHECK(noise.environment_differs.empty());
  const pa::compare_report env = pa::compare_paths(d / "a", d / "c", pa::compare_settings());
  REQUIRE(env.error.empty());
  CHECK_FALSE(env.same_build);
  CHECK(env.environment_differs == std::vector<std::string>{"BUG"});
  bool said = false;
  for (const std::string& n : env.notes) said = said || n.find("their environments differ in BUG") != std::string::npos;
  CHECK(said);
  REQUIRE(env.runs.size() == 1);
  REQUIRE(env.runs[0].graph.roots.size() == 1);
  CHECK(pa::compare_text(env).find("Root cause") != std::string::npos);
  CHECK(pa::compare_json(env).find("\"environment_differs\":[\"BUG\"]") != std::string::npos);
  // ranks: each rank's own variables (MVAPICH's MV2_COMM_WORLD_RANK) differ across ranks, not
  // between a rank and the same rank of the other run
  for (const char* run : {"ma", "mb"}) {
    REQUIRE(mkdir((d / run).c_str(), 0755) == 0);
    for (int rank = 0; rank < 2; ++rank)
      write(d / run + "/rank_000" + std::to_string(rank), (run[1] == 'a' ? 10 : 20) + rank, 2,
            "\"MV2_COMM_WORLD_RANK\":\"0000000" + std::to_string(rank) + "\"");
  }
  const pa::compare_report ranks = pa::compare_paths(d / "ma", d / "mb", pa::compare_settings());
  REQUIRE(ranks.error.empty());
  CHECK(ranks.runs.size() == 2);
  CHECK(ranks.same_build);
  CHECK(ranks.environment_differs.empty());
}
