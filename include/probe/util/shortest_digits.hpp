// The shortest decimal that reads back to the same IEEE double or float, exactly as
// std::to_chars(first, last, v, std::chars_format::scientific) writes it: the fewest
// significant digits that round to v, among those the one closest to v, a tie to the even
// last digit. Standalone and cheap to include: no <charconv> (which with the <bit> it pulls
// in costs ~60 M compiler instructions), not even <string.h>; deferred inline.
//
// The method is Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020): v and
// its rounding interval, scaled by a 126-bit upper approximation of 10^-k and rounded to odd,
// decide with a few integer comparisons which multiple of 10^k or 10^(k+1) in the interval
// is nearest v, where 10^k is the largest power of ten not above the interval's width.
// Unlike Java's Double.toString, which treats one- and two-digit results alike, the check
// for a multiple of 10^(k+1) runs whenever that multiple has fewer digits, as to_chars wants.
//
// The 617 powers of ten (126 bits each) are computed once, on first use (thread-safe local
// static), from exact big integers: ~15 us once per process, where a literal table would
// cost every TU that includes this header ~23 M compiler instructions to parse, twice what
// the whole header costs now (benchmarks/README.md, "Shortest float text").
#pragma once
#include <stdint.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// value = digits * 10^exponent; digits has no trailing zero (digits == 0 only for zero).
struct shortest_result {
  uint64_t digits = 0;
  int exponent = 0;
};

namespace shortest_impl {

// floor(e * log10(2)), floor(e * log10(2) + log10(3/4)) and floor(e * log2(10)); checked
// exactly for |e| <= 1200 (the exponents used here stay within 1100).
PROBE_INLINE constexpr int floor_log10_pow2(int e) { return (e * 315653) >> 20; }
PROBE_INLINE constexpr int floor_log10_three_quarters_pow2(int e) { return (e * 315653 - 131237) >> 20; }
PROBE_INLINE constexpr int floor_log2_pow10(int e) { return (e * 1741647) >> 19; }

constexpr int table_min = -292;  // 10^e for table_min <= e <= table_max
constexpr int table_max = 324;
constexpr uint64_t mask63 = (uint64_t{1} << 63) - 1;
__extension__ typedef unsigned __int128 uint128;  // a GCC/Clang extension: quiet under -pedantic

// g(e) = floor(10^e * 2^-r) + 1 in [2^125, 2^126) with r = floor_log2_pow10(e) - 125, stored
// as its high and low 63 bits. A class template so that nothing here is analysed until used.
template <int N = 0>
struct pow10_table {
  uint64_t g[2 * (table_max - table_min + 1)];

  // Big integers as little-endian 64-bit words; 5^324 needs 753 bits.
  static constexpr int words = 13;
  using u128 = uint128;

  static int bit_length(const uint64_t* a) noexcept {
    for (int i = words - 1; i >= 0; --i)
      if (a[i]) return 64 * i + 64 - __builtin_clzll(a[i]);
    return 0;
  }
  // Bits [from, from + 128) of a, for -128 < from <= 64 * (words - 2).
  static u128 bits_at(const uint64_t* a, int from) noexcept {
    if (from < 0) return (static_cast<u128>(a[1]) << 64 | a[0]) << -from;
    const int w = from / 64, b = from % 64;
    const auto word = [&](int i) -> uint64_t {
      if (i >= words) return 0;
      return b == 0 ? a[i] : (a[i] >> b) | (i + 1 < words ? a[i + 1] << (64 - b) : 0);
    };
    return static_cast<u128>(word(w + 1)) << 64 | word(w);
  }
  void put(int e, u128 v) noexcept {
    const int i = 2 * (e - table_min);
    g[i] = static_cast<uint64_t>(v >> 63);
    g[i + 1] = static_cast<uint64_t>(v) & mask63;
  }

