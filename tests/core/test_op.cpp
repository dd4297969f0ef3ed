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
std::string newest(probe::detail::producer_map& m, const probe::tensor_view& v) {
  std::string key;
  uint64_t seq = 0;
  for (const auto& p : m.find(v))
    if (p.seq >= seq) key = p.key, seq = p.seq;
  return key;
}
std::string keys(probe::detail::producer_map& m, const probe::tensor_view& v) {
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

namespace {
// A view's runs as "offset+bytes" from `base`, in order.
std::string runs_text(const probe::tensor_view& v, const void* base) {
  std::vector<probe::detail::byte_span> runs;
  if (!probe::detail::view_runs(v, &runs, nullptr, probe::detail::producer_map::k_most_runs)) return "none";
  std::string s;
  for (const auto& r : runs)
    s += (s.empty() ? "" : " ") + std::to_string(r.lo - reinterpret_cast<uintptr_t>(base)) + "+" +
         std::to_string(r.hi - r.lo);
  return s;
}
}  // namespace

TEST_CASE("producer map: a strided view is its runs of contiguous bytes") {
  float b[64] = {};
  CHECK(runs_text(probe::view(b, {4, 4}), b) == "0+64");
  CHECK(runs_text(probe::view(b, {2, 4}, {8, 1}), b) == "0+16 32+16");              // every other row
  CHECK(runs_text(probe::view(b + 4, {2, 2, 4}, {16, 4, 1}), b) == "16+32 80+32");   // [Q, rows, nx] tile
  CHECK(runs_text(probe::view(b + 4, {2, 2, 2}, {16, 4, 1}), b) == "16+8 32+8 80+8 96+8");
  CHECK(runs_text(probe::view(b, {3}, {8}), b) == "0+4 32+4 64+4");                  // a column
  CHECK(runs_text(probe::view(b + 3, {4}, {-1}), b) == "0+16");                      // reversed: one run
  CHECK(runs_text(probe::view(b, {4, 2}, {1, 4}), b) == "0+32");                     // transposed, dense
  CHECK(runs_text(probe::view(b, {3, 4}, {2, 1}), b) == "0+32");                     // overlapping windows
  CHECK(runs_text(probe::view(b, {2, 3}, {1, 8}), b) == "0+8 32+8 64+8");            // columns 0-1 of 3 rows
  CHECK(runs_text(probe::view(b, {5}, {0}), b) == "0+4");                            // broadcast
  CHECK(runs_text(probe::view(b, {0}), b) == "none");
  // More runs than the map keeps apart: the span.
  std::vector<float> big(2 * (probe::detail::producer_map::k_most_runs + 1));
  CHECK(runs_text(probe::view(big.data(), {static_cast<int64_t>(probe::detail::producer_map::k_most_runs) + 1}, {2}),
                  big.data()) == "0+" + std::to_string(4 * 2 * probe::detail::producer_map::k_most_runs + 4));
}

TEST_CASE("producer map: workers writing interleaved rows each own their rows") {
  // Rows written one by one first: more ranges in a worker's span than it has rows, so its
  // rows are kept as a range each (the plain path; a grid would cut every range between them).
  probe::detail::producer_map m;
  float g[8 * 4] = {};  // 8 rows of 4
  for (int r = 0; r < 8; ++r) m.record(probe::view(g + 4 * r, {4}), "init#" + std::to_string(r) + "/out/g", 1, true, 7);
  m.record(probe::view(g, {4, 4}, {8, 1}), "L0.tile#0/out/g", 2);      // rows 0, 2, 4, 6
  m.record(probe::view(g + 4, {4, 4}, {8, 1}), "L1.tile#0/out/g", 3);  // rows 1, 3, 5, 7
  CHECK(m.cells() == 0);
  CHECK(keys(m, probe::view(g, {4, 4}, {8, 1})) == "L0.tile#0/out/g L0.tile#0/out/g L0.tile#0/out/g L0.tile#0/out/g");
  CHECK(keys(m, probe::view(g + 4, {4, 4}, {8, 1})) == "L1.tile#0/out/g L1.tile#0/out/g L1.tile#0/out/g L1.tile#0/out/g");
  const auto all = m.find(probe::view(g, {32}));
  REQUIRE(all.size() == 8);
  for (size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i].key == (i % 2 ? "L1.tile#0/out/g" : "L0.tile#0/out/g"));
    CHECK(all[i].hi - all[i].lo == 16);
    CHECK(all[i].period == 0);
    CHECK_FALSE(all[i].hashed);
    // where the piece lies in its writer's output, from the writer's lowest byte
    CHECK(all[i].lo - all[i].origin == (i / 2) * 32);
  }
  // The same rows written again (the next step's worker): rewritten where they lie, unread.
  m.mark_read(probe::view(g, {4, 4}, {8, 1}));
  m.record(probe::view(g, {4, 4}, {8, 1}), "L0.tile#1/out/g", 5);
  CHECK(m.ranges() == 8);
  const auto again = m.find(probe::view(g, {32}));
  REQUIRE(again.size() == 8);
  for (size_t i = 0; i < again.size(); ++i) {
    CHECK(again[i].key == (i % 2 ? "L1.tile#0/out/g" : "L0.tile#1/out/g"));
    CHECK_FALSE(again[i].read);
  }
  // A contiguous writer of rows 2-3 splits both.
  m.record(probe::view(g + 8, {8}), "fix#0/out/g", 4, true, 9);
  CHECK(keys(m, probe::view(g, {16})) == "L0.tile#1/out/g L1.tile#0/out/g fix#0/out/g");
  const auto fix = m.find(probe::view(g + 8, {8}));
  REQUIRE(fix.size() == 1);
  CHECK(fix[0].hashed);
  CHECK(fix[0].hash == 9);
  // Reading rows 0 and 2 marks only them read.
  m.mark_read(probe::view(g, {2, 4}, {8, 1}));
  const auto after = m.find(probe::view(g, {32}));
  REQUIRE(after.size() == 7);
  CHECK(after[0].read);
  CHECK_FALSE(after[1].read);
  CHECK(after[2].read);
  CHECK_FALSE(after[3].read);
  // A strided writer over a hashed range it skips, beside ranges more than its rows: the
  // plain path leaves that range whole, its hash kept.
  probe::detail::producer_map h;
  h.record(probe::view(g + 4, {4}), "row1#0/out/g", 1, true, 5);
  h.record(probe::view(g, {2}), "a#0/out/g", 1);
  h.record(probe::view(g + 2, {2}), "b#0/out/g", 1);
  h.record(probe::view(g, {2, 4}, {8, 1}), "even#0/out/g", 2);  // rows 0 and 2
  const auto kept = h.find(probe::view(g, {12}));
  REQUIRE(kept.size() == 3);
  CHECK(kept[1].key == "row1#0/out/g");
  CHECK(kept[1].hashed);
  CHECK(kept[1].hash == 5);
  CHECK(h.ranges() == 3);
}

