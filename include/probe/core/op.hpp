// Marking computations: probe::op (RAII scope), probe::wrap, steps. Light header: the inline
// parts are the off-path branch; everything else is out of line.
#pragma once
#include "gate.hpp"
#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct op_record;  // defined in core/context_impl.hpp
enum class io : uint8_t { in = 0, out = 1 };

// An op attribute as the caller gave it (op::attr): a number, a string or a small list of
// integers, described without copying; op_attr copies it into the op's record.
enum class attr_kind : uint8_t { boolean, integer, real, text, ints };
struct attr_arg {
  attr_kind kind = attr_kind::integer;
  int64_t i = 0;                // boolean, integer
  double d = 0;                 // real
  const char* s = nullptr;      // text (n bytes)
  const void* list = nullptr;   // ints: n elements of elem_size bytes
  size_t n = 0;
  uint8_t elem_size = 0;
  bool elem_signed = false;
};

#if !defined(PROBE_DISABLE)
// The engine IR module whose ops run on this thread (probe::ir_run); 0: none. Ops record it.
inline thread_local uint32_t t_ir_running = 0;

PROBE_API op_record* op_begin(const char* name, const char* type) noexcept;
// The same for an indexed op: named "L<index>.<name>", the name built here (only when recorded).
PROBE_API op_record* op_begin_indexed(const char* name, const char* type, int64_t index) noexcept;
PROBE_API void op_inout(op_record* r, const char* slot, const tensor_view& v) noexcept;
PROBE_API void op_tensor(op_record* r, io which, const char* slot, const tensor_view& v) noexcept;
PROBE_API void op_defer_output(op_record* r, const char* slot, const tensor_view& v) noexcept;
PROBE_API void op_link(op_record* r, const char* slot, const char* producer_key) noexcept;
PROBE_API void op_attr(op_record* r, const char* name, const attr_arg& a) noexcept;
PROBE_API void op_end(op_record* r) noexcept;
PROBE_API uint64_t op_sequence(const op_record* r) noexcept;
PROBE_API bool op_records_tensors(const op_record* r) noexcept;
#endif

inline int64_t g_step = 0;

// Strings from std::string, std::string_view and friends without including them.
template <class S, class = void>
struct has_c_str : bool_c<false> {};
template <class S>
struct has_c_str<S, void_t<decltype(declval_<const S&>().c_str())>> : bool_c<true> {};

// Attribute values: numbers, strings (const char*, std::string, std::string_view) and
// contiguous lists of integers (std::vector<int>, std::array<int64_t, N>, ...).
template <class T>
struct strip_ref {
  using type = T;
};
template <class T>
struct strip_ref<T&> {
  using type = T;
};
template <class C, class = void>
struct list_of : bool_c<false> {};
template <class C>
struct list_of<C, void_t<decltype(declval_<const C&>().data()), decltype(declval_<const C&>().size())>>
    : bool_c<true> {
  using elem = typename strip_cv<typename strip_ref<decltype(*declval_<const C&>().data())>::type>::type;
};

inline attr_arg make_text_attr(const char* s, size_t n) noexcept {
  attr_arg a;
  a.kind = attr_kind::text;
  a.s = s ? s : "";
  a.n = s ? n : 0;
  return a;
}
template <class I>
attr_arg make_int_list_attr(const I* p, size_t n) noexcept {
  static_assert(dtype_is_integer(dtype_of<I>::value),
                "probe::op::attr: a list attribute holds integers (pass other data as an input)");
  attr_arg a;
  a.kind = attr_kind::ints;
  a.list = p;
  a.n = n;
  a.elem_size = static_cast<uint8_t>(sizeof(I));
  a.elem_signed = I(-1) < I(0);
  return a;
}
// One template, its kinds told apart at compile time (an overload set costs every TU more).
template <class T>
attr_arg make_attr(const T& v) noexcept {
  attr_arg a;
  if constexpr (same_type<T, bool>::value) {
    a.kind = attr_kind::boolean;
    a.i = v;
  } else if constexpr (dtype_is_integer(dtype_of<T>::value)) {
    a.i = static_cast<int64_t>(v);
  } else if constexpr (dtype_is_float(dtype_of<T>::value)) {
    a.kind = attr_kind::real;
    a.d = static_cast<double>(v);
  } else if constexpr (list_of<T>::value) {  // strings and lists alike: char elements make a string
    if constexpr (same_type<typename list_of<T>::elem, char>::value)
      a = make_text_attr(v.data(), static_cast<size_t>(v.size()));
    else
      a = make_int_list_attr(v.data(), static_cast<size_t>(v.size()));
  } else {  // const char*, or a string literal
    const char* s = v;
    a = make_text_attr(s, s ? __builtin_strlen(s) : 0);
  }
  return a;
}
}  // namespace detail

