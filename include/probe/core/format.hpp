// probe::format("x={} y={:.3f}", x, y) -> std::string, with tensors printed as numpy does.
// Light header: arguments are erased into a small array of detail::format_arg here; all the
// formatting happens out of line (core/format_impl.hpp, core/format_tensor_impl.hpp).
//
// The format grammar is std::format's subset: "{}" or "{N}" with an optional ":spec",
// spec = [[fill]align][sign][#][0][width][.precision][type], "{{" and "}}" for braces.
// Where the compiler has consteval (C++20), a literal format string is checked at compile
// time; otherwise (C++17) the same check runs when it is formatted.
//
// std::string comes from a declaration only (libstdc++'s <bits/stringfwd.h>, else <iosfwd>):
// the functions below are templates whose return type depends on their arguments, so they
// are instantiated only in code that calls them, where <string> is included
// (PROBE_SEPARATE_IMPLEMENTATION keeps marking TUs free of <string>). With PROBE_DISABLE,
// formatting compiles to nothing: probe::format returns an empty string and probe::format_to
// appends nothing.
#pragma once
#if defined(__has_include)
#if __has_include(<bits/stringfwd.h>)
#include <bits/stringfwd.h>  // libstdc++: std::string's declaration alone, a third of <iosfwd>
#define PROBE_HAVE_STRINGFWD 1
#endif
#endif
#if !defined(PROBE_HAVE_STRINGFWD)
#include <iosfwd>
#endif

#include "tensor_view.hpp"

#if defined(__cpp_consteval) && __cpp_consteval >= 201811L
#define PROBE_FORMAT_CONSTEVAL 1
#else
#define PROBE_FORMAT_CONSTEVAL 0
#endif

PROBE_BEGIN_NAMESPACE
namespace detail {

// ---- the format grammar, shared by the compile-time check and the formatter ----

enum class format_error : uint8_t {
  none = 0,
  unmatched_open,      // '{' without its '}'
  unmatched_close,     // '}' that is not part of "}}"
  bad_spec,            // what follows ':' is not a format spec
  mixed_indexing,      // "{}" and "{N}" in one format
  too_few_arguments,   // more placeholders than arguments
  too_many_arguments,  // more arguments than placeholders
  index_out_of_range,  // "{N}" with N >= number of arguments
  unused_argument,     // "{N}" style leaves an argument out
};

struct format_spec {
  char fill = ' ';
  char align = 0;      // '<', '>', '^', or 0 for the kind's default
  char sign = 0;       // '+', ' ', '-', or 0
  bool alternate = false;  // '#'
  bool zero_pad = false;   // '0'
  int width = 0;
  int precision = -1;
  char type = 0;       // one of "sdxXobBcpeEfFgG%", or 0
};

constexpr int format_max_width = 4096;
constexpr int format_max_precision = 200;

constexpr bool format_spec_type(char c) noexcept {
  const char types[] = "sdxXobBcpeEfFgG%";
  for (char t : types)
    if (t && t == c) return true;
  return false;
}

// Parses a spec in [s + i, s + n) up to (not including) the closing '}'. Returns the index
// of that '}', or n when the spec is malformed.
constexpr bool format_align_char(char c) noexcept { return c == '<' || c == '>' || c == '^'; }
constexpr size_t parse_format_spec(const char* s, size_t i, size_t n, format_spec& out) noexcept {
  if (i + 1 < n && s[i] != '{' && s[i] != '}' && format_align_char(s[i + 1])) {
    out.fill = s[i];
    out.align = s[i + 1];
    i += 2;
  } else if (i < n && format_align_char(s[i])) {
    out.align = s[i++];
  }
  if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) out.sign = s[i++];
  if (i < n && s[i] == '#') {
    out.alternate = true;
    ++i;
  }
  if (i < n && s[i] == '0') {
    out.zero_pad = true;
    ++i;
  }
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    out.width = out.width * 10 + (s[i++] - '0');
    if (out.width > format_max_width) return n;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || s[i] < '0' || s[i] > '9') return n;
    out.precision = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
      out.precision = out.precision * 10 + (s[i++] - '0');
      if (out.precision > format_max_precision) return n;
    }
  }
  if (i < n && format_spec_type(s[i])) out.type = s[i++];
  return i < n && s[i] == '}' ? i : n;
}