  pow10_table() noexcept {
    uint64_t p[words] = {1};    // 5^m
    uint64_t old[words] = {};   // 5^(m-1)
    uint64_t rem[words] = {};   // 2^(125 + bitlen(5^m)) - q * 5^m, below 5^m
    u128 q = 0;                 // floor(2^(125 + bitlen(5^m)) / 5^m)
    int len = 1;                // bitlen(5^m)
    for (int m = 0; m <= table_max; ++m) {
      if (m > 0) {
        __builtin_memcpy(old, p, sizeof p);
        uint64_t carry = 0;
        for (int i = 0; i < words; ++i) {
          const u128 t = static_cast<u128>(p[i]) * 5 + carry;
          p[i] = static_cast<uint64_t>(t);
          carry = static_cast<uint64_t>(t >> 64);
        }
        const int new_len = bit_length(p);
        const int s = new_len - len;  // 2 or 3
        len = new_len;
        if (m == 1) {
          q = ~static_cast<u128>(0) / 5;  // floor(2^128 / 5), as 5 divides 2^128 - 1
          rem[0] = 1;
        } else {
          // 2^s q = 5a + b, so q' = floor(2^(A+s) / 5^m) = a + floor((b 5^(m-1) + 2^s rem) / 5^m).
          const u128 q0 = q / 5;
          const unsigned r0 = static_cast<unsigned>(q % 5) << s;
          q = (q0 << s) + r0 / 5;
          const uint64_t b = r0 % 5;
          uint64_t t[words];
          uint64_t c = 0;
          for (int i = 0; i < words; ++i) {
            const uint64_t shifted = (rem[i] << s) | (i ? rem[i - 1] >> (64 - s) : 0);
            const u128 x = static_cast<u128>(old[i]) * b + shifted + c;
            t[i] = static_cast<uint64_t>(x);
            c = static_cast<uint64_t>(x >> 64);
          }
          for (;;) {  // at most twice
            int i = words - 1;
            while (i > 0 && t[i] == p[i]) --i;
            if (t[i] < p[i]) break;
            uint64_t borrow = 0;
            for (int j = 0; j < words; ++j) {
              const uint64_t d = t[j] - p[j] - borrow;
              borrow = (t[j] < p[j] || (t[j] == p[j] && borrow)) ? 1 : 0;
              t[j] = d;
            }
            ++q;
          }
          __builtin_memcpy(rem, t, sizeof t);
        }
        if (m <= -table_min) put(-m, q + 1);
      }
      // 10^m = 5^m 2^m: its top 126 bits are those of 5^m.
      put(m, bits_at(p, len - 126) + 1);
    }
  }
};

PROBE_INLINE const uint64_t* pow10_entry(int e) noexcept {
  static const pow10_table<probe_n_> table;
  return table.g + 2 * (e - table_min);
}

// floor(g * cp / 2^127) for g = g1 2^63 + g0, its lowest bit set when the (approximate) rest
// is not zero: rounding to odd keeps comparisons with multiples of 4 exact.
PROBE_INLINE uint64_t round_to_odd(uint64_t g1, uint64_t g0, uint64_t cp) noexcept {
  using u128 = uint128;
  const uint64_t x1 = static_cast<uint64_t>((static_cast<u128>(g0) * cp) >> 64);
  const u128 y = static_cast<u128>(g1) * cp;
  const uint64_t z = (static_cast<uint64_t>(y) >> 1) + x1;
  const uint64_t vbp = static_cast<uint64_t>(y >> 64) + (z >> 63);
  return vbp | (((z & mask63) + mask63) >> 63);
}

PROBE_INLINE shortest_result strip_zeros(uint64_t f, int e) noexcept {
  while (f % 10 == 0) {
    f /= 10;
    ++e;
  }
  return {f, e};
}

// v = c 2^q > 0. `symmetric`: v's lower neighbour is as far as its upper one (false only for
// a power of two above the smallest normal, whose lower gap is half the upper).
PROBE_INLINE shortest_result schubfach(uint64_t c, int q, bool symmetric) noexcept {
  const uint64_t out = c & 1;  // an odd c does not own its interval's bounds (round-half-even)
  const uint64_t cb = c << 2;
  const uint64_t cbr = cb + 2;
  uint64_t cbl;
  int k;
  if (symmetric) {
    cbl = cb - 2;
    k = floor_log10_pow2(q);
  } else {
    cbl = cb - 1;
    k = floor_log10_three_quarters_pow2(q);
  }
  const int h = q + floor_log2_pow10(-k) + 2;
  const uint64_t* g = pow10_entry(-k);
  const uint64_t vb = round_to_odd(g[0], g[1], cb << h);
  const uint64_t vbl = round_to_odd(g[0], g[1], cbl << h);
  const uint64_t vbr = round_to_odd(g[0], g[1], cbr << h);
  const uint64_t s = vb >> 2;
  if (s >= 10) {  // a multiple of 10^(k+1) in the interval has fewer digits than s
    const uint64_t sp10 = s / 10 * 10;
    const uint64_t tp10 = sp10 + 10;
    const bool upin = vbl + out <= sp10 << 2;
    const bool wpin = (tp10 << 2) + out <= vbr;
    if (upin != wpin) return strip_zeros(upin ? sp10 : tp10, k);
  }
  const uint64_t t = s + 1;
  const bool uin = vbl + out <= s << 2;
  const bool win = (t << 2) + out <= vbr;
  if (uin != win) return strip_zeros(uin ? s : t, k);
  // Both in: the nearer, on a tie the even one.
  const uint64_t mid = (s + t) << 1;
  const bool take_s = vb < mid || (vb == mid && (s & 1) == 0);
  return strip_zeros(take_s ? s : t, k);
}

}  // namespace shortest_impl

