// Dumps written by hand: a manifest.jsonl and .npy files, with exactly the records a test
// needs (data-flow fields the library may or may not write yet: producers, inout,
// implicit, stale, hash, same_as, snapshots).
//
//   fixture_dump a(d / "a");
//   a.out(1, "left", "y", {1, 2, 3});
//   a.in(2, "sum", "x", {1, 2, 3}, R"("producers":[{"key":"left#0/out/y","bytes":12,"offset":0}])");
//   a.finish();
#pragma once
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <probe/probe.hpp>

namespace compare_test {

struct tensor_spec {
  uint64_t seq = 0;
  std::string op, type, slot;
  uint64_t occurrence = 0;
  int64_t step = 0;
  bool input = false;
  std::vector<float> values;
  std::vector<int64_t> shape;  // empty: one dimension
  std::string extra;           // more JSON members, without the leading comma
  bool write_file = true;      // false: "file":null (stats only, snapshots, same_as)
  bool stats = false;          // write "stats" from the values
};

class fixture_dump {
 public:
  explicit fixture_dump(std::string dir) : dir_(std::move(dir)) {
    mkdir(dir_.c_str(), 0755);
    lines_ = "{\"record\":\"run\",\"probe_version\":\"test\"}\n";
  }

  std::string key(const tensor_spec& t) const {
    return t.op + "#" + std::to_string(t.occurrence) + (t.input ? "/in/" : "/out/") + t.slot;
  }

  // The file name a tensor gets ("op_000003.norm.in.x.npy").
  static std::string file_name(const tensor_spec& t) {
    char b[32];
    std::snprintf(b, sizeof b, "op_%06llu.", static_cast<unsigned long long>(t.seq));
    return b + t.op + (t.input ? ".in." : ".out.") + t.slot + ".s" + std::to_string(t.step) + ".o" +
           std::to_string(t.occurrence) + ".npy";
  }

  void add(const tensor_spec& t) {
    std::vector<int64_t> shape = t.shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(t.values.size())} : t.shape;
    std::string file = "null";
    if (t.write_file) {
      const std::string name = file_name(t);
      std::string err;
      REQUIRE_MESSAGE(probe::npy::write(dir_ + "/" + name, probe::view(t.values.data(), probe::dims(shape)), &err), err);
      file = "\"" + name + "\"";
    }
    std::string shape_text = "[";
    for (size_t i = 0; i < shape.size(); ++i) shape_text += (i ? "," : "") + std::to_string(shape[i]);
    shape_text += "]";
    std::string stats = "null";
    if (t.stats) {
      double mn = 1e300, mx = -1e300, sum = 0, sq = 0;
      for (float v : t.values) mn = std::min(mn, double(v)), mx = std::max(mx, double(v)), sum += v;
      const double mean = sum / static_cast<double>(t.values.size());
      for (float v : t.values) sq += (v - mean) * (v - mean);
      char b[256];
      std::snprintf(b, sizeof b,
                    "{\"count\":%zu,\"finite\":%zu,\"min\":%.9g,\"max\":%.9g,\"mean\":%.9g,\"std\":%.9g,\"nan\":0,"
                    "\"posinf\":0,\"neginf\":0,\"zero\":0,\"subnormal\":0,\"negative\":0,\"positive\":0}",
                    t.values.size(), t.values.size(), mn, mx, mean, std::sqrt(sq / static_cast<double>(t.values.size())));
      stats = b;
    }
    lines_ += "{\"record\":\"tensor\",\"seq\":" + std::to_string(t.seq) + ",\"step\":" + std::to_string(t.step) +
              ",\"op\":\"" + t.op + "\",\"type\":\"" + t.type + "\",\"occurrence\":" + std::to_string(t.occurrence) +
              ",\"parent\":null,\"io\":\"" + (t.input ? "in" : "out") + "\",\"slot\":\"" + t.slot + "\",\"key\":\"" +
              key(t) + "\",\"dtype\":\"float32\",\"shape\":" + shape_text + ",\"file\":" + file + ",\"stats\":" + stats +
              (t.extra.empty() ? "" : "," + t.extra) + "}\n";
  }

  // The common cases: an output, an input read from one producer (or none: a graph input).
  void out(uint64_t seq, const std::string& op, const std::string& slot, std::vector<float> v, std::string extra = "",
           int64_t step = 0, uint64_t occurrence = 0, std::string type = "") {
    tensor_spec t;
    t.seq = seq, t.op = op, t.slot = slot, t.values = std::move(v), t.extra = std::move(extra), t.step = step;
    t.occurrence = occurrence, t.type = std::move(type);
    add(t);
  }
  void in(uint64_t seq, const std::string& op, const std::string& slot, std::vector<float> v,
          const std::string& producer, std::string extra = "", int64_t step = 0, uint64_t occurrence = 0,
          std::string type = "") {
    tensor_spec t;
    t.seq = seq, t.op = op, t.slot = slot, t.values = std::move(v), t.input = true, t.step = step;
    t.occurrence = occurrence, t.type = std::move(type);
    t.extra = "\"producer\":" + (producer.empty() ? std::string("null") : "\"" + producer + "\"");
    if (!extra.empty()) t.extra += "," + extra;
    add(t);
  }
  void raw(const std::string& line) { lines_ += line + "\n"; }

  void finish() {
    lines_ += "{\"record\":\"end\"}\n";
    FILE* f = std::fopen((dir_ + "/manifest.jsonl").c_str(), "w");
    REQUIRE(f);
    std::fputs(lines_.c_str(), f);
    std::fclose(f);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, lines_;
};

}  // namespace compare_test
