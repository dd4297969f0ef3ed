// Tensors as text, the way numpy's str() prints arrays (format_tensor_impl.hpp). What
// probe::format uses for tensor arguments, breakpoints for `p`, and `probe show`.
#pragma once
#include <string>

#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// How format_tensor prints; the defaults are numpy's print options.
struct tensor_format {
  int precision = -1;        // digits; -1: numpy's default (8), and 0-d tensors print as numpy scalars
  char float_mode = 'g';     // 'g': numpy's default (shortest, at most `precision` digits after the
                             // point, scientific when the magnitudes ask for it); 'f': exactly
                             // `precision` digits, positional; 'e': exactly `precision`, scientific
  bool sign_plus = false;    // '+' before non-negative floats
  int64_t threshold = 1000;  // summarize when the tensor has more elements than this
  int edgeitems = 3;         // elements shown at each end of a summarized axis
  int linewidth = 75;        // rows wrap past this many characters
};

// Appends v as numpy's str() would print it. Host memory only: a device view prints as
// "<float32[2, 3] on cuda:0>"; an invalid view as "<invalid tensor>".
PROBE_API void format_tensor(std::string& out, const tensor_view& v, const tensor_format& f) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
