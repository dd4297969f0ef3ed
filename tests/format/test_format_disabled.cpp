// With PROBE_DISABLE, formatting compiles to nothing: probe::format returns an empty string.
#include <doctest/doctest.h>
#include <probe/probe.hpp>

#include <string>
#include <vector>

TEST_CASE("format under PROBE_DISABLE: compiles, returns nothing, evaluates no formatting") {
  std::vector<float> v{1, 2};
  CHECK(probe::format("x={} v={}", 1, v).empty());
  std::string out = "kept";
  probe::format_to(out, "{:.3f}", 2.0);
  CHECK(out == "kept");
}
