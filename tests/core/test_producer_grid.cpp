// The producer map past k_most_runs: views of equally spaced runs (heads of [T, H, D], workers'
// interleaved rows) keep their own bytes, as rectangles of a grid.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/producer_map.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace {
using map_t = probe::detail::producer_map;

// Every byte a piece stands for.
std::vector<uintptr_t> bytes_of(const map_t::piece& p) {
  std::vector<uintptr_t> out;
  if (p.period == 0) {
    for (uintptr_t b = p.lo; b < p.hi; ++b) out.push_back(b);
    return out;
  }
  for (uintptr_t row = p.lo; row < p.hi; row += p.period)
    for (uintptr_t b = row; b < row + p.width; ++b) out.push_back(b);
  return out;
}

// Bytes per writer key over a reader's pieces.
std::map<std::string, uint64_t> bytes_by_key(map_t& m, const probe::tensor_view& v) {
  std::map<std::string, uint64_t> out;
  for (const auto& p : m.find(v)) {
    CHECK(bytes_of(p).size() == p.bytes);
    out[p.key] += p.bytes;
  }
  return out;
}

// A head's rows of a [T, H, D] float buffer.
probe::tensor_view head(float* qkv, int64_t t, int64_t h, int64_t d, int64_t which) {
  return probe::view(qkv + which * d, {t, d}, {h * d, 1});
}
}  // namespace

TEST_CASE("producer grid: heads of [T, H, D] each keep their rows, step after step") {
  constexpr int64_t T = 40, H = 4, D = 8;
  std::vector<float> out(static_cast<size_t>(T * H * D));
  map_t m;
  m.record(probe::view(out.data(), {T * H * D}), "zero#0/out/o", 1, true, 5);
  for (int64_t step = 0; step < 3; ++step) {
    for (int64_t h = 0; h < H; ++h)
      m.record(head(out.data(), T, H, D, h), "attn#" + std::to_string(step) + "/out/h" + std::to_string(h),
               static_cast<uint64_t>(10 * step + h + 2));
    CHECK(m.ranges() == 1);  // one grid
    CHECK(m.cells() == static_cast<size_t>(H));
    // The output projection reads all of it: each head wrote a quarter.
    const auto all = bytes_by_key(m, probe::view(out.data(), {T, H * D}));
    REQUIRE(all.size() == static_cast<size_t>(H));
    for (const auto& kv : all) CHECK(kv.second == static_cast<uint64_t>(T * D * 4));
    // A reader of one head's rows meets that head only.
    const auto one = m.find(head(out.data(), T, H, D, 2));
    REQUIRE(one.size() == 1);
    CHECK(one[0].key == "attn#" + std::to_string(step) + "/out/h2");
    CHECK(one[0].whole);
    CHECK(one[0].period == static_cast<uintptr_t>(H * D * 4));
    CHECK(one[0].width == static_cast<uintptr_t>(D * 4));
    CHECK(one[0].lo - one[0].origin == 0);
    // Rows 3 to 5 of every head: a part of each.
    const auto rows = bytes_by_key(m, probe::view(out.data() + 3 * H * D, {3 * H * D}));
    REQUIRE(rows.size() == static_cast<size_t>(H));
    for (const auto& kv : rows) CHECK(kv.second == static_cast<uint64_t>(3 * D * 4));
  }
  // Reading head 1 marks it read, and no other.
  m.mark_read(head(out.data(), T, H, D, 1));
  for (const auto& p : m.find(probe::view(out.data(), {T * H * D}))) CHECK(p.read == (p.key == "attn#2/out/h1"));
  // A contiguous writer of row 7 (a cache position) cuts every head's rows.
  m.record(probe::view(out.data() + 7 * H * D, {H * D}), "kv#0/out/row", 50, true, 9);
  const auto row7 = m.find(probe::view(out.data() + 7 * H * D, {H * D}));
  REQUIRE(row7.size() == 1);
  CHECK(row7[0].key == "kv#0/out/row");
  CHECK(row7[0].hashed);
  CHECK(row7[0].hash == 9);
  const auto cut = bytes_by_key(m, probe::view(out.data(), {T * H * D}));
  CHECK(cut.at("attn#2/out/h0") == static_cast<uint64_t>((T - 1) * D * 4));
  CHECK(cut.at("kv#0/out/row") == static_cast<uint64_t>(H * D * 4));
  // One writer of the whole buffer replaces the grid.
  m.record(probe::view(out.data(), {T * H * D}), "next#0/out/o", 60, true, 11);
  CHECK(m.ranges() == 1);
  CHECK(m.cells() == 0);
  const auto whole = m.find(probe::view(out.data(), {T * H * D}));
  REQUIRE(whole.size() == 1);
  CHECK(whole[0].hashed);
}

