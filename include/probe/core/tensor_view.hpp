// tensor_view: a non-owning description of an n-d array (data, dtype, shape, strides, device),
// and probe::view(...) to make one. Light header: templates over "anything with data() and
// size()" instead of including <vector> or <array>.
#pragma once
#include <initializer_list>

#include "dtype.hpp"

PROBE_BEGIN_NAMESPACE

constexpr int max_dims = 8;

struct device {
  enum kind_t : uint8_t { host = 0, cuda = 1 };
  kind_t kind = host;
  int16_t index = 0;
  constexpr bool is_host() const noexcept { return kind == host; }
};

// Shape or strides as given by the caller: a braced list, or any container of integers.
class dims {
 public:
  dims() = default;
  dims(std::initializer_list<int64_t> l) noexcept { assign(l.begin(), l.size()); }
  template <class C, class = decltype(detail::declval_<const C&>().data()),
            class = decltype(detail::declval_<const C&>().size())>
  dims(const C& c) noexcept {  // NOLINT: implicit on purpose (std::vector<size_t>, ...)
    assign(c.data(), static_cast<size_t>(c.size()));
  }
  template <class I>
  dims(const I* p, size_t n) noexcept {
    assign(p, n);
  }
  int size() const noexcept { return n_; }
  bool too_many() const noexcept { return overflow_; }
  int64_t operator[](int i) const noexcept { return v_[i]; }

 private:
  template <class I>
  void assign(const I* p, size_t n) noexcept {
    overflow_ = n > static_cast<size_t>(max_dims);
    n_ = overflow_ ? max_dims : static_cast<int>(n);
    for (int i = 0; i < n_; ++i) v_[i] = static_cast<int64_t>(p[i]);
  }
  int64_t v_[max_dims] = {};
  int n_ = 0;
  bool overflow_ = false;
};

// Elements in a shape: 0 when a dimension is 0, whatever the others (their product may not
// fit in int64_t); INT64_MAX when the count itself does not fit.
namespace detail {
inline int64_t shape_numel(const int64_t* shape, int ndim) noexcept {
  for (int i = 0; i < ndim; ++i)
    if (shape[i] == 0) return 0;
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i)
    if (__builtin_mul_overflow(n, shape[i], &n)) return INT64_MAX;
  return n;
}
}  // namespace detail

// Why a view could not be built (tensor_view::problem, with ndim == -1).
enum class view_problem : uint8_t { none = 0, too_many_dims, strides_count, batch_sample, batch_count };

struct tensor_view {
  const void* data = nullptr;
  dtype type = dtype::invalid;
  int8_t ndim = 0;  // -1 marks a view that could not be built (problem says why)
  view_problem problem = view_problem::none;
  device where{};
  int64_t shape[max_dims] = {};
  int64_t strides[max_dims] = {};  // in elements, not bytes
  void* stream = nullptr;          // cudaStream_t for device views, when known
  // batch_view: one pointer per sample (shape[0] of them), each sample laid out as dims 1..
  // say; data is null and strides[0] 0. Probe gathers the samples where it reads the view.
  const void* const* batch = nullptr;

  // Whether probe can read it: a known dtype, 0..max_dims dimensions, none negative, and a
  // byte count that fits in memory (a negative dimension or an overflowing product would make
  // a byte count of the whole address space). What is wrong with one that is not:
  // detail::view_problem_text (core/tensor_reader.hpp).
  bool valid() const noexcept {
    if (ndim < 0 || ndim > max_dims || dtype_size(type) == 0) return false;
    for (int i = 0; i < ndim; ++i)
      if (shape[i] < 0) return false;
    return numel() <= PTRDIFF_MAX / static_cast<int64_t>(dtype_size(type));
  }
  int64_t numel() const noexcept { return detail::shape_numel(shape, ndim); }
  size_t itemsize() const noexcept { return dtype_size(type); }
  // 0 for a view that is not valid() (a negative dimension, more than max_dims, more bytes
  // than memory holds).
  size_t nbytes() const noexcept {
    const int64_t n = ndim <= max_dims ? numel() : 0;
    const size_t item = itemsize();
    if (n <= 0 || item == 0 || static_cast<uint64_t>(n) > static_cast<uint64_t>(PTRDIFF_MAX) / item) return 0;
    return static_cast<size_t>(n) * item;
  }
  bool is_contiguous() const noexcept {
    int64_t expect = 1;
    for (int i = ndim - 1; i >= 0; --i) {
      if (shape[i] != 1 && strides[i] != expect) return false;
      if (__builtin_mul_overflow(expect, shape[i], &expect)) return numel() == 0;
    }
    return true;
  }
  tensor_view on_cuda(int index = 0, void* cuda_stream = nullptr) const noexcept {
    tensor_view v = *this;
    v.where.kind = device::cuda;
    v.where.index = static_cast<int16_t>(index);
    v.stream = cuda_stream;
    return v;
  }
  tensor_view on_host() const noexcept {
    tensor_view v = *this;
    v.where = device{};
    v.stream = nullptr;
    return v;
  }
};