TEST_CASE("producer map: few rows over one earlier writer are one rectangle of a grid") {
  // The same workers over a buffer one op wrote whole: each worker's rows are one cell.
  probe::detail::producer_map m;
  float g[8 * 4] = {};
  m.record(probe::view(g, {32}), "init#0/out/g", 1, true, 7);
  m.record(probe::view(g, {4, 4}, {8, 1}), "L0.tile#0/out/g", 2);
  m.record(probe::view(g + 4, {4, 4}, {8, 1}), "L1.tile#0/out/g", 3);
  CHECK(m.ranges() == 1);
  CHECK(m.cells() == 2);
  // A worker's reader meets its rows alone, as one piece of rows.
  const auto mine = m.find(probe::view(g + 4, {4, 4}, {8, 1}));
  REQUIRE(mine.size() == 1);
  CHECK(mine[0].key == "L1.tile#0/out/g");
  CHECK(mine[0].period == 32);
  CHECK(mine[0].whole);
  const auto all = m.find(probe::view(g, {32}));
  REQUIRE(all.size() == 2);
  for (size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i].key == (i ? "L1.tile#0/out/g" : "L0.tile#0/out/g"));
    CHECK(all[i].period == 32);
    CHECK(all[i].width == 16);
    CHECK(all[i].bytes == 64);
    CHECK(all[i].lo - all[i].origin == 0);
    CHECK_FALSE(all[i].hashed);
  }
  // Written again: the same cell, unread; no new range.
  m.mark_read(probe::view(g, {32}));
  m.record(probe::view(g, {4, 4}, {8, 1}), "L0.tile#1/out/g", 5);
  CHECK(m.cells() == 2);
  const auto again = m.find(probe::view(g, {32}));
  REQUIRE(again.size() == 2);
  CHECK(again[0].key == "L0.tile#1/out/g");
  CHECK_FALSE(again[0].read);
  CHECK(again[1].read);
  // A contiguous writer of rows 2-3 cuts both; reading rows 0 and 2 marks only those cells.
  m.record(probe::view(g + 8, {8}), "fix#0/out/g", 4, true, 9);
  CHECK(keys(m, probe::view(g, {16})) == "L0.tile#1/out/g L1.tile#0/out/g fix#0/out/g");
  const auto fix = m.find(probe::view(g + 8, {8}));
  REQUIRE(fix.size() == 1);
  CHECK(fix[0].hashed);
  CHECK(fix[0].hash == 9);
  m.mark_read(probe::view(g, {2, 4}, {8, 1}));
  const auto after = m.find(probe::view(g, {32}));
  REQUIRE(after.size() == 5);
  CHECK(after[0].key == "L0.tile#1/out/g");
  CHECK(after[0].read);
  CHECK(after[2].key == "fix#0/out/g");
  CHECK(after[2].read);
  CHECK(after[3].key == "L0.tile#1/out/g");  // rows 4 and 6
  CHECK(after[3].period == 32);
  CHECK_FALSE(after[3].read);
  // A strided writer over a hashed range it skips: the range is a cell, its hash kept.
  probe::detail::producer_map h;
  h.record(probe::view(g + 4, {4}), "row1#0/out/g", 1, true, 5);
  h.record(probe::view(g, {2, 4}, {8, 1}), "even#0/out/g", 2);  // rows 0 and 2
  const auto kept = h.find(probe::view(g, {12}));
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].key == "even#0/out/g");
  CHECK(kept[1].key == "row1#0/out/g");
  CHECK(kept[1].hashed);
  CHECK(kept[1].hash == 5);
  CHECK(h.ranges() == 1);
}