// |v| for finite v; zero gives {0, 0}.
PROBE_INLINE shortest_result shortest_digits(double v) noexcept {
  uint64_t bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  const uint64_t t = bits & ((uint64_t{1} << 52) - 1);
  const int bq = static_cast<int>(bits >> 52) & 0x7ff;
  if (bq == 0) {
    if (t == 0) return {};
    return shortest_impl::schubfach(t, -1074, true);
  }
  const uint64_t c = t | (uint64_t{1} << 52);
  const int mq = 1075 - bq;
  if (mq > 0 && mq < 53 && (c & ((uint64_t{1} << mq) - 1)) == 0)  // an integer below 2^53
    return shortest_impl::strip_zeros(c >> mq, 0);
  return shortest_impl::schubfach(c, -mq, t != 0 || bq == 1);
}

PROBE_INLINE shortest_result shortest_digits(float v) noexcept {
  uint32_t bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  const uint32_t t = bits & ((uint32_t{1} << 23) - 1);
  const int bq = static_cast<int>(bits >> 23) & 0xff;
  if (bq == 0) {
    if (t == 0) return {};
    return shortest_impl::schubfach(t, -149, true);
  }
  const uint32_t c = t | (uint32_t{1} << 23);
  const int mq = 150 - bq;
  if (mq > 0 && mq < 24 && (c & ((uint32_t{1} << mq) - 1)) == 0)
    return shortest_impl::strip_zeros(c >> mq, 0);
  return shortest_impl::schubfach(c, -mq, t != 0 || bq == 1);
}

// Writes the decimal digits of f (f < 10^20) ending just before `end`; returns their start.
PROBE_INLINE char* put_digits_backwards(char* end, uint64_t f) noexcept {
  static const char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  while (f >= 100) {
    const unsigned r = static_cast<unsigned>(f % 100);
    f /= 100;
    end -= 2;
    __builtin_memcpy(end, pairs + 2 * r, 2);
  }
  if (f >= 10) {
    end -= 2;
    __builtin_memcpy(end, pairs + 2 * f, 2);
  } else {
    *--end = static_cast<char>('0' + f);
  }
  return end;
}

// std::to_chars(p, ..., v, std::chars_format::scientific) for finite v: "-1.2345e+06",
// "5e-324", "0e+00". Returns the end (no terminator); needs 24 bytes (float 15).
template <class F>
inline char* write_scientific_shortest(char* p, F v) noexcept {
  static_assert(sizeof(F) == 4 || sizeof(F) == 8, "double or float");
  const shortest_result r = shortest_digits(v);
  if (__builtin_signbit(v)) *p++ = '-';
  char tmp[24];
  char* const tend = tmp + sizeof tmp;
  const char* first = put_digits_backwards(tend, r.digits);
  const int n = static_cast<int>(tend - first);
  *p++ = *first;
  if (n > 1) {
    *p++ = '.';
    __builtin_memcpy(p, first + 1, static_cast<unsigned>(n - 1));
    p += n - 1;
  }
  int e = r.digits ? r.exponent + n - 1 : 0;
  *p++ = 'e';
  *p++ = e < 0 ? '-' : '+';
  if (e < 0) e = -e;
  if (e >= 100) {
    *p++ = static_cast<char>('0' + e / 100);
    e %= 100;
  }
  *p++ = static_cast<char>('0' + e / 10);
  *p++ = static_cast<char>('0' + e % 10);
  return p;
}

}  // namespace detail
PROBE_END_NAMESPACE