TEST_CASE("producer grid: what was there before the heads, and around them, stays") {
  constexpr int64_t T = 36, H = 2, D = 4;
  std::vector<float> buf(static_cast<size_t>(T * H * D + 16));
  float* out = buf.data() + 8;
  map_t m;
  m.record(probe::view(buf.data(), {static_cast<int64_t>(buf.size())}), "init#0/out/b", 1, true, 3);
  m.record(head(out, T, H, D, 1), "attn#0/out/h1", 2);  // head 0 not written yet
  const auto now = bytes_by_key(m, probe::view(buf.data(), {static_cast<int64_t>(buf.size())}));
  CHECK(now.at("attn#0/out/h1") == static_cast<uint64_t>(T * D * 4));
  CHECK(now.at("init#0/out/b") == static_cast<uint64_t>(buf.size() * 4 - T * D * 4));
  // The bytes before the grid are a plain range still, whose hash no longer holds (trimmed).
  const auto before = m.find(probe::view(buf.data(), {8}));
  REQUIRE(before.size() == 1);
  CHECK(before[0].key == "init#0/out/b");
  CHECK_FALSE(before[0].hashed);
  // Head 0 then takes its rows from init.
  m.record(head(out, T, H, D, 0), "attn#0/out/h0", 3);
  const auto after = bytes_by_key(m, probe::view(buf.data(), {static_cast<int64_t>(buf.size())}));
  CHECK(after.at("attn#0/out/h0") == static_cast<uint64_t>(T * D * 4));
  CHECK(after.at("init#0/out/b") == 16 * 4);
}

TEST_CASE("producer grid: random views against a byte-by-byte owner table") {
  // With a limit of 3 runs, most strided views pass it: equally spaced runs are kept exact (one
  // grid), others are their span. Readers: every byte a piece names was written by that piece's
  // writer, pieces do not overlap, and every byte of the reader that has a writer is named.
  constexpr size_t most = 3;
  constexpr int64_t n = 128;
  std::vector<float> buf(static_cast<size_t>(n));
  const uintptr_t base = reinterpret_cast<uintptr_t>(buf.data());
  const size_t nbytes = buf.size() * sizeof(float);
  uint64_t seed = 777;
  auto next = [&](int k) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((seed >> 33) % static_cast<uint64_t>(k));
  };
  auto draw = [&](probe::tensor_view* v) {
    const int nd = 1 + next(3);
    int64_t lo = 0, hi = 0;
    v->type = probe::dtype::float32;
    v->ndim = static_cast<int8_t>(nd);
    for (int d = 0; d < nd; ++d) {
      v->shape[d] = 1 + next(d == nd - 1 ? 6 : 9);
      v->strides[d] = next(6) == 0 ? 0 : (1 + next(16)) * (next(5) == 0 ? -1 : 1);
      const int64_t span = (v->shape[d] - 1) * v->strides[d];
      (span < 0 ? lo : hi) += span;
    }
    if (hi - lo >= n) return false;
    v->data = buf.data() - lo + next(static_cast<int>(n - (hi - lo)));
    return true;
  };
  // The bytes a record of v stands for.
  auto recorded = [&](const probe::tensor_view& v, bool* exact) {
    std::vector<char> in(nbytes, 0);
    std::vector<probe::detail::byte_span> runs;
    probe::detail::stripes st;
    REQUIRE(probe::detail::view_runs(v, &runs, &st, most));
    *exact = st.rows > 0 || runs.size() > 1 || v.is_contiguous();
    if (st.rows > 0) {
      for (int64_t r = 0; r < st.rows; ++r)
        for (uintptr_t b = 0; b < st.width; ++b) in[st.lo + static_cast<uintptr_t>(r) * st.period + b - base] = 1;
    } else {
      for (const auto& r : runs)
        for (uintptr_t b = r.lo; b < r.hi; ++b) in[b - base] = 1;
    }
    return in;
  };
  int grids = 0;
  for (int round = 0; round < 300; ++round) {
    map_t m(most);
    std::vector<int> owner(nbytes, -1);
    for (int w = 0; w < 14; ++w) {
      probe::tensor_view v;
      if (!draw(&v)) continue;
      bool exact = false;
      const std::vector<char> in = recorded(v, &exact);
      m.record(v, "w" + std::to_string(w), static_cast<uint64_t>(w + 1), v.is_contiguous(), static_cast<uint64_t>(w));
      for (size_t b = 0; b < nbytes; ++b)
        if (in[b]) owner[b] = w;
      grids += m.cells() > 0;
      // A reader drawn the same way.
      probe::tensor_view r;
      if (!draw(&r)) continue;
      bool reader_exact = false;
      const std::vector<char> want = recorded(r, &reader_exact);
      std::vector<char> named(nbytes, 0);
      for (const map_t::piece& p : m.find(r)) {
        const int key = std::stoi(p.key.substr(1));
        for (uintptr_t b : bytes_of(p)) {
          REQUIRE(b >= base);
          REQUIRE(b - base < nbytes);
          REQUIRE(owner[b - base] == key);
          REQUIRE(named[b - base] == 0);
          named[b - base] = 1;
          if (reader_exact) REQUIRE(want[b - base]);
        }
        if (p.hashed) {  // the writer's whole contiguous output, as written
          REQUIRE(p.period == 0);
          REQUIRE(p.hash == static_cast<uint64_t>(key));
          for (uintptr_t b = 0; b < nbytes; ++b) REQUIRE((owner[b] == key) == (b + base >= p.lo && b + base < p.hi));
        }
      }
      for (size_t b = 0; b < nbytes; ++b)
        if (want[b] && owner[b] >= 0) REQUIRE(named[b]);
    }
    std::vector<int> seen(nbytes, -1);
    for (const map_t::piece& p : m.find(probe::view(buf.data(), {n})))
      for (uintptr_t b : bytes_of(p)) {
        REQUIRE(seen[b - base] == -1);
        seen[b - base] = std::stoi(p.key.substr(1));
      }
    REQUIRE(seen == owner);
  }
  CHECK(grids > 200);  // the draws do reach grids
}

