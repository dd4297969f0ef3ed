#include <doctest/doctest.h>
#include <probe/probe.hpp>

#include <vector>

TEST_CASE("op: inactive when every effect is off") {
  probe::set_flags("");
  probe::op op("conv1", "Conv");
  CHECK_FALSE(op.active());
  CHECK(op.sequence() == 0);
}

TEST_CASE("op: sequence numbers grow; wrap calls fn with the values or none") {
  probe::set_flags("--probe_timing");
  uint64_t first = 0;
  {
    probe::op a("a");
    REQUIRE(a.active());
    first = a.sequence();
    probe::op b("b");
    CHECK(b.sequence() == first + 1);
  }
  std::vector<float> x{1, 2, 3}, y(3);
  int r = probe::wrap(
      "double",
      [](const std::vector<float>& in, std::vector<float>& out) {
        for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i];
        return 7;
      },
      probe::in("x", x), probe::out("y", y));
  CHECK(r == 7);
  CHECK(y[2] == 6.f);
  bool called = false;
  probe::wrap("noargs", [&] { called = true; }, probe::in("x", x));
  CHECK(called);
  probe::set_flags("");
}