// Raw form for engines that know the dtype at run time only.
inline tensor_view view_raw(const void* data, dtype t, const dims& shape) noexcept {
  tensor_view v;
  v.data = data;
  v.type = t;
  if (shape.too_many()) {
    v.ndim = -1;
    v.problem = view_problem::too_many_dims;
    return v;
  }
  v.ndim = static_cast<int8_t>(shape.size());
  int64_t s = 1;
  for (int i = v.ndim - 1; i >= 0; --i) {
    v.shape[i] = shape[i];
    v.strides[i] = s;
    if (__builtin_mul_overflow(s, shape[i], &s)) s = INT64_MAX;  // only a 0 dimension makes that a view
  }
  return v;
}
inline tensor_view view_raw(const void* data, dtype t, const dims& shape,
                            const dims& strides) noexcept {
  tensor_view v = view_raw(data, t, shape);
  if (v.ndim >= 0 && strides.size() != shape.size()) {
    v.ndim = -1;
    v.problem = view_problem::strides_count;
    return v;
  }
  for (int i = 0; i < v.ndim; ++i) v.strides[i] = strides[i];
  return v;
}

// Contiguous, row-major.
template <class T>
tensor_view view(const T* data, const dims& shape) noexcept {
  static_assert(has_dtype<T>, "probe::view: element type has no probe::dtype (specialize probe::dtype_of)");
  return view_raw(data, dtype_of<T>::value, shape);
}
// Strided; strides in elements.
template <class T>
tensor_view view(const T* data, const dims& shape, const dims& strides) noexcept {
  static_assert(has_dtype<T>, "probe::view: element type has no probe::dtype (specialize probe::dtype_of)");
  return view_raw(data, dtype_of<T>::value, shape, strides);
}
// 1-d; a template so that a braced shape like view(p, {4}) always means dims.
template <class T, class N, class = typename detail::enable_if<(N(-1) < N(0)) || (N(-1) > N(0))>::type,
          class = decltype(static_cast<int64_t>(N{}) % 2)>
tensor_view view(const T* data, N n) noexcept {
  return view(data, dims{static_cast<int64_t>(n)});
}
// Any contiguous container: std::vector, std::array, std::span, ...
template <class C, class E = typename detail::strip_cv<
                       typename detail::strip_cv<decltype(*detail::declval_<const C&>().data())>::type>::type,
          class = decltype(detail::declval_<const C&>().size())>
tensor_view view(const C& c) noexcept {
  return view(c.data(), dims{static_cast<int64_t>(c.size())});
}
// A scalar: a 0-d view of its storage.
template <class T, class = typename detail::enable_if<has_dtype<T>>::type>
tensor_view view(const T& scalar, int = 0) noexcept {
  return view(&scalar, dims{});
}
inline tensor_view view(const tensor_view& v) noexcept { return v; }

// Equally shaped samples in separate buffers, as one tensor [count, sample dims...]: `sample`
// gives every sample's dtype, shape, strides and device (its data pointer is not used), and
// ptrs[k] where sample k starts. The pointer array must outlive the view, as the data must.
// Dumps write one array with the leading batch dimension; prints and breakpoints show it whole.
inline tensor_view batch_view(const void* const* ptrs, int64_t count, const tensor_view& sample) noexcept {
  tensor_view v = sample;
  v.data = nullptr;
  v.batch = ptrs;
  if (!sample.valid() || sample.batch) {
    v.ndim = -1;
    v.problem = view_problem::batch_sample;
    return v;
  }
  if (count < 0 || (count > 0 && !ptrs)) {
    v.ndim = -1;
    v.problem = view_problem::batch_count;
    return v;
  }
  if (sample.ndim + 1 > max_dims) {
    v.ndim = -1;
    v.problem = view_problem::too_many_dims;
    return v;
  }
  for (int d = sample.ndim; d > 0; --d) {
    v.shape[d] = sample.shape[d - 1];
    v.strides[d] = sample.strides[d - 1];
  }
  v.shape[0] = count;
  v.strides[0] = 0;
  v.ndim = static_cast<int8_t>(sample.ndim + 1);
  return v;
}
template <class T>
tensor_view batch_view(const T* const* ptrs, int64_t count, const tensor_view& sample) noexcept {
  return batch_view(reinterpret_cast<const void* const*>(ptrs), count, sample);
}
// A container of sample pointers (std::vector<float*>, std::array<const T*, N>, ...).
template <class C, class = decltype(detail::declval_<const C&>().data()),
          class = decltype(detail::declval_<const C&>().size())>
tensor_view batch_view(const C& ptrs, const tensor_view& sample) noexcept {
  return batch_view(ptrs.data(), static_cast<int64_t>(ptrs.size()), sample);
}

namespace detail {
// Customization: an engine adapts its tensor type with an ADL function
//   probe::tensor_view probe_view(const my::Tensor&);
template <class T, class = void>
struct has_adl_view : bool_c<false> {};
template <class T>
struct has_adl_view<T, void_t<decltype(probe_view(declval_<const T&>()))>> : bool_c<true> {};
template <class T, class = void>
struct has_probe_view : bool_c<false> {};
template <class T>
struct has_probe_view<T, void_t<decltype(::probe::view(declval_<const T&>()))>> : bool_c<true> {};

template <class T>
tensor_view to_view_impl(const T& x, bool_c<true> /*adl*/) {
  return probe_view(x);
}
template <class T>
tensor_view to_view_impl(const T& x, bool_c<false> /*adl*/) {
  static_assert(has_probe_view<T>::value,
                "probe: cannot view this type; give it an ADL function `probe::tensor_view "
                "probe_view(const T&)`, or pass probe::view(ptr, shape)");
  return ::probe::view(x);
}
}  // namespace detail

// What every probe entry point calls on a user value.
template <class T>
tensor_view to_view(const T& x) {
  return detail::to_view_impl(x, detail::bool_c<detail::has_adl_view<T>::value>{});
}
template <class T>
constexpr bool is_viewable =
    detail::has_adl_view<T>::value || detail::has_probe_view<T>::value;

PROBE_END_NAMESPACE