TEST_CASE("producer grid: a grid cut finer than k_most_cells is given whole to its latest writer") {
  constexpr int64_t T = 40, H = 2, D = 64;
  std::vector<float> out(static_cast<size_t>(T * H * D));
  map_t m;
  for (int64_t h = 0; h < H; ++h) m.record(head(out.data(), T, H, D, h), "attn/h" + std::to_string(h), static_cast<uint64_t>(h + 1));
  size_t most = 0;
  // One element at a time, each by a writer of its own: each is a cell until the bound.
  for (int64_t i = 0; i < T * H * D; i += 1) {
    m.record(probe::view(out.data() + i, {1}), "e" + std::to_string(i), static_cast<uint64_t>(i + 10));
    most = std::max(most, m.cells());
  }
  CHECK(most <= map_t::k_most_cells);
  CHECK(most > map_t::k_most_cells / 2);
  CHECK(m.cells() < map_t::k_most_cells);
  // The grid's latest writer took it whole; later writers are plain ranges over it.
  const auto last = m.find(probe::view(out.data() + T * H * D - 1, {1}));
  REQUIRE(last.size() == 1);
  CHECK(last[0].key == "e" + std::to_string(T * H * D - 1));
}

TEST_CASE("producer grid: equally spaced runs over more ranges than a grid may hold take their span") {
  constexpr int64_t n = 2000;
  std::vector<float> buf(static_cast<size_t>(n));
  map_t m;
  for (int64_t i = 0; i < n; ++i) m.record(probe::view(buf.data() + i, {1}), "e" + std::to_string(i), static_cast<uint64_t>(i + 1));
  CHECK(m.ranges() == static_cast<size_t>(n));
  // 40 rows of 2 elements, 50 apart: over 2,000 ranges, 6,000 cells at most: too many.
  m.record(probe::view(buf.data() + 10, {40, 2}, {50, 1}), "rows", 5000);
  CHECK(m.cells() == 0);
  CHECK(m.ranges() == 10 + 1 + (n - (10 + 39 * 50 + 2)));
  const auto mid = m.find(probe::view(buf.data() + 13, {1}));  // between two rows: the span's
  REQUIRE(mid.size() == 1);
  CHECK(mid[0].key == "rows");
  CHECK(m.find(probe::view(buf.data() + 9, {1}))[0].key == "e9");
  CHECK(m.find(probe::view(buf.data() + n - 1, {1}))[0].key == "e" + std::to_string(n - 1));
  // With fewer ranges under it, the same view is a grid that keeps them between its rows.
  map_t few;
  for (int64_t i = 0; i < n; i += 100) few.record(probe::view(buf.data() + i, {100}), "b" + std::to_string(i), static_cast<uint64_t>(i + 1));
  few.record(probe::view(buf.data() + 10, {40, 2}, {50, 1}), "rows", 5000);
  CHECK(few.cells() > 0);
  CHECK(few.find(probe::view(buf.data() + 13, {1}))[0].key == "b0");
}
