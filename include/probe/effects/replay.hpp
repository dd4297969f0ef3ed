// Kernels that can be replayed: an engine registers one callable per op type (or op name),
// and --probe_replay re-runs recorded snapshots with it, alone (docs/replay.md).
//
//   void layer_norm_replay(probe::replay_context& ctx) {
//     auto x = ctx.input<float>("x");                        // dtype checked, shape recorded
//     auto y = ctx.output<float>("y", x.shape());            // allocated by probe
//     layer_norm(x.data(), y.data(), x.shape(0), x.shape(1), ctx.attr<double>("eps"));
//   }
//   PROBE_KERNEL("LayerNorm", layer_norm_replay);           // or probe::register_kernel(...)
//
// A check that fails (a slot the snapshot lacks, another dtype, a missing attribute) ends the
// kernel: replay reports it as one line and exits 2; kernels need no error handling.
// Registration costs one pointer swap at start-up and nothing on the marking path; under
// PROBE_DISABLE it compiles to nothing. Light header.
#pragma once
#include "../core/op.hpp"
#include "../core/tensor_view.hpp"

PROBE_BEGIN_NAMESPACE

// A tensor of element type T: contiguous, row-major, on the host. What a replayed kernel
// reads (T const) and writes.
template <class T>
class typed_view {
 public:
  typed_view() = default;
  typed_view(T* data, const tensor_view& v) noexcept : data_(data), v_(v) {}

  T* data() const noexcept { return data_; }
  int64_t size() const noexcept { return v_.ndim < 0 ? 0 : v_.numel(); }  // elements
  bool empty() const noexcept { return size() == 0; }
  int ndim() const noexcept { return v_.ndim; }
  int64_t shape(int i) const noexcept { return i >= 0 && i < v_.ndim ? v_.shape[i] : 1; }
  dims shape() const noexcept { return dims(v_.shape, static_cast<size_t>(v_.ndim > 0 ? v_.ndim : 0)); }
  T& operator[](int64_t i) const noexcept { return data_[i]; }
  T* begin() const noexcept { return data_; }
  T* end() const noexcept { return data_ + size(); }
  const tensor_view& view() const noexcept { return v_; }

 private:
  T* data_ = nullptr;
  tensor_view v_;
};

class replay_context;
using kernel_fn = void (*)(replay_context&);

namespace detail {
struct replay_state;  // effects/replay_kernel_impl.hpp

// An attribute as a kernel reads it back from a snapshot.
struct attr_value {
  attr_kind kind = attr_kind::integer;
  bool list_ok = true;  // a list: false when some element is not an integer
  int64_t i = 0;
  double d = 0;
  const char* text = "";
  size_t n = 0;  // text bytes, or list elements
  const int64_t* ints = nullptr;
};

// One registered kernel; static registrations live in the program's data, never freed.
struct kernel_entry {
  const char* name;
  kernel_fn fn;
  kernel_fn reference;  // for --probe_reference (nullptr: fn, which sees reference_mode())
  kernel_entry* next;
};

template <class T>
struct dependent_false : bool_c<false> {};

#if !defined(PROBE_DISABLE)
PROBE_API tensor_view replay_input(replay_state* s, const char* slot, dtype want, const dims* expect);
PROBE_API tensor_view replay_output(replay_state* s, const char* slot, dtype want, const dims* shape);
// nullptr when absent and not required; absent and required ends the kernel.
PROBE_API const attr_value* replay_attr(replay_state* s, const char* name, bool required);
[[noreturn]] PROBE_API void replay_attr_mismatch(replay_state* s, const char* name, const char* wanted);
PROBE_API bool replay_has(const replay_state* s, int what, const char* name) noexcept;
PROBE_API const char* replay_op(const replay_state* s, bool type) noexcept;
PROBE_API void add_kernel(kernel_entry* k) noexcept;
PROBE_API void add_kernel_copy(const char* name, kernel_fn fn, kernel_fn reference) noexcept;

// The attribute as T: numbers convert when the value fits, strings and lists of integers
// come out as the caller's own types.
template <class T>
T attr_as(replay_state* s, const char* name, const attr_value* a) {
  if constexpr (same_type<T, bool>::value) {
    if (a->kind == attr_kind::boolean || a->kind == attr_kind::integer) return a->i != 0;
    replay_attr_mismatch(s, name, "a boolean");
  } else if constexpr (dtype_is_integer(dtype_of<T>::value)) {
    if (a->kind == attr_kind::integer || a->kind == attr_kind::boolean) {
      const T v = static_cast<T>(a->i);
      if (static_cast<int64_t>(v) == a->i && (a->i >= 0 || T(-1) < T(0))) return v;
      replay_attr_mismatch(s, name, "an integer of the kernel's type");
    }
    replay_attr_mismatch(s, name, "an integer");
  } else if constexpr (dtype_is_float(dtype_of<T>::value)) {
    if (a->kind == attr_kind::integer || a->kind == attr_kind::real) return static_cast<T>(a->kind == attr_kind::real ? a->d : static_cast<double>(a->i));
    replay_attr_mismatch(s, name, "a number");
  } else if constexpr (has_c_str<T>::value) {
    if (a->kind == attr_kind::text) return T(a->text, a->n);
    replay_attr_mismatch(s, name, "a string");
  } else if constexpr (list_of<T>::value) {
    if (a->kind == attr_kind::ints && a->list_ok) return T(a->ints, a->ints + a->n);
    replay_attr_mismatch(s, name, "a list of integers");
  } else {
    static_assert(dependent_false<T>::value,
                  "replay_context::attr<T>: T is a number, a string type or a container of integers");
  }
}
#endif
}  // namespace detail

