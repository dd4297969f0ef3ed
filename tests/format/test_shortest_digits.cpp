// detail/shortest_digits.hpp against std::to_chars(..., std::chars_format::scientific),
// character for character: float bit patterns in a stride over the whole range, every float
// subnormal and the edges of every binade, millions of random double bit patterns, and the
// classic hard cases. <charconv> is the reference here only; probe itself never includes it.
#include <doctest/doctest.h>
#include <probe/util/float_text.hpp>
#include <probe/util/shortest_digits.hpp>

#include <cfloat>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Counts disagreements with std::to_chars and keeps the first one for the report.
struct comparer {
  long checked = 0;
  long bad = 0;
  std::string first;

  template <class F>
  void operator()(F v) {
    char mine[64], ref[64];
    char* const mine_end = probe::detail::write_scientific_shortest(mine, v);
    const auto r = std::to_chars(ref, ref + sizeof ref, v, std::chars_format::scientific);
    ++checked;
    const size_t n = static_cast<size_t>(mine_end - mine);
    if (n == static_cast<size_t>(r.ptr - ref) && std::memcmp(mine, ref, n) == 0) return;
    if (bad++ == 0) first = std::string(mine, n) + " vs to_chars " + std::string(ref, r.ptr);
  }
  void bits32(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) (*this)(f);
  }
  void bits64(uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    if ((b & 0x7ff0000000000000ull) != 0x7ff0000000000000ull) (*this)(d);
  }
};

}  // namespace

TEST_CASE("shortest_digits: float bit patterns in a stride, every subnormal, every binade's edges") {
  comparer cmp;
  for (uint64_t b = 0; b <= 0xffffffffu; b += 127) cmp.bits32(static_cast<uint32_t>(b));
  for (uint32_t b = 0; b < (1u << 23); ++b) cmp.bits32(b);  // subnormals (and zero)
  for (uint32_t e = 0; e < 255; ++e)
    for (uint32_t m = 0; m < 64; ++m)
      for (uint32_t sign : {0u, 0x80000000u}) {
        cmp.bits32(sign | e << 23 | m);
        cmp.bits32(sign | e << 23 | ((1u << 23) - 1 - m));
      }
  for (float f : {FLT_MIN, FLT_MAX, FLT_TRUE_MIN, FLT_EPSILON, 0.1f, 0.3f, 1.0f, 16777216.0f, 16777217.0f, 3e-45f,
                  4e-45f, 7e-45f, 1e10f, 1e-10f, -0.0f})
    cmp(f);
  INFO(cmp.first);
  CHECK(cmp.checked > 40000000);
  CHECK(cmp.bad == 0);
}

TEST_CASE("shortest_digits: random doubles, every binade's edges, classic cases") {
  comparer cmp;
  uint64_t state = 20240607;
  for (int i = 0; i < 6000000; ++i) cmp.bits64(splitmix(state));
  // Decimal-looking values: integers over powers of ten, and integers with trailing zeros.
  for (int i = 0; i < 1000000; ++i) {
    const uint64_t r = splitmix(state);
    const double mant = static_cast<double>(r % 100000000000ull);
    const int p = static_cast<int>((r >> 40) % 40);
    double scale = 1;
    for (int j = 0; j < p; ++j) scale *= 10;
    cmp((r >> 63) ? mant / scale : mant * scale);
  }
  for (uint64_t e = 0; e < 2047; ++e)
    for (uint64_t m = 0; m < 16; ++m)
      for (uint64_t sign : {0ull, 1ull << 63}) {
        cmp.bits64(sign | e << 52 | m);
        cmp.bits64(sign | e << 52 | ((1ull << 52) - 1 - m));
        cmp.bits64(sign | e << 52 | (1ull << 51) | m);  // mid-binade, and powers of two at m = 0
      }
  for (double d : {0.0, -0.0, 5e-324, 1e-323, DBL_TRUE_MIN, 2.2250738585072009e-308, DBL_MIN, DBL_MAX,
                   1.7976931348623157e308, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 1e23, 1e22, 1e21, 9007199254740992.0,
                   9007199254740993.0, 9007199254740994.0, 123456789012345680.0, 1.0, -1.0, 100.0, 5e-5, 1e-4,
                   1e16, 1e15, 299792458.0, 4.35, 2.5, 0.5, 1e300, 1e-300, 5.0e-324 * 3})
    cmp(d);
  INFO(cmp.first);
  CHECK(cmp.checked > 7000000);
  CHECK(cmp.bad == 0);
}

TEST_CASE("shortest_digits: digits without trailing zeros, and the decimal float_text builds from them") {
  const auto r = probe::detail::shortest_digits(1e22);
  CHECK(r.digits == 1);
  CHECK(r.exponent == 22);
  const auto z = probe::detail::shortest_digits(-0.0);
  CHECK(z.digits == 0);
  const auto f = probe::detail::shortest_digits(0.3f);
  CHECK(f.digits == 3);
  CHECK(f.exponent == -1);
  const auto big = probe::detail::shortest_digits(123456789012345680.0);
  CHECK(big.digits == 12345678901234568ull);
  CHECK(big.exponent == 1);

  char buf[probe::detail::shortest_text_capacity];
  probe::detail::write_shortest(buf, 123456789012345680.0);
  CHECK(std::string(buf) == "1.2345678901234568e+17");
  probe::detail::write_shortest(buf, 5e-324);
  CHECK(std::string(buf) == "5e-324");
  probe::detail::write_shortest(buf, -0.0);
  CHECK(std::string(buf) == "-0.0");
  probe::detail::write_shortest(buf, 1e22);
  CHECK(std::string(buf) == "1e+22");
  probe::detail::write_shortest(buf, 0.1f);
  CHECK(std::string(buf) == "0.1");
  probe::detail::write_shortest(buf, 9007199254740993.0);
  CHECK(std::string(buf) == "9007199254740992.0");
}
