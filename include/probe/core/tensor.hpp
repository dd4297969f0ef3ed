// probe::tensor: an owning, contiguous, host n-d array (what npy::read returns and what
// asynchronous effects capture), and copy_contiguous() to gather any host view into one.
// Self-contained: usable on its own in every build mode.
#pragma once
#include <stdint.h>
#include <string.h>

#include <vector>

#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE

namespace detail {
// Copies a host view's elements, in row-major order, into dst (nbytes() bytes).
inline void copy_contiguous(const tensor_view& v, void* dst) noexcept {
  const size_t item = v.itemsize();
  if (v.ndim <= 0 || v.is_contiguous()) {
    if (v.data && v.nbytes()) memcpy(dst, v.data, v.nbytes());
    return;
  }
  const int64_t n = v.numel();
  if (n == 0) return;
  // Walk the index space with an odometer; copy the innermost run at once when it is dense.
  const int last = v.ndim - 1;
  const bool inner_dense = v.strides[last] == 1;
  const int64_t run = inner_dense ? v.shape[last] : 1;
  const int outer_dims = inner_dense ? last : v.ndim;
  int64_t idx[max_dims] = {};
  const char* src = static_cast<const char*>(v.data);
  char* out = static_cast<char*>(dst);
  for (int64_t done = 0; done < n; done += run) {
    int64_t off = 0;
    for (int d = 0; d < outer_dims; ++d) off += idx[d] * v.strides[d];
    memcpy(out, src + off * static_cast<int64_t>(item), static_cast<size_t>(run) * item);
    out += static_cast<size_t>(run) * item;
    for (int d = outer_dims - 1; d >= 0; --d) {
      if (++idx[d] < v.shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Eight bytes of a tensor's storage, left as they are when made: a tensor about to be filled
// by a copy (copy_of, read_tensor) writes its memory once, not zeros first.
struct tensor_word {
  uint64_t bits;
  tensor_word() noexcept {}  // NOLINT: uninitialized on purpose
};
struct unfilled_t {};
}  // namespace detail

class tensor {
 public:
  tensor() = default;
  // Zero-filled, row-major.
  tensor(dtype t, const dims& shape) : tensor(t, shape, detail::unfilled_t()) {
    if (!storage_.empty()) memset(static_cast<void*>(storage_.data()), 0, storage_.size() * sizeof(detail::tensor_word));
  }
  // Its bytes left unset: for a caller that writes all nbytes() of them at once.
  tensor(dtype t, const dims& shape, detail::unfilled_t) : type_(t) {
    ndim_ = shape.too_many() ? 0 : shape.size();
    for (int i = 0; i < ndim_; ++i) shape_[i] = shape[i];
    storage_.resize((nbytes() + 7) / 8);
  }
  // A deep copy of a host view (any strides), made contiguous.
  static tensor copy_of(const tensor_view& v) {
    if (!v.valid()) return tensor();
    const dims shape(v.shape, static_cast<size_t>(v.ndim));
    // copy_contiguous writes every byte of a host view with data; other views stay zeros
    tensor t = v.data && !v.batch ? tensor(v.type, shape, detail::unfilled_t()) : tensor(v.type, shape);
    detail::copy_contiguous(v, t.data());
    return t;
  }

  dtype type() const noexcept { return type_; }
  int ndim() const noexcept { return ndim_; }
  int64_t shape(int i) const noexcept { return shape_[i]; }
  const int64_t* shape() const noexcept { return shape_; }
  int64_t numel() const noexcept { return detail::shape_numel(shape_, ndim_); }
  size_t nbytes() const noexcept { return static_cast<size_t>(numel()) * dtype_size(type_); }
  bool empty() const noexcept { return type_ == dtype::invalid; }
  void* data() noexcept { return storage_.data(); }
  const void* data() const noexcept { return storage_.data(); }
  template <class T>
  T* data_as() noexcept {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* data_as() const noexcept {
    return static_cast<const T*>(data());
  }

  tensor_view view() const noexcept {
    return view_raw(storage_.data(), type_, dims(shape_, static_cast<size_t>(ndim_)));
  }

 private:
  dtype type_ = dtype::invalid;
  int ndim_ = 0;
  int64_t shape_[max_dims] = {};
  std::vector<detail::tensor_word> storage_;  // 8-byte aligned for every dtype
};

// Makes a tensor viewable wherever probe takes a value (ops, format, print).
inline tensor_view probe_view(const tensor& t) noexcept { return t.view(); }

PROBE_END_NAMESPACE
