// Bytes as rows of a grid: byte x of a grid with origin g and period p lies in row (x - g) / p
// at phase (x - g) % p. A view whose runs are equally spaced (a head's rows of [T, H, D], a
// worker's rows t, t + n, ...) is one rectangle of rows by phases, whatever its number of
// runs; a contiguous range is at most three. Internal header.
#pragma once
#include <stdint.h>

PROBE_BEGIN_NAMESPACE
namespace detail {

// Rows [k0, k1) by phases [a, b) of a grid.
struct grid_rect {
  int64_t k0 = 0, k1 = 0;
  uintptr_t a = 0, b = 0;

  uint64_t bytes() const noexcept { return static_cast<uint64_t>(k1 - k0) * (b - a); }
  bool operator==(const grid_rect& o) const noexcept { return k0 == o.k0 && k1 == o.k1 && a == o.a && b == o.b; }
};

struct byte_grid {
  uintptr_t origin = 0, period = 1;

  uintptr_t first_byte(const grid_rect& r) const noexcept {
    return origin + static_cast<uintptr_t>(r.k0) * period + r.a;
  }
  uintptr_t end_byte(const grid_rect& r) const noexcept {  // one past its last byte
    return origin + static_cast<uintptr_t>(r.k1 - 1) * period + r.b;
  }

  // Row and phase of byte x; rows before the origin are negative.
  void locate(uintptr_t x, int64_t* k, uintptr_t* a) const noexcept {
    const int64_t d = static_cast<int64_t>(x - origin), p = static_cast<int64_t>(period);
    *k = d >= 0 ? d / p : -((-d + p - 1) / p);
    *a = static_cast<uintptr_t>(d - *k * p);
  }

  // Whether r's bytes are one contiguous range.
  bool contiguous(const grid_rect& r) const noexcept { return r.k1 - r.k0 == 1 || (r.a == 0 && r.b == period); }

  // The bytes [x, y) as at most three rectangles: the rest of x's row, the whole rows between,
  // the start of the last row. Returns how many.
  int contiguous(uintptr_t x, uintptr_t y, grid_rect out[3]) const noexcept {
    int64_t k, kk;
    uintptr_t a, b;
    locate(x, &k, &a);
    locate(y - 1, &kk, &b);
    ++b;
    if (k == kk) {
      out[0] = grid_rect{k, k + 1, a, b};
      return 1;
    }
    int n = 0;
    if (a > 0) out[n++] = grid_rect{k, k + 1, a, period};
    const int64_t full_from = a > 0 ? k + 1 : k, full_to = b < period ? kk : kk + 1;
    if (full_to > full_from) out[n++] = grid_rect{full_from, full_to, 0, period};
    if (b < period) out[n++] = grid_rect{kk, kk + 1, 0, b};
    return n;
  }

  // `rows` runs of `width` bytes (width <= period), this grid's period apart, from x: one
  // rectangle, or two when the runs cross a row's end. Returns how many.
  int runs(uintptr_t x, uintptr_t width, int64_t rows, grid_rect out[2]) const noexcept {
    int64_t k;
    uintptr_t a;
    locate(x, &k, &a);
    if (a + width <= period) {
      out[0] = grid_rect{k, k + rows, a, a + width};
      return 1;
    }
    out[0] = grid_rect{k, k + rows, a, period};
    out[1] = grid_rect{k + 1, k + rows + 1, 0, a + width - period};
    return 2;
  }
};

inline bool intersect(const grid_rect& x, const grid_rect& y, grid_rect* out) noexcept {
  out->k0 = x.k0 > y.k0 ? x.k0 : y.k0;
  out->k1 = x.k1 < y.k1 ? x.k1 : y.k1;
  out->a = x.a > y.a ? x.a : y.a;
  out->b = x.b < y.b ? x.b : y.b;
  return out->k0 < out->k1 && out->a < out->b;
}

// What of e lies outside n: up to four rectangles (rows above, rows below, and left and right
// of n in the rows they share). Returns how many; e itself when they do not meet.
inline int subtract(const grid_rect& e, const grid_rect& n, grid_rect out[4]) noexcept {
  grid_rect both;
  if (!intersect(e, n, &both)) {
    out[0] = e;
    return 1;
  }
  int c = 0;
  if (e.k0 < both.k0) out[c++] = grid_rect{e.k0, both.k0, e.a, e.b};
  if (both.k1 < e.k1) out[c++] = grid_rect{both.k1, e.k1, e.a, e.b};
  if (e.a < both.a) out[c++] = grid_rect{both.k0, both.k1, e.a, both.a};
  if (both.b < e.b) out[c++] = grid_rect{both.k0, both.k1, both.b, e.b};
  return c;
}

}  // namespace detail
PROBE_END_NAMESPACE
