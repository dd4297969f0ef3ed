// The CLI's manifest reader: an input dumped once ("same_as" instead of "file") reads its
// data from the earlier file it names.
#include <doctest/doctest.h>

#include "analysis/dump_manifest.hpp"

TEST_CASE("manifest reader: same_as stands for file") {
  const std::string text =
      R"({"record":"run"})" "\n"
      R"({"record":"tensor","seq":1,"op":"mm","occurrence":0,"io":"in","slot":"w","key":"mm#0/in/w","dtype":"float32","shape":[4],"file":"op_000001.mm.in.w.npy","hash":"00000000000000aa"})" "\n"
      R"({"record":"tensor","seq":2,"op":"mm","occurrence":1,"io":"in","slot":"w","key":"mm#1/in/w","dtype":"float32","shape":[4],"same_as":"op_000001.mm.in.w.npy","hash":"00000000000000aa"})" "\n"
      R"({"record":"tensor","seq":3,"op":"mm","occurrence":2,"io":"in","slot":"w","key":"mm#2/in/w","dtype":"float32","shape":[4],"same_as":"../outside.npy"})" "\n";
  probe::analysis::dump_run run;
  std::string error;
  CHECK_FALSE(probe::analysis::parse_manifest(text, "/d", "/d/manifest.jsonl", &run, &error));
  CHECK(error.find("leaves the dump folder") != std::string::npos);  // same_as is checked as file is
  const std::string ok = text.substr(0, text.rfind("{\"record\":\"tensor\",\"seq\":3"));
  probe::analysis::dump_run good;
  REQUIRE(probe::analysis::parse_manifest(ok, "/d", "/d/manifest.jsonl", &good, &error));
  REQUIRE(good.tensors.size() == 2);
  CHECK(good.tensors[0].file == "/d/op_000001.mm.in.w.npy");
  CHECK(good.tensors[1].file == "/d/op_000001.mm.in.w.npy");
}
