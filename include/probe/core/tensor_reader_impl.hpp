// tensor_reader: definitions (see tensor_reader.hpp).
#pragma once
#include "tensor_reader.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API std::string view_problem_text(const tensor_view& v) {
  const std::string head = "invalid tensor view: ";
  if (v.ndim < 0) {
    switch (v.problem) {
      case view_problem::too_many_dims:
        return head + "its shape has more than " + std::to_string(max_dims) + " dimensions (probe::max_dims)";
      case view_problem::strides_count:
        return head + "its strides do not have one entry per dimension of its shape";
      case view_problem::batch_sample:
        return head + "batch_view's sample view is itself invalid or a batch";
      case view_problem::batch_count:
        return head + "batch_view's count is negative, or its pointer array is null";
      default:
        return head + "ndim is " + std::to_string(v.ndim);
    }
  }
  if (v.type == dtype::invalid || dtype_size(v.type) == 0)
    return head + "its dtype is invalid (" + std::to_string(static_cast<int>(v.type)) + ")";
  if (v.ndim > max_dims) return head + "ndim is " + std::to_string(v.ndim) + ", more than " + std::to_string(max_dims);
  for (int d = 0; d < v.ndim; ++d)
    if (v.shape[d] < 0) return head + "shape[" + std::to_string(d) + "] is " + std::to_string(v.shape[d]);
  if (!v.valid())  // the rest of valid(): the byte count
    return head + "its shape holds more bytes than memory can (" + std::to_string(v.numel()) +
           (v.numel() == INT64_MAX ? " or more" : "") + " elements of " + std::to_string(dtype_size(v.type)) + " bytes)";
  if (v.batch) {
    for (int64_t k = 0; k < v.shape[0]; ++k)
      if (!v.batch[k] && v.numel() > 0)
        return head + "batch_view's pointer for sample " + std::to_string(k) + " is null";
    return "";
  }
  if (v.numel() > 0 && !v.data)
    return head + "data is null with " + std::to_string(v.numel()) + " elements in its shape";
  return "";
}

PROBE_API bool read_tensor(const tensor_view& v, tensor* out, std::string* err) {
  tensor_reader r;
  if (!r.open(v)) {
    *err = r.error();
    return false;
  }
  tensor t(v.type, dims(v.shape, static_cast<size_t>(v.ndim)), unfilled_t());
  char* dst = static_cast<char*>(t.data());
  const void* p;
  size_t n;
  char* const end = dst + t.nbytes();
  while (r.next(&p, &n) && n) {
    if (n > static_cast<size_t>(end - dst)) n = static_cast<size_t>(end - dst);
    memcpy(dst, p, n);
    dst += n;
  }
  if (!r.error().empty()) {
    *err = r.error();
    return false;
  }
  if (dst < end) memset(dst, 0, static_cast<size_t>(end - dst));  // a reader that gave fewer bytes
  *out = static_cast<tensor&&>(t);
  return true;
}

}  // namespace detail
PROBE_END_NAMESPACE
