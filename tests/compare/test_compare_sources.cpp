// What probe compare reads, and how it says it: a dump against a folder of .npy files reads
// the files the dump's manifest names and nothing else in its folder; a file one folder has
// alone shows its dtype and shape; --nonfinite --step names a producer the step left out as
// such; a corrupt manifest line gives one line number.
#include <doctest/doctest.h>

#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"
#include "analysis/nonfinite.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/capture.hpp"
#include "reference_engine.hpp"

using namespace compare_test;
namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

void copy_source_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
}

void write_source_npy(const std::string& path, const std::vector<float>& v) {
  std::string err;
  REQUIRE_MESSAGE(probe::npy::write(path, probe::view(v.data(), probe::dims({static_cast<int64_t>(v.size())})), &err),
                  err);
}

void write_source_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("compare sources: a dump against a folder of .npy files reads only the files its manifest names") {
  temp_dir d;
  dump_run<float>(d / "ref", true);
  mkdir((d / "plain").c_str(), 0755);
  size_t copied = 0;
  for (const std::string& name : pa::list_dir(d / "ref"))
    if (pa::compare_inputs::ends_with(name, ".npy")) {
      copy_source_file(d / "ref/" + name, d / "plain/" + name);
      ++copied;
    }
  REQUIRE(copied > 0);
  // what else lies in a reused dump folder: an earlier run's file, a snapshot
  write_source_npy(d / "ref/op_000099.old.out.y.npy", {1, 2, 3});
  mkdir((d / "ref/snapshots").c_str(), 0755);
  mkdir((d / "ref/snapshots/op_000001.fc1").c_str(), 0755);
  write_source_npy(d / "ref/snapshots/op_000001.fc1/in.x.npy", {1, 2, 3});
  for (int dump_first = 0; dump_first < 2; ++dump_first) {
    const pa::compare_report r = dump_first ? pa::compare_paths(d / "ref", d / "plain", pa::compare_settings())
                                            : pa::compare_paths(d / "plain", d / "ref", pa::compare_settings());
    CAPTURE(dump_first);
    INFO(pa::compare_text(r));
    REQUIRE(r.error.empty());
    CHECK(r.kind == "npy folders");
    CHECK(r.runs[0].pairs.size() == copied);
    CHECK(r.counts.ok == copied);
    CHECK(r.exit_code() == 0);
    for (const pa::compared_pair& p : r.runs[0].pairs) CHECK(p.key.find("snapshots") == std::string::npos);
  }
  // A dump whose manifest names no data file (statistics only) has nothing to pair.
  dump_run<float>(d / "stats", true, engine_options(), 1, "--probe_dump_stats_only");
  const pa::compare_report s = pa::compare_paths(d / "stats", d / "plain", pa::compare_settings());
  CHECK(s.exit_code() == 2);
  CHECK(s.error.find("its manifest names no data file") != std::string::npos);
}

TEST_CASE("compare sources: a file one folder of .npy files has alone shows its dtype and shape") {
  temp_dir d;
  mkdir((d / "a").c_str(), 0755);
  mkdir((d / "b").c_str(), 0755);
  write_source_npy(d / "a/both.npy", {1, 2});
  write_source_npy(d / "b/both.npy", {1, 2});
  write_source_npy(d / "a/left.npy", {1, 2, 3});
  write_source_npy(d / "b/right.npy", {1, 2, 3, 4});
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  const std::string text = pa::compare_text(r);
  INFO(text);
  REQUIRE(r.error.empty());
  CHECK(text.find("invalid") == std::string::npos);
  for (const pa::compared_pair& p : r.runs[0].pairs) {
    CAPTURE(p.key);
    const pa::pair_side& s = p.a.present ? p.a : p.b;
    CHECK(s.type == probe::dtype::float32);
    CHECK(s.ndim == 1);
  }
  CHECK(text.find("float32  [3]") != std::string::npos);
  CHECK(text.find("float32  [4]") != std::string::npos);
}

TEST_CASE("compare sources: --nonfinite --step names a producer the step left out, never 'not dumped'") {
  temp_dir d;
  mkdir((d / "nf").c_str(), 0755);
  auto record = [](int step, bool input, const std::string& extra) {
    const std::string key = "diffuse#" + std::to_string(step) + (input ? "/in/u" : "/out/v");
    return "{\"record\":\"tensor\",\"seq\":" + std::to_string(step + 1) + ",\"step\":" + std::to_string(step) +
           ",\"op\":\"diffuse\",\"type\":\"Stencil\",\"occurrence\":" + std::to_string(step) + ",\"parent\":null,\"io\":\"" +
           (input ? "in" : "out") + "\",\"slot\":\"" + (input ? "u" : "v") + "\",\"key\":\"" + key + "\"," + extra +
           "\"dtype\":\"float32\",\"shape\":[4],\"file\":null,\"stats\":{\"count\":4,\"finite\":2,\"min\":0,\"max\":1,"
           "\"mean\":0.5,\"std\":0.5,\"nan\":2,\"posinf\":0,\"neginf\":0,\"zero\":1,\"subnormal\":0,\"negative\":0,"
           "\"positive\":1}}\n";
  };
  const std::string from0 = "\"producer\":\"diffuse#0/out/v\",\"producers\":[{\"key\":\"diffuse#0/out/v\",\"bytes\":16,"
                            "\"offset\":0}],";
  write_source_text(d / "nf/manifest.jsonl", "{\"record\":\"run\",\"probe_version\":\"test\"}\n" +
                                                 record(0, true, "\"producer\":null,") + record(0, false, "") +
                                                 record(1, true, from0) + record(1, false, "") + "{\"record\":\"end\"}\n");
  const pa::nonfinite_report r = pa::find_first_nonfinite(d / "nf", true, 1);
  const std::string text = pa::nonfinite_text(r);
  INFO(text);
  REQUIRE(r.error.empty());
  REQUIRE(r.found());
  CHECK(text.find("not dumped") == std::string::npos);
  CHECK(text.find("comes from diffuse#0/out/v,") != std::string::npos);
  CHECK(text.find("outside --step (step 0): compare without --step to follow it.") != std::string::npos);
  CHECK(pa::nonfinite_json(r).find("\"producer_outside_step\":0") != std::string::npos);
  // Without --step the producer is in view: the first op is step 0's, whose input (a graph
  // input) holds NaN already, said as before.
  const std::string all = pa::nonfinite_text(pa::find_first_nonfinite(d / "nf"));
  CHECK(all.find("outside --step") == std::string::npos);
}

TEST_CASE("compare sources: a corrupt manifest line is named by the manifest's line alone") {
  temp_dir d;
  mkdir((d / "bad").c_str(), 0755);
  write_source_text(d / "bad/manifest.jsonl",
                    "{\"record\":\"run\",\"probe_version\":\"test\"}\n{\"record\":\"tensor\", garbage\n{\"record\":\"end\"}\n");
  pa::dump_run run;
  std::string error;
  CHECK_FALSE(pa::read_manifest(d / "bad", &run, &error));
  CHECK(error.find("manifest.jsonl:2: column 21: ") != std::string::npos);
  CHECK(error.find("line 1") == std::string::npos);
}
