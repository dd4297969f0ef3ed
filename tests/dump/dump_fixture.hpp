// Test support for dump tests: a small engine with a diamond of ops, and helpers to run it
// under given flags and to check the result with numpy.
#pragma once
#include <probe/probe.hpp>
#include <probe/formats/npy.hpp>

#include <probe/core/tensor.hpp>
#include <probe/core/device_access.hpp>
#include <probe/effects/dump_names.hpp>
#include <probe/effects/dump_writer.hpp>


#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace dump_test {

// embed(x) -> a; left(a) -> b; right(a) -> c; join(b, c) -> d. Buffers are reused every
// step, so producer edges must follow the most recent writer.
struct diamond_engine {
  std::string prefix;
  std::vector<float> x, a, b, c, d;
  explicit diamond_engine(std::string p = "", size_t n = 64)
      : prefix(std::move(p)), x(n), a(n), b(n), c(n), d(n) {
    for (size_t i = 0; i < n; ++i) x[i] = std::sin(0.3f * static_cast<float>(i));
  }
  std::string name(const char* op) const { return prefix + op; }
  void step(int s) {
    {
      probe::op op(name("embed"), "Embed");
      op.input("x", x);
      for (size_t i = 0; i < x.size(); ++i) a[i] = x[i] * 2 + static_cast<float>(s);
      op.output("a", a);
    }
    {
      probe::op op(name("left"), "Relu");
      op.input("a", a);
      for (size_t i = 0; i < a.size(); ++i) b[i] = a[i] > 0 ? a[i] : 0;
      op.output("b", b);
    }
    {
      probe::op op(name("right"), "Neg");
      op.input("a", a);
      for (size_t i = 0; i < a.size(); ++i) c[i] = -a[i];
      op.output("c", c);
    }
    {
      probe::op op(name("join"), "Add");
      op.input("b", b).input("c", c);
      for (size_t i = 0; i < b.size(); ++i) d[i] = b[i] + c[i];
      op.output("d", d);
    }
  }
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> manifest_lines(const std::string& dir) {
  std::vector<std::string> out;
  std::istringstream in(read_file(dir + "/manifest.jsonl"));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline int count_containing(const std::vector<std::string>& lines, const std::string& needle) {
  int n = 0;
  for (const auto& l : lines) n += l.find(needle) != std::string::npos;
  return n;
}

// Runs tests/dump/check_dump.py on a dump; `expect` is a JSON object (see the script).
inline int check_with_numpy(const std::string& dir, const std::string& expect_json = "") {
  std::string cmd = std::string(PROBE_TEST_PYTHON) + " " + PROBE_TEST_SOURCE_DIR "/dump/check_dump.py '" + dir + "'";
  if (!expect_json.empty()) {
    const std::string path = dir + "/.expect.json";
    std::ofstream(path) << expect_json;
    cmd += " '" + path + "'";
  }
  return std::system(cmd.c_str());
}

// Applies flags for the scope; restores "no flags" (which also closes the run) at the end.
struct flags_scope {
  explicit flags_scope(const std::string& flags) { probe::set_flags(flags.c_str()); }
  ~flags_scope() { probe::set_flags(""); }
  void close_run() { probe::set_flags(""); }
};

}  // namespace dump_test