TEST_CASE("producer map: random views against a byte-by-byte owner table") {
  // Each byte's writer is the last output whose view covers it (its span, past k_most_runs
  // runs); find over the whole buffer must say the same, piece by piece, in order of first
  // bytes (a grid's rows are one piece).
  using map_t = probe::detail::producer_map;
  float buf[96] = {};
  const uintptr_t base = reinterpret_cast<uintptr_t>(buf);
  uint64_t seed = 12345;
  auto next = [&](int n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((seed >> 33) % static_cast<uint64_t>(n));
  };
  for (int round = 0; round < 200; ++round) {
    map_t m;
    std::vector<int> owner(sizeof buf, -1);
    for (int w = 0; w < 12; ++w) {
      // a view of 1-3 dims over buf: shapes, strides (some negative, some 0) and an offset
      // drawn so that every element lies inside
      const int nd = 1 + next(3);
      std::vector<int64_t> shape(static_cast<size_t>(nd)), strides(static_cast<size_t>(nd));
      int64_t lo = 0, hi = 0;
      for (int d = 0; d < nd; ++d) {
        shape[static_cast<size_t>(d)] = 1 + next(d == nd - 1 ? 8 : 4);
        const int64_t s = next(5) == 0 ? 0 : (1 + next(12)) * (next(4) == 0 ? -1 : 1);
        strides[static_cast<size_t>(d)] = s;
        const int64_t span = (shape[static_cast<size_t>(d)] - 1) * s;
        (span < 0 ? lo : hi) += span;
      }
      if (hi - lo >= 96) continue;
      const int64_t start = -lo + next(static_cast<int>(96 - (hi - lo)));
      probe::tensor_view v;
      v.data = buf + start;
      v.type = probe::dtype::float32;
      v.ndim = static_cast<int8_t>(nd);
      for (int d = 0; d < nd; ++d) v.shape[d] = shape[static_cast<size_t>(d)], v.strides[d] = strides[static_cast<size_t>(d)];
      std::vector<probe::detail::byte_span> runs;
      REQUIRE(probe::detail::view_runs(v, &runs, nullptr, map_t::k_most_runs));
      const std::string key = "w" + std::to_string(w);
      m.record(v, key, static_cast<uint64_t>(w + 1));
      for (const probe::detail::byte_span& r : runs)
        for (uintptr_t b = r.lo; b < r.hi; ++b) owner[b - base] = w;
      // the runs cover exactly the view's elements, unless past the limit (then its span)
      std::vector<char> covered(sizeof buf, 0);
      std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
      for (;;) {
        int64_t off = start;
        for (int d = 0; d < nd; ++d) off += idx[static_cast<size_t>(d)] * strides[static_cast<size_t>(d)];
        for (size_t b = 0; b < sizeof(float); ++b) covered[static_cast<size_t>(off) * sizeof(float) + b] = 1;
        int d = nd - 1;
        for (; d >= 0 && ++idx[static_cast<size_t>(d)] == shape[static_cast<size_t>(d)]; --d) idx[static_cast<size_t>(d)] = 0;
        if (d < 0) break;
      }
      if (runs.size() > 1 || v.is_contiguous())
        for (size_t b = 0; b < covered.size(); ++b) {
          bool in_run = false;
          for (const probe::detail::byte_span& r : runs) in_run = in_run || (base + b >= r.lo && base + b < r.hi);
          REQUIRE(in_run == static_cast<bool>(covered[b]));
        }
    }
    std::vector<int> seen(sizeof buf, -1);
    uintptr_t last = base;
    for (const map_t::piece& p : m.find(probe::view(buf, {96}))) {
      REQUIRE(p.lo >= last);  // in order of first bytes, each byte named once
      last = p.lo;
      const uintptr_t period = p.period > 0 ? p.period : p.hi - p.lo, width = p.period > 0 ? p.width : p.hi - p.lo;
      uint64_t bytes = 0;
      for (uintptr_t row = p.lo; row < p.hi; row += period)
        for (uintptr_t b = row; b < row + width; ++b, ++bytes) {
          REQUIRE(seen[b - base] == -1);
          seen[b - base] = std::stoi(p.key.substr(1));
        }
      CHECK(bytes == p.bytes);
    }
    REQUIRE(seen == owner);
  }
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
