// Element types: the dtype enum, its properties, and the C++ type -> dtype mapping.
// Light header: no standard library beyond the C integer headers.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE

enum class dtype : uint8_t {
  invalid = 0,
  boolean,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  float32,
  float64,
  complex64,
  complex128,
};
constexpr int dtype_count = 16;

// IEEE binary16 and bfloat16 as raw bits; conversions live in core/half.hpp.
struct float16 {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};

constexpr size_t dtype_size(dtype t) noexcept {
  switch (t) {
    case dtype::boolean: case dtype::int8: case dtype::uint8: return 1;
    case dtype::int16: case dtype::uint16: case dtype::float16: case dtype::bfloat16: return 2;
    case dtype::int32: case dtype::uint32: case dtype::float32: return 4;
    case dtype::int64: case dtype::uint64: case dtype::float64: case dtype::complex64: return 8;
    case dtype::complex128: return 16;
    default: return 0;
  }
}

// The name used in manifests, prints and the CLI (numpy's spelling where numpy has one).
constexpr const char* dtype_name(dtype t) noexcept {
  switch (t) {
    case dtype::boolean: return "bool";
    case dtype::int8: return "int8";
    case dtype::int16: return "int16";
    case dtype::int32: return "int32";
    case dtype::int64: return "int64";
    case dtype::uint8: return "uint8";
    case dtype::uint16: return "uint16";
    case dtype::uint32: return "uint32";
    case dtype::uint64: return "uint64";
    case dtype::float16: return "float16";
    case dtype::bfloat16: return "bfloat16";
    case dtype::float32: return "float32";
    case dtype::float64: return "float64";
    case dtype::complex64: return "complex64";
    case dtype::complex128: return "complex128";
    default: return "invalid";
  }
}

constexpr bool dtype_is_float(dtype t) noexcept {
  return t == dtype::float16 || t == dtype::bfloat16 || t == dtype::float32 ||
         t == dtype::float64;
}
constexpr bool dtype_is_complex(dtype t) noexcept {
  return t == dtype::complex64 || t == dtype::complex128;
}
constexpr bool dtype_is_signed_int(dtype t) noexcept {
  return t == dtype::int8 || t == dtype::int16 || t == dtype::int32 || t == dtype::int64;
}
constexpr bool dtype_is_unsigned_int(dtype t) noexcept {
  return t == dtype::uint8 || t == dtype::uint16 || t == dtype::uint32 || t == dtype::uint64;
}
constexpr bool dtype_is_integer(dtype t) noexcept {
  return dtype_is_signed_int(t) || dtype_is_unsigned_int(t);
}

namespace detail {
template <class T>
T&& declval_() noexcept;
template <class...>
using void_t = void;
template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
  using type = T;
};
template <bool B>
struct bool_c {
  static constexpr bool value = B;
};
template <class A, class B>
struct same_type : bool_c<false> {};
template <class A>
struct same_type<A, A> : bool_c<true> {};
template <class T>
struct strip_cv {
  using type = T;
};
template <class T>
struct strip_cv<const T> {
  using type = T;
};
template <class T>
struct strip_cv<volatile T> {
  using type = T;
};
template <class T>
struct strip_cv<const volatile T> {
  using type = T;
};

template <size_t Size, bool Signed>
struct int_dtype {
  static constexpr dtype value = dtype::invalid;
};
template <> struct int_dtype<1, true> { static constexpr dtype value = dtype::int8; };
template <> struct int_dtype<2, true> { static constexpr dtype value = dtype::int16; };
template <> struct int_dtype<4, true> { static constexpr dtype value = dtype::int32; };
template <> struct int_dtype<8, true> { static constexpr dtype value = dtype::int64; };
template <> struct int_dtype<1, false> { static constexpr dtype value = dtype::uint8; };
template <> struct int_dtype<2, false> { static constexpr dtype value = dtype::uint16; };
template <> struct int_dtype<4, false> { static constexpr dtype value = dtype::uint32; };
template <> struct int_dtype<8, false> { static constexpr dtype value = dtype::uint64; };

template <class T>
struct int_of {
  static constexpr dtype value = int_dtype<sizeof(T), (T(-1) < T(0))>::value;
};

// std::complex and look-alikes: real()/imag() of float or double, two of them in size.
template <class T, class = void>
struct complex_of {
  static constexpr dtype value = dtype::invalid;
};
template <class T>
struct complex_of<T, void_t<decltype(declval_<const T&>().real()),
                            decltype(declval_<const T&>().imag())>> {
  static constexpr dtype value =
      sizeof(T) == 8 && sizeof(declval_<const T&>().real()) == 4    ? dtype::complex64
      : sizeof(T) == 16 && sizeof(declval_<const T&>().real()) == 8 ? dtype::complex128
                                                                    : dtype::invalid;
};
}  // namespace detail

// dtype_of<T>::value maps a C++ element type to its dtype (invalid when unknown).
// Engines with their own half types specialize it:
//   template <> struct probe::dtype_of<__half> { static constexpr auto value = probe::dtype::float16; };
template <class T>
struct dtype_of : detail::complex_of<T> {};
template <class T> struct dtype_of<const T> : dtype_of<T> {};
template <class T> struct dtype_of<volatile T> : dtype_of<T> {};
template <class T> struct dtype_of<const volatile T> : dtype_of<T> {};
template <> struct dtype_of<bool> { static constexpr dtype value = dtype::boolean; };
template <> struct dtype_of<char> : detail::int_of<char> {};
template <> struct dtype_of<signed char> : detail::int_of<signed char> {};
template <> struct dtype_of<unsigned char> : detail::int_of<unsigned char> {};
template <> struct dtype_of<short> : detail::int_of<short> {};
template <> struct dtype_of<unsigned short> : detail::int_of<unsigned short> {};
template <> struct dtype_of<int> : detail::int_of<int> {};
template <> struct dtype_of<unsigned> : detail::int_of<unsigned> {};
template <> struct dtype_of<long> : detail::int_of<long> {};
template <> struct dtype_of<unsigned long> : detail::int_of<unsigned long> {};
template <> struct dtype_of<long long> : detail::int_of<long long> {};
template <> struct dtype_of<unsigned long long> : detail::int_of<unsigned long long> {};
template <> struct dtype_of<float> { static constexpr dtype value = dtype::float32; };
template <> struct dtype_of<double> { static constexpr dtype value = dtype::float64; };
template <> struct dtype_of<float16> { static constexpr dtype value = dtype::float16; };
template <> struct dtype_of<bfloat16> { static constexpr dtype value = dtype::bfloat16; };

template <class T>
constexpr bool has_dtype = dtype_of<T>::value != dtype::invalid;

PROBE_END_NAMESPACE

// CUDA's half types, when their headers were included before probe's.
#if defined(__CUDA_FP16_TYPES_EXIST__)
PROBE_BEGIN_NAMESPACE
template <> struct dtype_of<__half> { static constexpr dtype value = dtype::float16; };
PROBE_END_NAMESPACE
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__)
PROBE_BEGIN_NAMESPACE
template <> struct dtype_of<__nv_bfloat16> { static constexpr dtype value = dtype::bfloat16; };
PROBE_END_NAMESPACE
#endif
