// Debug effects in the spirit of jax.debug: probe::print, probe::callback,
// probe::effects_barrier. Light header.
//
//   probe::print("step {}: x = {}", step, x);              // x: any tensor; summarized like numpy
//   probe::print(probe::ordered, "rank {} done", rank);    // program order across threads
//   probe::callback([](int s, probe::tensor_view y) { ... }, step, y);
//   probe::effects_barrier();                               // everything above has run
//
// Arguments are captured when the call is made: numbers by value, strings copied, tensors
// deep-copied (device tensors through the device backend). Formatting, writing and running
// callbacks happen later on probe's worker thread, so the caller pays for the copy only. A
// callback receives numbers as they were passed, strings as `const char*` and tensors as a
// host, contiguous `probe::tensor_view` of the captured copy; those pointers are valid while
// the callback runs. Any other copyable type is passed as a copy. docs/debug.md has the rules.
#pragma once
#include "../core/format.hpp"
#include "../core/gate.hpp"

PROBE_BEGIN_NAMESPACE

// Tag for the ordered forms: the effect takes a place in one global order that follows the
// program's order across threads (a print that happens-before another comes out before it).
struct ordered_t {
  explicit constexpr ordered_t(int) noexcept {}
};
inline constexpr ordered_t ordered{0};

#if !defined(PROBE_DISABLE)
namespace detail {

struct effect_record;  // effects/effect_queue_impl.hpp

// A callback with its captured arguments, run once on the worker thread.
class callback_task {
 public:
  virtual ~callback_task() = default;
  virtual void run() = 0;
};

// Captures the erased arguments (strings and tensors are copied) and queues the print.
PROBE_API void print_submit(bool ordered, const char* fmt, size_t fmt_len, const format_arg* args,
                             int nargs) noexcept;

// A callback is built in three steps: a record, the captures it owns, then the task.
PROBE_API effect_record* callback_begin(bool ordered) noexcept;
PROBE_API const char* callback_capture_string(effect_record* r, const char* s, size_t n) noexcept;
PROBE_API tensor_view callback_capture_tensor(effect_record* r, const tensor_view& v) noexcept;
PROBE_API void* callback_alloc(size_t bytes) noexcept;
PROBE_API void callback_free(void* p) noexcept;
// Queues the record with its task; a null task (out of memory) drops the record with a message.
PROBE_API void callback_commit(effect_record* r, callback_task* task) noexcept;
PROBE_API void effects_barrier_impl() noexcept;

// ---- what a callback argument becomes ----

template <class T>
struct value_slot {
  T value;
  T& get() noexcept { return value; }
};
struct string_slot {
  const char* text;
  const char* get() const noexcept { return text; }
};
struct tensor_slot {
  tensor_view view;
  const tensor_view& get() const noexcept { return view; }
};

enum class capture_kind { value, string, tensor };

template <class U>
constexpr capture_kind capture_kind_of() {
  if constexpr (has_dtype<U> || __is_enum(U) || same_type<U, decltype(nullptr)>::value) {
    return capture_kind::value;
  } else if constexpr (is_char_pointer<U>::value || is_string_like<U>::value) {
    return capture_kind::string;
  } else if constexpr (array_traits<U>::is_array) {
    using E = typename strip_cv<typename array_traits<U>::element>::type;
    if constexpr (same_type<E, char>::value) return capture_kind::string;
    else return capture_kind::tensor;
  } else if constexpr (is_pointer_type<U>::value) {
    return capture_kind::value;
  } else if constexpr (is_viewable<U>) {
    return capture_kind::tensor;
  } else {
    return capture_kind::value;
  }
}

template <class A, capture_kind K = capture_kind_of<typename strip_cv<A>::type>()>
struct capture_of;
template <class A>
struct capture_of<A, capture_kind::value> {
  using type = value_slot<typename strip_cv<A>::type>;
  static type make(effect_record*, const A& a) { return type{a}; }
};
template <class A>
struct capture_of<A, capture_kind::string> {
  using type = string_slot;
  static type make(effect_record* r, const A& a) noexcept {
    const format_arg f = make_format_arg(a);
    return type{callback_capture_string(r, f.str, f.len)};
  }
};
template <class A>
struct capture_of<A, capture_kind::tensor> {
  using type = tensor_slot;
  static type make(effect_record* r, const A& a) {
    if constexpr (array_traits<A>::is_array)
      return type{callback_capture_tensor(r, ::probe::view(&a[0], static_cast<int64_t>(array_traits<A>::size)))};
    else
      return type{callback_capture_tensor(r, to_view(a))};
  }
};

// A callable as it is stored: functions decay to pointers, references are dropped.
template <class F>
struct stored_fn {
  using type = typename strip_cv<F>::type;
};
template <class F>
struct stored_fn<F&> : stored_fn<F> {};
template <class F>
struct stored_fn<F&&> : stored_fn<F> {};
template <class R, class... A>
struct stored_fn<R(A...)> {
  using type = R (*)(A...);
};
template <class R, class... A>
struct stored_fn<R(A...) noexcept> {
  using type = R (*)(A...) noexcept;
};

template <size_t... I>
struct index_list {};
template <size_t N, size_t... I>
struct make_index_list : make_index_list<N - 1, N - 1, I...> {};
template <size_t... I>
struct make_index_list<0, I...> {
  using type = index_list<I...>;
};

template <size_t I, class S>
struct indexed_slot {
  S slot;
};
template <class Indices, class... S>
struct slot_pack;
template <size_t... I, class... S>
struct slot_pack<index_list<I...>, S...> : indexed_slot<I, S>... {
  explicit slot_pack(S&&... s) : indexed_slot<I, S>{static_cast<S&&>(s)}... {}
  template <class F>
  void call(F& fn) {
    fn(static_cast<indexed_slot<I, S>&>(*this).slot.get()...);
  }
};

template <class F, class... S>
class callback_closure final : public callback_task {
 public:
  template <class G>
  callback_closure(G&& fn, S&&... slots) : fn_(static_cast<G&&>(fn)), slots_(static_cast<S&&>(slots)...) {}
  void run() override { slots_.call(fn_); }