// One "{...}" starting at s[i] == '{' (not "{{"). On success returns the index after the
// closing '}' and sets *index (-1 for "{}") and *spec; on failure sets *error.
constexpr size_t parse_placeholder(const char* s, size_t i, size_t n, int* index, format_spec* spec,
                                   format_error* error) noexcept {
  ++i;
  *index = -1;
  if (i < n && s[i] >= '0' && s[i] <= '9') {
    int v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + (s[i++] - '0');
      if (v > 1000000) v = 1000000;
    }
    *index = v;
  }
  if (i < n && s[i] == ':') {
    const size_t close = parse_format_spec(s, i + 1, n, *spec);
    if (close >= n) {
      // Tell "x={:.3f" (no '}') from "{:q}" (a bad spec).
      size_t j = i;
      while (j < n && s[j] != '}') ++j;
      *error = j >= n ? format_error::unmatched_open : format_error::bad_spec;
      return n;
    }
    return close + 1;
  }
  if (i < n && s[i] == '}') return i + 1;
  size_t j = i;
  while (j < n && s[j] != '}') ++j;
  *error = j >= n ? format_error::unmatched_open : format_error::bad_spec;
  return n;
}

struct format_check {
  format_error error = format_error::none;
  size_t pos = 0;      // where in the format string
  int placeholders = 0;
};

// Checks a whole format string against the number of arguments.
constexpr format_check check_format(const char* s, size_t n, int nargs) noexcept {
  format_check r;
  int automatic = 0;
  bool manual = false;
  uint64_t used = 0;  // manual indexing: which of the first 64 arguments appear
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == '}') {
      if (i + 1 < n && s[i + 1] == '}') {
        ++i;
        continue;
      }
      r.error = format_error::unmatched_close;
      r.pos = i;
      return r;
    }
    if (s[i] != '{') continue;
    if (i + 1 < n && s[i + 1] == '{') {
      ++i;
      continue;
    }
    int index = -1;
    format_spec spec;
    format_error e = format_error::none;
    const size_t next = parse_placeholder(s, i, n, &index, &spec, &e);
    if (e != format_error::none) {
      r.error = e;
      r.pos = i;
      return r;
    }
    ++r.placeholders;
    if (index < 0) {
      if (manual) {
        r.error = format_error::mixed_indexing;
        r.pos = i;
        return r;
      }
      if (automatic >= nargs) {
        r.error = format_error::too_few_arguments;
        r.pos = i;
        return r;
      }
      ++automatic;
    } else {
      if (automatic > 0) {
        r.error = format_error::mixed_indexing;
        r.pos = i;
        return r;
      }
      manual = true;
      if (index >= nargs) {
        r.error = format_error::index_out_of_range;
        r.pos = i;
        return r;
      }
      if (index < 64) used |= uint64_t(1) << index;
    }
    i = next - 1;
  }
  if (!manual && automatic < nargs) {
    r.error = format_error::too_many_arguments;
    r.pos = n;
  }
  if (manual) {
    for (int a = 0; a < nargs && a < 64; ++a)
      if (!(used >> a & 1)) {
        r.error = format_error::unused_argument;
        r.pos = n;
        break;
      }
  }
  return r;
}

constexpr size_t format_strlen(const char* s) noexcept {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

#if PROBE_FORMAT_CONSTEVAL
// Never defined: a literal format string that fails the check calls one of these during
// constant evaluation, and the compiler's error names it.
void format_string_has_unmatched_open_brace();
void format_string_has_unmatched_close_brace();
void format_string_has_a_bad_format_spec();
void format_string_mixes_automatic_and_manual_indexing();
void format_string_has_more_placeholders_than_arguments();
void format_string_has_fewer_placeholders_than_arguments();
void format_string_has_an_argument_index_out_of_range();
void format_string_leaves_an_argument_unused();

consteval void report_format_error(format_error e) {
  switch (e) {
    case format_error::none: break;
    case format_error::unmatched_open: format_string_has_unmatched_open_brace(); break;
    case format_error::unmatched_close: format_string_has_unmatched_close_brace(); break;
    case format_error::bad_spec: format_string_has_a_bad_format_spec(); break;
    case format_error::mixed_indexing: format_string_mixes_automatic_and_manual_indexing(); break;
    case format_error::too_few_arguments: format_string_has_more_placeholders_than_arguments(); break;
    case format_error::too_many_arguments: format_string_has_fewer_placeholders_than_arguments(); break;
    case format_error::index_out_of_range: format_string_has_an_argument_index_out_of_range(); break;
    case format_error::unused_argument: format_string_leaves_an_argument_unused(); break;
  }
}
#endif

template <class T>
struct type_identity {
  using type = T;
};
template <class T, class...>
struct dependent_type {
  using type = T;
};

template <class P>
struct is_char_pointer : bool_c<false> {};
template <>
struct is_char_pointer<char*> : bool_c<true> {};
template <>
struct is_char_pointer<const char*> : bool_c<true> {};

// std::string, std::string_view and look-alikes: traits_type, and data()/size() of char.
template <class S, class = void>
struct is_string_like : bool_c<false> {};
template <class S>
struct is_string_like<S, void_t<typename S::traits_type, decltype(declval_<const S&>().size())>>
    : is_char_pointer<decltype(declval_<const S&>().data())> {};

}  // namespace detail

