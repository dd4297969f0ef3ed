#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/context.hpp>

#include <probe/core/tensor.hpp>


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

TEST_CASE("producer map: the most recent writer of a byte range wins") {
  probe::detail::producer_map m;
  float buf[100] = {};
  m.record(probe::view(buf, {100}), "a#0/out/y", 1);
  m.record(probe::view(buf + 40, {20}), "b#0/out/y", 2);  // overwrites the middle of a's range
  CHECK(m.find(probe::view(buf, {40})) == "a#0/out/y");
  CHECK(m.find(probe::view(buf + 45, {5})) == "b#0/out/y");
  CHECK(m.find(probe::view(buf + 60, {40})) == "a#0/out/y");  // a's tail survives the trim
  CHECK(m.find(probe::view(buf, {100})) == "b#0/out/y");       // overlapping both: the newest
  m.record(probe::view(buf, {100}), "c#0/out/y", 3);           // covers everything again
  CHECK(m.find(probe::view(buf + 45, {5})) == "c#0/out/y");
  float other[4] = {};
  CHECK(m.find(probe::view(other, {4})).empty());
  // Device memory is a separate address space.
  CHECK(m.find(probe::view(buf, {10}).on_cuda()).empty());
  m.record(probe::view(buf, {10}).on_cuda(), "d#0/out/y", 4);
  CHECK(m.find(probe::view(buf, {10}).on_cuda()) == "d#0/out/y");
  CHECK(m.find(probe::view(buf, {10})) == "c#0/out/y");
  // A strided view covers its whole span.
  CHECK(m.find(probe::view(buf + 40, {2, 2}, {30, 1})) == "c#0/out/y");
}

TEST_CASE("string table: counts, grows, finds") {
  probe::detail::string_table t;
  for (int i = 0; i < 1000; ++i) t["op" + std::to_string(i % 100)] += 1;
  CHECK(t.size() == 100);
  CHECK(t["op7"] == 10);
  CHECK(t.find("op99") != nullptr);
  CHECK(*t.find("op99") == 10);
  CHECK(t.find("missing") == nullptr);
  t.clear();
  CHECK(t.find("op7") == nullptr);
}