  // Allocation that reports failure as nullptr, without <new>.
  static void* operator new(size_t n) noexcept { return callback_alloc(n); }
  static void operator delete(void* p) noexcept { callback_free(p); }

 private:
  F fn_;
  slot_pack<typename make_index_list<sizeof...(S)>::type, S...> slots_;
};

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define PROBE_TRY try
#define PROBE_CATCH_ALL(...) catch (...) { __VA_ARGS__; }
#else
#define PROBE_TRY
#define PROBE_CATCH_ALL(...)
#endif

template <class... Args>
PROBE_NOINLINE void print_slow(bool ordered, const char* fmt, size_t len, const Args&... args) noexcept {
  const format_arg erased[sizeof...(Args) + 1] = {make_format_arg(args)..., {}};
  print_submit(ordered, fmt, len, erased, static_cast<int>(sizeof...(Args)));
}

template <class F, class... Args>
PROBE_NOINLINE void callback_slow(bool ordered, F&& fn, const Args&... args) noexcept {
  effect_record* r = callback_begin(ordered);
  if (!r) return;
  callback_task* task = nullptr;
  PROBE_TRY {
    task = new callback_closure<typename stored_fn<F>::type, typename capture_of<Args>::type...>(
        static_cast<F&&>(fn), capture_of<Args>::make(r, args)...);
  }
  PROBE_CATCH_ALL(task = nullptr)
  callback_commit(r, task);
}

}  // namespace detail
#endif  // PROBE_DISABLE

#if defined(PROBE_DISABLE)
template <class... Args>
void print(format_string<typename detail::type_identity<Args>::type...>, const Args&...) noexcept {}
template <class... Args>
void print(ordered_t, format_string<typename detail::type_identity<Args>::type...>, const Args&...) noexcept {}
template <class F, class... Args>
void callback(F&&, const Args&...) noexcept {}
template <class F, class... Args>
void callback(ordered_t, F&&, const Args&...) noexcept {}
inline void effects_barrier() noexcept {}
#else
// Formats like probe::format and writes one line (a newline is added when the text does not
// end with one) to stderr or --probe_print_to, asynchronously. Off with --probe_print=off.
template <class... Args>
void print(format_string<typename detail::type_identity<Args>::type...> fmt, const Args&... args) noexcept {
  if (PROBE_UNLIKELY(detail::gate_on(detail::gate_print))) detail::print_slow(false, fmt.data(), fmt.size(), args...);
}
template <class... Args>
void print(ordered_t, format_string<typename detail::type_identity<Args>::type...> fmt,
           const Args&... args) noexcept {
  if (PROBE_UNLIKELY(detail::gate_on(detail::gate_print))) detail::print_slow(true, fmt.data(), fmt.size(), args...);
}

// Runs fn(captured args...) on probe's worker thread. Off with --probe_callback=off. An
// exception fn throws is caught and reported once; it never reaches the caller.
template <class F, class... Args>
void callback(F&& fn, const Args&... args) noexcept {
  if (PROBE_UNLIKELY(detail::gate_on(detail::gate_callback)))
    detail::callback_slow(false, static_cast<F&&>(fn), args...);
}
template <class F, class... Args>
void callback(ordered_t, F&& fn, const Args&... args) noexcept {
  if (PROBE_UNLIKELY(detail::gate_on(detail::gate_callback)))
    detail::callback_slow(true, static_cast<F&&>(fn), args...);
}

// Waits until every print and callback made before this call (on any thread) has run,
// including device copies still in flight and what those callbacks queued while running.
// Inside a callback it runs what is queued and returns (the callback itself is running).
inline void effects_barrier() noexcept { detail::effects_barrier_impl(); }
#endif

PROBE_END_NAMESPACE
