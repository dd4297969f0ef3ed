// A view's bytes: its span, and its runs of contiguous bytes (a tile's rows, a column's
// elements), or, past a number of runs, whether they are equally spaced. Internal header.
#pragma once
#include <stdint.h>

#include <vector>

#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct byte_span {
  uintptr_t lo, hi;
};

// `rows` runs of `width` bytes, `period` apart, from `lo` (rows 0: the runs are not so).
struct stripes {
  uintptr_t lo = 0, width = 0, period = 0;
  int64_t rows = 0;
};

// The bytes a view spans, from its lowest to its highest element (false: no data).
inline bool view_bytes(const tensor_view& v, uintptr_t* lo, uintptr_t* hi) {
  if (!v.valid() || !v.data || v.batch || v.numel() == 0) return false;
  const int64_t item = static_cast<int64_t>(v.itemsize());
  int64_t first = 0, last = 0;
  for (int i = 0; i < v.ndim; ++i) {
    const int64_t span = (v.shape[i] - 1) * v.strides[i];
    if (span < 0) first += span; else last += span;
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(v.data);
  *lo = base + static_cast<uintptr_t>(first * item);
  *hi = base + static_cast<uintptr_t>((last + 1) * item);
  return true;
}

// The runs of contiguous bytes v covers, in address order, those that touch or overlap
// joined; its span alone when it has more than `most` (false: no data). Runs equally spaced
// (outer dims that continue one another, a head's rows of [B, T, H, D]) are described in
// `st` instead, whatever their number, with the span in *out: rows_to_runs lists them.
inline bool view_runs(const tensor_view& v, std::vector<byte_span>* out, stripes* st, size_t most) {
  out->clear();
  if (st) *st = stripes();
  uintptr_t lo, hi;
  if (!view_bytes(v, &lo, &hi)) return false;
  out->push_back(byte_span{lo, hi});
  if (v.is_contiguous()) return true;
  // The dims that move, by stride: the bytes are the same whatever their order and sign.
  struct dim {
    int64_t n, s;
  } d[max_dims];
  int m = 0;
  for (int i = 0; i < v.ndim; ++i) {
    if (v.shape[i] < 2 || v.strides[i] == 0) continue;
    dim x{v.shape[i], v.strides[i] < 0 ? -v.strides[i] : v.strides[i]};
    int at = m++;
    for (; at > 0 && d[at - 1].s > x.s; --at) d[at] = d[at - 1];
    d[at] = x;
  }
  int64_t run = 1;  // elements in the innermost contiguous run
  int inner = 0;
  while (inner < m && d[inner].s == run) run *= d[inner++].n;
  if (inner == m) return true;
  const uintptr_t item = v.itemsize();
  if (st && d[inner].s > run) {
    int64_t n = d[inner].n;
    int k = inner + 1;
    for (; k < m && d[k].s == d[inner].s * n; ++k) n *= d[k].n;
    if (k == m) {
      *st = stripes{lo, static_cast<uintptr_t>(run) * item, static_cast<uintptr_t>(d[inner].s) * item, n};
      return true;
    }
  }
  uint64_t count = 1;
  for (int k = inner; k < m && count <= most; ++k) count *= static_cast<uint64_t>(d[k].n);
  if (count > most) return true;
  out->clear();
  int64_t idx[max_dims] = {};
  int64_t off = 0;  // elements from the lowest one
  for (;;) {
    const uintptr_t a = lo + static_cast<uintptr_t>(off) * item;
    out->push_back(byte_span{a, a + static_cast<uintptr_t>(run) * item});
    int k = inner;
    for (; k < m; ++k) {
      if (++idx[k] < d[k].n) {
        off += d[k].s;
        break;
      }
      off -= (d[k].n - 1) * d[k].s;
      idx[k] = 0;
    }
    if (k == m) break;
  }
  // In address order already unless the dims overlap (a sliding window): sort what is not.
  for (size_t k = 1; k < out->size(); ++k) {
    const byte_span x = (*out)[k];
    size_t at = k;
    for (; at > 0 && (*out)[at - 1].lo > x.lo; --at) (*out)[at] = (*out)[at - 1];
    (*out)[at] = x;
  }
  size_t w = 0;
  for (size_t k = 1; k < out->size(); ++k) {
    if ((*out)[k].lo <= (*out)[w].hi) {
      if ((*out)[k].hi > (*out)[w].hi) (*out)[w].hi = (*out)[k].hi;
    } else {
      (*out)[++w] = (*out)[k];
    }
  }
  out->resize(w + 1);
  return true;
}

// The runs that rows are.
inline void rows_to_runs(const stripes& st, std::vector<byte_span>* out) {
  out->clear();
  for (int64_t k = 0; k < st.rows; ++k) {
    const uintptr_t a = st.lo + static_cast<uintptr_t>(k) * st.period;
    out->push_back(byte_span{a, a + st.width});
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
