// Who wrote bytes the producer map holds, and a grid's rectangles with their writers, kept in
// order of their first bytes. Internal header.
#pragma once
#include <stdint.h>

#include <string>
#include <utility>
#include <vector>

#include "byte_grid.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Who wrote a range or a rectangle, and whether it was read since.
struct producer_written {
  std::string key;
  uint64_t seq = 0;
  bool hashed = false;
  uint64_t hash = 0;
  int64_t step = 0;
  bool read = false;
  uintptr_t origin = 0;
};

struct producer_cell {
  grid_rect r;
  producer_written by;
};

inline bool first_bytes_before(const grid_rect& x, const grid_rect& y) noexcept {
  return x.k0 < y.k0 || (x.k0 == y.k0 && x.a < y.a);
}

// Cells in order of first bytes, so that readers meet them in address order: a merge sort,
// runs of width 1, 2, 4, ... from *v into *tmp and back (stable, no allocation once *tmp is
// as large).
inline void sort_cells(std::vector<producer_cell>* v, std::vector<producer_cell>* tmp) {
  const size_t n = v->size();
  tmp->resize(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) (*tmp)[o++] = std::move(first_bytes_before((*v)[b].r, (*v)[a].r) ? (*v)[b++] : (*v)[a++]);
      while (a < mid) (*tmp)[o++] = std::move((*v)[a++]);
      while (b < hi) (*tmp)[o++] = std::move((*v)[b++]);
    }
    v->swap(*tmp);
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
