// tensor_reader: definitions (see tensor_reader.hpp).
#pragma once
#include "tensor_reader.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API bool read_tensor(const tensor_view& v, tensor* out, std::string* err) {
  tensor_reader r;
  if (!r.open(v)) {
    *err = r.error();
    return false;
  }
  tensor t(v.type, dims(v.shape, static_cast<size_t>(v.ndim)));
  char* dst = static_cast<char*>(t.data());
  const void* p;
  size_t n;
  while (r.next(&p, &n) && n) {
    memcpy(dst, p, n);
    dst += n;
  }
  if (!r.error().empty()) {
    *err = r.error();
    return false;
  }
  *out = static_cast<tensor&&>(t);
  return true;
}

}  // namespace detail
PROBE_END_NAMESPACE
