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

// A shape is refused, with its line named, when a reader multiplying it out would overflow or
// when a dimension is negative: compare and show multiply shapes into element counts.
TEST_CASE("manifest reader: shapes that cannot be multiplied out are refused") {
  const std::string run = R"({"record":"run"})" "\n";
  auto record = [](const std::string& shape) {
    return R"({"record":"tensor","seq":1,"op":"a","occurrence":0,"io":"out","slot":"y","key":"a#0/out/y","dtype":"float32","shape":)" +
           shape + R"(,"file":null,"stats":{"count":6,"finite":6,"min":1,"max":6,"mean":3.5,"std":1.7,"nan":0,"posinf":0,"neginf":0,"zero":0}})" "\n";
  };
  struct bad {
    const char* shape;
    const char* says;
  };
  for (const bad& b : {bad{"[-5, 9223372036854775807, 3]", "holds -5"},
                       bad{"[4611686018427387904, 4611686018427387904, 0]", "too large"},
                       bad{"[2305843009213693952]", "too large"},  // fits in elements, not in float32 bytes
                       bad{"[2.5]", "non-negative integers"},
                       bad{"[1,1,1,1,1,1,1,1,1]", "at most 8"}}) {
    INFO(b.shape);
    probe::analysis::dump_run r;
    std::string error;
    CHECK_FALSE(probe::analysis::parse_manifest(run + record(b.shape), "/d", "/d/manifest.jsonl", &r, &error));
    CHECK(error.find("/d/manifest.jsonl:2: ") == 0);
    CHECK(error.find(b.says) != std::string::npos);
  }
  probe::analysis::dump_run r;
  std::string error;
  REQUIRE(probe::analysis::parse_manifest(run + record("[0, 1099511627776]"), "/d", "/d/manifest.jsonl", &r, &error));
  CHECK(r.tensors.at(0).ndim == 2);
}