// What a replayed kernel sees: the snapshot's inputs, its attributes, and outputs probe
// allocates (zero-filled) with the recorded shapes and dtypes.
class replay_context {
 public:
#if defined(PROBE_DISABLE)
  template <class T>
  typed_view<const T> input(const char*) const noexcept { return {}; }
  template <class T>
  typed_view<const T> input(const char*, const dims&) const noexcept { return {}; }
  template <class T>
  typed_view<T> output(const char*) noexcept { return {}; }
  template <class T>
  typed_view<T> output(const char*, const dims&) noexcept { return {}; }
  tensor_view input_view(const char*) const noexcept { return {}; }
  template <class T>
  T attr(const char*) const { return T(); }
  template <class T>
  T attr(const char*, const T& fallback) const { return fallback; }
  bool has_attr(const char*) const noexcept { return false; }
  bool has_input(const char*) const noexcept { return false; }
  bool has_output(const char*) const noexcept { return false; }
  const char* op_name() const noexcept { return ""; }
  const char* op_type() const noexcept { return ""; }
#else
  explicit replay_context(detail::replay_state* s) noexcept : s_(s) {}

  // Input `slot` as T: the recorded dtype must be T's. With `expect`, the shape must match
  // it too (-1 matches any size).
  template <class T>
  typed_view<const T> input(const char* slot) const {
    const tensor_view v = detail::replay_input(s_, slot, dtype_of<T>::value, nullptr);
    return typed_view<const T>(static_cast<const T*>(v.data), v);
  }
  template <class T>
  typed_view<const T> input(const char* slot, const dims& expect) const {
    const tensor_view v = detail::replay_input(s_, slot, dtype_of<T>::value, &expect);
    return typed_view<const T>(static_cast<const T*>(v.data), v);
  }
  // Output `slot`, allocated with the recorded shape (which must then be T's dtype). An op
  // that never finished recorded no outputs: give the shape, as the second form does (it
  // must match the recorded shape when there is one). It holds zeros, or, for a slot that is
  // also an input (op.inout, an implicit read-modify-write), that input's recorded state.
  template <class T>
  typed_view<T> output(const char* slot) {
    const tensor_view v = detail::replay_output(s_, slot, dtype_of<T>::value, nullptr);
    return typed_view<T>(static_cast<T*>(const_cast<void*>(v.data)), v);
  }
  template <class T>
  typed_view<T> output(const char* slot, const dims& shape) {
    const tensor_view v = detail::replay_output(s_, slot, dtype_of<T>::value, &shape);
    return typed_view<T>(static_cast<T*>(const_cast<void*>(v.data)), v);
  }
  // Input `slot` whatever its dtype, for kernels that dispatch on it.
  tensor_view input_view(const char* slot) const {
    return detail::replay_input(s_, slot, dtype::invalid, nullptr);
  }

  // Attribute `name` (op.attr) as T: a number type, a string type (std::string) or a
  // container of integers (std::vector<int>). Absent: the fallback, or the kernel ends.
  template <class T>
  T attr(const char* name) const {
    return detail::attr_as<T>(s_, name, detail::replay_attr(s_, name, true));
  }
  template <class T>
  T attr(const char* name, const T& fallback) const {
    const detail::attr_value* a = detail::replay_attr(s_, name, false);
    return a ? detail::attr_as<T>(s_, name, a) : fallback;
  }
  bool has_attr(const char* name) const noexcept { return detail::replay_has(s_, 0, name); }
  bool has_input(const char* slot) const noexcept { return detail::replay_has(s_, 1, slot); }
  bool has_output(const char* slot) const noexcept { return detail::replay_has(s_, 2, slot); }
  const char* op_name() const noexcept { return detail::replay_op(s_, false); }
  const char* op_type() const noexcept { return detail::replay_op(s_, true); }
  // The state behind the context, for probe's C interface (c/replay_impl.hpp).
  detail::replay_state* state() const noexcept { return s_; }

 private:
  detail::replay_state* s_;
#endif
};

#if defined(PROBE_DISABLE)
namespace detail {
struct kernel_fns {
  kernel_fn fn;
  kernel_fn reference = nullptr;
};
}  // namespace detail
inline void register_kernel(const char*, kernel_fn, kernel_fn = nullptr) noexcept {}
// Nothing registered, nothing run: the kernel is only referenced, so it raises no warning.
#define PROBE_KERNEL(name, ...)                                                                          \
  [[maybe_unused]] static constexpr ::probe::detail::kernel_fns PROBE_CONCAT(probe_kernel_, __COUNTER__) { \
    __VA_ARGS__                                                                                           \
  }
#else
// Registers `fn` as the kernel of ops whose name or type is `name` (the name is matched
// first); `reference`, when given, runs instead under --probe_reference (without it, fn runs
// and probe::reference_mode() tells it). A later registration of a name replaces an earlier
// one. The name is copied.
inline void register_kernel(const char* name, kernel_fn fn, kernel_fn reference = nullptr) noexcept {
  detail::add_kernel_copy(name, fn, reference);
}

namespace detail {
struct kernel_registration {
  kernel_entry entry;
  kernel_registration(const char* name, kernel_fn fn, kernel_fn reference = nullptr) noexcept
      : entry{name, fn, reference, nullptr} {
    add_kernel(&entry);
  }
};
}  // namespace detail

// At namespace scope: registers the kernel as the program starts (name: a string literal).
// In a static library, the object file must be linked in for its registration to run.
#define PROBE_KERNEL(name, ...) \
  static ::probe::detail::kernel_registration PROBE_CONCAT(probe_kernel_, __COUNTER__) { name, __VA_ARGS__ }
#endif

PROBE_END_NAMESPACE
