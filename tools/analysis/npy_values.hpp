// The values of an .npy file as numpy prints them, reading only what is printed. Past the
// summary threshold numpy shows `edgeitems` elements at each end of every long axis, so a
// 2 GiB array prints from a few kilobytes: those elements are read into a small array whose
// long axes have 2 * edgeitems + 1 entries, the middle one standing for the "..." the
// formatter prints in its place (it is never shown, and holds a copy of a shown value so
// that it cannot sway the number format either). Standalone header, plain inline.
#pragma once
#include <stdint.h>
#include <string.h>

#include <string>
#include <vector>

#include <probe/core/format_tensor.hpp>
#include "npy_file.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace npy_values_impl {

// One axis of the small array: which file index each of its entries reads.
struct axis_map {
  int64_t size = 0;        // of the axis in the file
  int64_t kept = 0;        // entries in the small array
  int64_t edge = 0;        // 0: every index; else indices [0, edge) and [size - edge, size)
  int64_t source(int64_t j) const {
    if (!edge || j < edge) return j;
    if (j == edge) return edge - 1;  // the stand-in for "..."
    return size - (kept - j);
  }
};

}  // namespace npy_values_impl

// Appends the values of f as format_tensor prints them with `fmt`; false with *error when
// the file cannot be read.
inline bool format_npy_values(const npy_file& f, const ::probe::detail::tensor_format& fmt, std::string* out,
                              std::string* error) {
  using npy_values_impl::axis_map;
  const npy::header_info& h = f.header();
  const int ndim = h.ndim;
  const size_t item = dtype_size(h.type);
  const int64_t numel = f.numel();
  const bool summarize = numel > fmt.threshold;
  const int64_t edge = fmt.edgeitems < 1 ? 1 : fmt.edgeitems;

  // Axes in file order: C order as given, Fortran order reversed (its file layout is the
  // C layout of the reversed shape).
  axis_map axes[max_dims];
  int64_t kept_total = 1;
  for (int k = 0; k < ndim; ++k) {
    axis_map& a = axes[k];
    a.size = h.shape[h.fortran_order ? ndim - 1 - k : k];
    const bool cut = summarize && a.size > 2 * edge;
    a.kept = cut ? 2 * edge + 1 : a.size;
    a.edge = cut ? edge : 0;
    kept_total *= a.kept;
  }
  std::vector<uint64_t> storage(static_cast<size_t>(kept_total) * item / 8 + 2);
  char* small = reinterpret_cast<char*>(storage.data());

  if (kept_total > 0) {
    // Rows along the last file axis, read as at most two ranges each.
    const int last = ndim - 1;
    int64_t file_stride[max_dims];
    for (int64_t k = ndim - 1, s = 1; k >= 0; --k) {
      file_stride[k] = s;
      s *= axes[k].size;
    }
    const int64_t row_size = ndim ? axes[last].size : 1, row_kept = ndim ? axes[last].kept : 1;
    const int64_t row_edge = ndim ? axes[last].edge : 0;
    int64_t idx[max_dims] = {};
    for (int64_t row = 0; row < kept_total / row_kept; ++row) {
      int64_t base = 0;
      for (int k = 0; k < last; ++k) base += axes[k].source(idx[k]) * file_stride[k];
      char* dst = small + static_cast<size_t>(row * row_kept) * item;
      if (!row_edge) {
        if (!f.read(base, static_cast<size_t>(row_size), dst, error)) return false;
      } else {
        if (!f.read(base, static_cast<size_t>(row_edge), dst, error) ||
            !f.read(base + row_size - row_edge, static_cast<size_t>(row_edge),
                    dst + static_cast<size_t>(row_edge + 1) * item, error))
          return false;
        memcpy(dst + static_cast<size_t>(row_edge) * item, dst + static_cast<size_t>(row_edge - 1) * item, item);
      }
      for (int k = last - 1; k >= 0; --k) {
        if (++idx[k] < axes[k].kept) break;
        idx[k] = 0;
      }
    }
  }

  // The small array as the file's logical shape sees it.
  tensor_view v;
  v.data = small;
  v.type = h.type;
  v.ndim = static_cast<int8_t>(ndim);
  int64_t stride = 1;
  for (int k = ndim - 1; k >= 0; --k) {
    const int d = h.fortran_order ? ndim - 1 - k : k;
    v.shape[d] = axes[k].kept;
    v.strides[d] = stride;
    stride *= axes[k].kept;
  }
  ::probe::detail::tensor_format small_fmt = fmt;
  // Summarize the small array exactly when the file's array would be: its long axes are
  // 2 * edgeitems + 1 long, so the same elements are shown.
  small_fmt.threshold = summarize ? 0 : INT64_MAX;
  ::probe::detail::format_tensor(*out, v, small_fmt);
  return true;
}

}  // namespace analysis
PROBE_END_NAMESPACE