// The step (iteration) recorded with every op; dumps name it, compare can select it. One
// value for the whole process: every thread's ops are recorded with the step set last.
inline void set_step(int64_t step) noexcept { __atomic_store_n(&detail::g_step, step, __ATOMIC_RELAXED); }
inline int64_t next_step() noexcept { return __atomic_add_fetch(&detail::g_step, 1, __ATOMIC_RELAXED); }
inline int64_t current_step() noexcept { return __atomic_load_n(&detail::g_step, __ATOMIC_RELAXED); }

#if defined(PROBE_DISABLE)
class op {
 public:
  explicit op(const char*, const char* = "") noexcept {}
  op(const char*, const char*, int64_t) noexcept {}
  template <class S, class = typename detail::enable_if<detail::has_c_str<S>::value>::type>
  explicit op(const S&, const char* = "") noexcept {}
  op(const op&) = delete;
  op& operator=(const op&) = delete;
  template <class T>
  op& input(const char*, const T&) noexcept { return *this; }
  template <class T>
  op& output(const char*, const T&) noexcept { return *this; }
  template <class T>
  op& inout(const char*, const T&) noexcept { return *this; }
  template <class T>
  op& output_at_end(const char*, const T&) noexcept { return *this; }
  op& link(const char*, const char*) noexcept { return *this; }
  template <class T>
  op& attr(const char*, const T&) noexcept { return *this; }
  op& attr(const char*, std::initializer_list<int64_t>) noexcept { return *this; }
  void end() noexcept {}
  bool active() const noexcept { return false; }
  bool records_tensors() const noexcept { return false; }
  uint64_t sequence() const noexcept { return 0; }
};
#else
// A marked computation: inputs are recorded at once ("before"), outputs when given, or at scope
// end with output_at_end ("after"). A view given to input/output is read during that call
// only: the buffer may be freed as soon as it returns. Cannot be copied or moved.
class op {
 public:
  explicit op(const char* name, const char* type = "") noexcept {
    if (detail::gate_on(detail::gate_ops)) begun(detail::op_begin(name, type));
  }
  // An op of layer (or block, head, ...) `index`: named "L<index>.<name>", e.g.
  // op("rope", "RoPE", layer) is "L3.rope". The name is built only when the op is recorded.
  op(const char* name, const char* type, int64_t index) noexcept {
    if (detail::gate_on(detail::gate_ops)) begun(detail::op_begin_indexed(name, type, index));
  }
  template <class S, class = typename detail::enable_if<detail::has_c_str<S>::value>::type>
  explicit op(const S& name, const char* type = "") noexcept : op(name.c_str(), type) {}
  ~op() {
    if (PROBE_UNLIKELY(r_ != nullptr)) detail::op_end(r_);
  }
  // Ends the op here, before its scope does (its outputs are complete); later calls, and the
  // destructor, do nothing.
  void end() noexcept {
    if (PROBE_UNLIKELY(r_ != nullptr)) detail::op_end(r_);
    r_ = nullptr;
    tensors_ = false;
  }
  op(const op&) = delete;
  op& operator=(const op&) = delete;
  op(op&&) = delete;
  op& operator=(op&&) = delete;