// A format string where formatting needs it known. Built implicitly from a string literal
// (checked at compile time under C++20), from std::string/std::string_view-like objects,
// or from probe::runtime_format(s) for a format only known at run time.
struct runtime_format_string {
  const char* str;
  size_t len;
};
constexpr runtime_format_string runtime_format(const char* s) noexcept {
  return {s ? s : "", s ? detail::format_strlen(s) : 0};
}
template <class S, class = typename detail::enable_if<detail::is_string_like<S>::value>::type>
runtime_format_string runtime_format(const S& s) noexcept {
  return {s.data(), static_cast<size_t>(s.size())};
}

template <class... Args>
class format_string {
 public:
#if PROBE_FORMAT_CONSTEVAL
  consteval format_string(const char* s) : str_(s), len_(detail::format_strlen(s)) {  // NOLINT
    detail::report_format_error(detail::check_format(s, len_, static_cast<int>(sizeof...(Args))).error);
  }
#else
  constexpr format_string(const char* s) noexcept : str_(s ? s : ""), len_(s ? detail::format_strlen(s) : 0) {}  // NOLINT
#endif
  template <class S, class = typename detail::enable_if<detail::is_string_like<S>::value>::type>
  format_string(const S& s) noexcept : str_(s.data()), len_(static_cast<size_t>(s.size())) {}  // NOLINT
  constexpr format_string(runtime_format_string r) noexcept : str_(r.str), len_(r.len) {}  // NOLINT
  constexpr const char* data() const noexcept { return str_; }
  constexpr size_t size() const noexcept { return len_; }

 private:
  const char* str_;
  size_t len_;
};

