#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/context.hpp>

#include <probe/core/tensor.hpp>


#include <type_traits>
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
  // a const object reaches fn as const; a temporary as the caller made it
  const std::vector<float> cx{1, 2};
  static_assert(std::is_same<decltype(probe::detail::wrap_value(probe::in("x", cx))), const std::vector<float>&>::value,
                "const stays const");
  static_assert(std::is_same<decltype(probe::detail::wrap_value(probe::out("y", y))), std::vector<float>&>::value,
                "a mutable output stays mutable");
  CHECK(probe::wrap("sum", [](const std::vector<float>& v) { return v[0] + v[1]; }, probe::in("x", cx)) == 3.f);
  CHECK(probe::wrap("view", [](const probe::tensor_view& v) { return v.numel(); }, probe::in("x", probe::view(cx))) == 2);
  probe::set_flags("");
}

namespace {
// The newest writer of any byte of v ("" when none).
std::string newest(const probe::detail::producer_map& m, const probe::tensor_view& v) {
  std::string key;
  uint64_t seq = 0;
  for (const auto& p : m.find(v))
    if (p.seq >= seq) key = p.key, seq = p.seq;
  return key;
}
std::string keys(const probe::detail::producer_map& m, const probe::tensor_view& v) {
  std::string s;
  for (const auto& p : m.find(v)) s += (s.empty() ? "" : " ") + p.key;
  return s;
}
}  // namespace

TEST_CASE("producer map: the most recent writer of a byte range wins") {
  probe::detail::producer_map m;
  float buf[100] = {};
  m.record(probe::view(buf, {100}), "a#0/out/y", 1);
  m.record(probe::view(buf + 40, {20}), "b#0/out/y", 2);  // overwrites the middle of a's range
  CHECK(newest(m, probe::view(buf, {40})) == "a#0/out/y");
  CHECK(newest(m, probe::view(buf + 45, {5})) == "b#0/out/y");
  CHECK(newest(m, probe::view(buf + 60, {40})) == "a#0/out/y");  // a's tail survives the trim
  CHECK(newest(m, probe::view(buf, {100})) == "b#0/out/y");       // overlapping both: the newest
  m.record(probe::view(buf, {100}), "c#0/out/y", 3);              // covers everything again
  CHECK(newest(m, probe::view(buf + 45, {5})) == "c#0/out/y");
  float other[4] = {};
  CHECK(m.find(probe::view(other, {4})).empty());
  // Device memory is a separate address space.
  CHECK(m.find(probe::view(buf, {10}).on_cuda()).empty());
  m.record(probe::view(buf, {10}).on_cuda(), "d#0/out/y", 4);
  CHECK(newest(m, probe::view(buf, {10}).on_cuda()) == "d#0/out/y");
  CHECK(newest(m, probe::view(buf, {10})) == "c#0/out/y");
  // A strided view covers its whole span.
  CHECK(newest(m, probe::view(buf + 40, {2, 2}, {30, 1})) == "c#0/out/y");
}

TEST_CASE("producer map: every writer of a reader's bytes, in address order, with their extents") {
  probe::detail::producer_map m;
  float cache[4 * 8] = {};
  // One writer per row, written out of address order (as a KV cache filled position by position).
  m.record(probe::view(cache + 16, {8}), "L0.kv#2/out/k", 3);
  m.record(probe::view(cache, {8}), "L0.kv#0/out/k", 1);
  m.record(probe::view(cache + 8, {8}), "L0.kv#1/out/k", 2);
  CHECK(keys(m, probe::view(cache, {4, 8})) == "L0.kv#0/out/k L0.kv#1/out/k L0.kv#2/out/k");
  const auto pieces = m.find(probe::view(cache + 4, {3, 8}));  // from the middle of row 0
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].hi - pieces[0].lo == 16);  // half of row 0
  CHECK_FALSE(pieces[0].whole);
  CHECK(pieces[1].whole);
  CHECK(pieces[2].hi - pieces[2].lo == 32);
  // A trimmed range loses its hash (it no longer describes the piece left).
  m.record(probe::view(cache + 24, {8}), "w#0/out/y", 4, true, 42);
  m.record(probe::view(cache + 28, {2}), "v#0/out/y", 5);
  for (const auto& p : m.find(probe::view(cache + 24, {8}))) CHECK_FALSE(p.hashed);
  m.record(probe::view(cache + 24, {8}), "w#1/out/y", 6, true, 43);
  const auto again = m.find(probe::view(cache, {32}));
  REQUIRE(again.size() == 4);
  CHECK(again[3].hashed);
  CHECK(again[3].hash == 43);
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
