// Under PROBE_DISABLE the debug effects compile to nothing: no output, callbacks never run,
// breakpoint arguments are never evaluated.
#include <doctest/doctest.h>
#include <probe/probe.hpp>

#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace {
int evaluated = 0;
int side_effect() { return ++evaluated; }
}  // namespace

TEST_CASE("PROBE_DISABLE: print, callback, barrier and breakpoints do nothing") {
  probe_test::capture_fd err;
  std::vector<float> x{1, 2};
  int ran = 0;
  probe::print("x={} n={}", x, 3);
  probe::print(probe::ordered, "{}", "ordered");
  probe::callback([&ran](int) { ++ran; }, 1);
  probe::callback(probe::ordered, [&ran] { ++ran; });
  probe::effects_barrier();
  PROBE_BREAKPOINT(probe::var("x", x), probe::var("n", side_effect()));
  PROBE_BREAKPOINT();
  x[0] = 0.f / 0.f;
  probe::breakpoint_if_nonfinite("x", x);
  CHECK(ran == 0);
  CHECK(evaluated == 0);
  CHECK(err.stop().empty());
}