namespace detail {

// ---- type-erased arguments ----

enum class arg_kind : uint8_t {
  none = 0,
  boolean,
  character,
  signed_int,
  unsigned_int,
  float32,
  float64,
  string,
  pointer,
  tensor,
};

// One argument, erased: what the formatter needs and nothing that owns memory. Effects that
// format later (asynchronous prints) point `str` and `view` at copies they own.
struct format_arg {
  arg_kind kind = arg_kind::none;
  union {
    int64_t i = 0;
    uint64_t u;
    double d;
    float f;
    bool b;
    char c;
    const void* p;
  };
  const char* str = nullptr;  // string: bytes, not NUL-terminated
  size_t len = 0;
  tensor_view view{};         // tensor
};

template <class T>
struct is_pointer_type : bool_c<false> {};
template <class T>
struct is_pointer_type<T*> : bool_c<true> {
  using pointee = T;
};
struct not_an_array {};
template <class T>
struct array_traits {
  static constexpr bool is_array = false;
  using element = not_an_array;
  static constexpr size_t size = 0;
};
template <class E, size_t N>
struct array_traits<E[N]> {
  static constexpr bool is_array = true;
  using element = E;
  static constexpr size_t size = N;
};
template <class T>
struct always_false : bool_c<false> {};

template <class T>
format_arg make_format_arg(const T& x) {
  using U = typename strip_cv<T>::type;
  format_arg a;
  if constexpr (same_type<U, bool>::value) {
    a.kind = arg_kind::boolean;
    a.b = x;
  } else if constexpr (same_type<U, char>::value) {
    a.kind = arg_kind::character;
    a.c = x;
  } else if constexpr (__is_enum(U)) {
    return make_format_arg(static_cast<__underlying_type(U)>(x));
  } else if constexpr (dtype_is_signed_int(dtype_of<U>::value)) {
    a.kind = arg_kind::signed_int;
    a.i = static_cast<int64_t>(x);
  } else if constexpr (dtype_is_unsigned_int(dtype_of<U>::value)) {
    a.kind = arg_kind::unsigned_int;
    a.u = static_cast<uint64_t>(x);
  } else if constexpr (same_type<U, float>::value) {
    a.kind = arg_kind::float32;
    a.f = x;
  } else if constexpr (same_type<U, double>::value || same_type<U, long double>::value) {
    a.kind = arg_kind::float64;
    a.d = static_cast<double>(x);
  } else if constexpr (array_traits<U>::is_array &&
                       same_type<typename strip_cv<typename array_traits<U>::element>::type, char>::value) {
    // A char array: a literal, or a buffer holding a NUL-terminated string.
    size_t n = 0;
    while (n < array_traits<U>::size && x[n]) ++n;
    a.kind = arg_kind::string;
    a.str = x;
    a.len = n;
  } else if constexpr (is_char_pointer<U>::value) {
    a.kind = arg_kind::string;
    a.str = x ? x : "(null)";
    a.len = format_strlen(a.str);
  } else if constexpr (is_string_like<U>::value) {
    a.kind = arg_kind::string;
    a.str = x.data();
    a.len = static_cast<size_t>(x.size());
  } else if constexpr (same_type<U, decltype(nullptr)>::value) {
    a.kind = arg_kind::pointer;
    a.p = nullptr;
  } else if constexpr (is_pointer_type<U>::value) {
    a.kind = arg_kind::pointer;
    using pointee = typename is_pointer_type<U>::pointee;
    if constexpr (same_type<const pointee, pointee>::value)  // a function type: const does not apply to it
      a.p = reinterpret_cast<const void*>(x);
    else
      a.p = const_cast<const void*>(static_cast<const volatile void*>(x));
  } else if constexpr (array_traits<U>::is_array && has_dtype<typename array_traits<U>::element>) {
    a.kind = arg_kind::tensor;
    a.view = ::probe::view(&x[0], static_cast<int64_t>(array_traits<U>::size));
  } else if constexpr (is_viewable<U>) {
    a.kind = arg_kind::tensor;
    a.view = to_view(x);
  } else {
    static_assert(always_false<U>::value,
                  "probe::format: cannot format this type; give it an ADL function "
                  "`probe::tensor_view probe_view(const T&)`, or convert it first");
  }
  return a;
}

#if !defined(PROBE_DISABLE)
// Formats `fmt` with erased arguments, appending to `out`. On a malformed format or a
// placeholder/argument mismatch, appends a message saying so instead (and logs the first
// such error once); returns false then. Never throws.
PROBE_API bool vformat_to(std::string& out, const char* fmt, size_t fmt_len, const format_arg* args,
                           int nargs) noexcept;
#endif

}  // namespace detail

// Appends the formatted text to `out`.
template <class... Args>
void format_to(typename detail::dependent_type<std::string, Args...>::type& out,
               format_string<typename detail::type_identity<Args>::type...> fmt, const Args&... args) {
#if defined(PROBE_DISABLE)
  (void)out;
  (void)fmt;
  ((void)args, ...);
#else
  const detail::format_arg erased[sizeof...(Args) + 1] = {detail::make_format_arg(args)..., {}};
  detail::vformat_to(out, fmt.data(), fmt.size(), erased, static_cast<int>(sizeof...(Args)));
#endif
}

// The formatted text.
template <class... Args>
typename detail::dependent_type<std::string, Args...>::type format(
    format_string<typename detail::type_identity<Args>::type...> fmt, const Args&... args) {
  typename detail::dependent_type<std::string, Args...>::type out;
#if defined(PROBE_DISABLE)
  (void)fmt;
  ((void)args, ...);
#else
  const detail::format_arg erased[sizeof...(Args) + 1] = {detail::make_format_arg(args)..., {}};
  detail::vformat_to(out, fmt.data(), fmt.size(), erased, static_cast<int>(sizeof...(Args)));
#endif
  return out;
}

PROBE_END_NAMESPACE