  template <class T>
  op& input(const char* slot, const T& x) {
    if (PROBE_UNLIKELY(tensors_)) detail::op_tensor(r_, detail::io::in, slot, to_view(x));
    return *this;
  }
  template <class T>
  op& output(const char* slot, const T& x) {
    if (PROBE_UNLIKELY(tensors_)) detail::op_tensor(r_, detail::io::out, slot, to_view(x));
    return *this;
  }
  // Read-modify-write: the buffer is recorded now as input `slot` (its state before the op)
  // and again as output `slot` when the op ends (its state after).
  template <class T>
  op& inout(const char* slot, const T& x) {
    if (PROBE_UNLIKELY(tensors_)) detail::op_inout(r_, slot, to_view(x));
    return *this;
  }
  // The view is taken now, its values read when the scope ends (after the computation).
  template <class T>
  op& output_at_end(const char* slot, const T& x) {
    if (PROBE_UNLIKELY(tensors_)) detail::op_defer_output(r_, slot, to_view(x));
    return *this;
  }
  // Declares that input `slot` came from `producer_key` ("<op>#<occurrence>/out/<slot>"),
  // for engines whose buffers the memory-range matching cannot follow.
  op& link(const char* slot, const char* producer_key) noexcept {
    if (PROBE_UNLIKELY(r_ != nullptr)) detail::op_link(r_, slot, producer_key);
    return *this;
  }
  // An attribute of this execution (eps, axis, mode, ...): a number, a string or a small list
  // of integers. Recorded in the manifest, the text dump and the snapshot, and handed to the
  // op's kernel on replay; give it before the inputs so that a snapshot of a crash has it.
  template <class T>
  op& attr(const char* name, const T& value) noexcept {
    if (PROBE_UNLIKELY(r_ != nullptr)) detail::op_attr(r_, name, detail::make_attr(value));
    return *this;
  }
  op& attr(const char* name, std::initializer_list<int64_t> list) noexcept {
    if (PROBE_UNLIKELY(r_ != nullptr)) detail::op_attr(r_, name, detail::make_int_list_attr(list.begin(), list.size()));
    return *this;
  }
  bool active() const noexcept { return PROBE_UNLIKELY(r_ != nullptr); }
  // Whether some effect looks at this op's tensors (a dump, a breakpoint that captures them,
  // a trace's shapes, replay): when false (timing alone, or nothing) input/output/inout do
  // nothing, and an engine may skip building views for them.
  bool records_tensors() const noexcept { return PROBE_UNLIKELY(tensors_); }
  // Global sequence number of this execution (0 when probe is not recording ops).
  uint64_t sequence() const noexcept { return r_ ? detail::op_sequence(r_) : 0; }

 private:
  void begun(detail::op_record* r) noexcept {
    r_ = r;
    tensors_ = r && detail::op_records_tensors(r);
  }
  detail::op_record* r_ = nullptr;
  bool tensors_ = false;
};
#endif  // PROBE_DISABLE

// probe::wrap(name, fn, probe::in("x", x), probe::out("y", y)): runs fn as one op. fn is
// called with the wrapped values in order when it accepts them, else with no arguments. Each
// value reaches fn as the caller holds it: a const object stays const.
template <class T>
struct in_arg {
  const char* slot;
  T& value;  // T is const where the caller's object is
};
template <class T>
struct out_arg {
  const char* slot;
  T& value;
};
template <class T>
in_arg<typename detail::strip_ref<T>::type> in(const char* slot, T&& value) noexcept {
  return {slot, value};
}
template <class T>
out_arg<typename detail::strip_ref<T>::type> out(const char* slot, T&& value) noexcept {
  return {slot, value};
}

namespace detail {
template <class T>
void wrap_in(op& o, const in_arg<T>& a) {
  o.input(a.slot, a.value);
}
template <class T>
void wrap_in(op&, const out_arg<T>&) {}
template <class T>
void wrap_out(op&, const in_arg<T>&) {}
template <class T>
void wrap_out(op& o, const out_arg<T>& a) {
  o.output(a.slot, a.value);
}
template <class T>
T& wrap_value(const in_arg<T>& a) {
  return a.value;
}
template <class T>
T& wrap_value(const out_arg<T>& a) {
  return a.value;
}

template <class F, class = void, class... A>
struct call_with_values : bool_c<false> {};
template <class F, class... A>
struct call_with_values<F, void_t<decltype(declval_<F&>()(wrap_value(declval_<const A&>())...))>, A...>
    : bool_c<true> {};

template <class F, class... A>
decltype(auto) wrap_call(bool_c<true>, F& fn, const A&... a) {
  return fn(wrap_value(a)...);
}
template <class F, class... A>
decltype(auto) wrap_call(bool_c<false>, F& fn, const A&...) {
  return fn();
}

template <class T>
struct is_void_type : bool_c<false> {};
template <>
struct is_void_type<void> : bool_c<true> {};
}  // namespace detail

template <class F, class... A>
decltype(auto) wrap(const char* name, F&& fn, const A&... a) {
  op o(name);
  if (o.active()) (detail::wrap_in(o, a), ...);
  using call_tag = detail::bool_c<detail::call_with_values<F, void, A...>::value>;
  using result_t = decltype(detail::wrap_call(call_tag{}, fn, a...));
  if constexpr (detail::is_void_type<result_t>::value) {
    detail::wrap_call(call_tag{}, fn, a...);
    if (o.active()) (detail::wrap_out(o, a), ...);
  } else {
    decltype(auto) result = detail::wrap_call(call_tag{}, fn, a...);
    if (o.active()) (detail::wrap_out(o, a), ...);
    return result;
  }
}

PROBE_END_NAMESPACE
