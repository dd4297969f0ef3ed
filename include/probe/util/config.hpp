// probe — build configuration shared by every header.
//
// Three ways to compile the library, chosen by macros defined for the whole build:
//   (default)                       header-only: every function is `inline`.
//   PROBE_SEPARATE_IMPLEMENTATION   headers carry declarations and inline fast paths only;
//                                   exactly one TU defines PROBE_IMPLEMENTATION first.
//   PROBE_DISABLE                   every mark compiles to nothing.
#pragma once

#define PROBE_VERSION_MAJOR 0
#define PROBE_VERSION_MINOR 1
#define PROBE_VERSION_PATCH 0
#define PROBE_VERSION_STRING "0.1.0"

// Versioned inline namespace: two probe versions linked into one program do not collide.
#define PROBE_BEGIN_NAMESPACE \
  namespace probe {           \
  inline namespace v0 {
#define PROBE_END_NAMESPACE \
  }                         \
  }

// Whether this TU compiles the out-of-line implementation.
#if defined(PROBE_DISABLE)
#define PROBE_HAS_IMPLEMENTATION 0
#elif !defined(PROBE_SEPARATE_IMPLEMENTATION) || defined(PROBE_IMPLEMENTATION)
#define PROBE_HAS_IMPLEMENTATION 1
#else
#define PROBE_HAS_IMPLEMENTATION 0
#endif

// Deferral (docs/internals.md): in header-only mode every out-of-line function is a template
// with one defaulted parameter, so a TU that only includes probe.hpp parses the bodies but
// analyses and instantiates none of them; the first call (f(...) picks f<0>) instantiates
// what it reaches. A declaration and its later definition must not both repeat the default:
// PROBE_FUNC declares (or defines, when there is no earlier declaration), PROBE_FUNC_DEF
// defines what PROBE_FUNC declared.
//   PROBE_FUNC / _DEF     header-only: deferred inline; separate: an ordinary external function.
//   PROBE_INLINE / _DEF   deferred inline in every mode (helpers of headers any TU may include).
//   PROBE_DEFER           public fast paths that reach the implementation (constructors, member
//                         functions): a template in header-only mode, plain otherwise.
//   PROBE_DEFERRED(f)     names such a function where a call cannot pick the default (&f).
//   PROBE_LAZY(T)         T, completed only when the enclosing PROBE_INLINE function is
//                         instantiated (a class-template local, such as a container of T, is
//                         completed even in a template that is never used).
#define PROBE_INLINE template <int probe_n_ = 0> inline
#define PROBE_INLINE_DEF template <int probe_n_> inline
#define PROBE_LAZY(...) typename ::probe::detail::deferred<__VA_ARGS__, probe_n_>::type
#if defined(PROBE_SEPARATE_IMPLEMENTATION)
#define PROBE_FUNC
#define PROBE_FUNC_DEF
#define PROBE_DEFER
#define PROBE_DEFERRED(f) f
#else
#define PROBE_FUNC PROBE_INLINE
#define PROBE_FUNC_DEF PROBE_INLINE_DEF
#define PROBE_DEFER template <int = 0>
#define PROBE_DEFERRED(f) f<>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PROBE_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROBE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PROBE_ALWAYS_INLINE inline __attribute__((always_inline))
#define PROBE_NOINLINE __attribute__((noinline))
#define PROBE_COLD __attribute__((cold, noinline))
#define PROBE_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PROBE_LIKELY(x) (x)
#define PROBE_UNLIKELY(x) (x)
#define PROBE_ALWAYS_INLINE inline
#define PROBE_NOINLINE
#define PROBE_COLD
#define PROBE_PRINTF_LIKE(f, a)
#endif

#if defined(__CUDACC__) && !defined(PROBE_WITH_CUDA)
#define PROBE_WITH_CUDA 1
#endif

PROBE_BEGIN_NAMESPACE
namespace detail {
// T, named through a template parameter: a dependent type, completed at instantiation.
template <class T, int>
struct deferred {
  using type = T;
};
template <class T, class>
struct deferred_on {
  using type = T;
};
}  // namespace detail
PROBE_END_NAMESPACE

#define PROBE_CONCAT_INNER(a, b) a##b
#define PROBE_CONCAT(a, b) PROBE_CONCAT_INNER(a, b)
