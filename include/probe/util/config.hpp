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
// PROBE_DISABLE's empty classes live in a namespace of their own: a program whose files
// disagree on PROBE_DISABLE links both, instead of one file's constructor running on the
// other's (smaller) object.
#if defined(PROBE_DISABLE)
#define PROBE_BEGIN_NAMESPACE \
  namespace probe {           \
  inline namespace v0_disabled {
#else
#define PROBE_BEGIN_NAMESPACE \
  namespace probe {           \
  inline namespace v0 {
#endif
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

// PROBE_API marks a function defined out of line, in a module's *_impl.hpp: `inline` in
// header-only mode (every TU that includes probe.hpp sees the definition), an ordinary
// external function when the implementation is compiled once (probe::compiled, or the one
// TU that defines PROBE_IMPLEMENTATION).
#if defined(PROBE_SEPARATE_IMPLEMENTATION)
#define PROBE_API
#else
#define PROBE_API inline
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

#define PROBE_CONCAT_INNER(a, b) a##b
#define PROBE_CONCAT(a, b) PROBE_CONCAT_INNER(a, b)
