// float16 / bfloat16 conversions, checked exhaustively against references computed another
// way: decoding with ldexp, and rounding with double arithmetic and nearbyint.
#include <doctest/doctest.h>
#include <probe/core/half.hpp>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ios>

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Decodes a binary format with `ebits` exponent bits and `mbits` mantissa bits.
double decode_ref(uint32_t h, int ebits, int mbits) {
  const uint32_t sign = h >> (ebits + mbits);
  const uint32_t e = (h >> mbits) & ((1u << ebits) - 1);
  const uint32_t m = h & ((1u << mbits) - 1);
  const int bias = (1 << (ebits - 1)) - 1;
  double v;
  if (e == (1u << ebits) - 1)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), 1 - bias - mbits);
  else
    v = std::ldexp(static_cast<double>(m + (1u << mbits)), static_cast<int>(e) - bias - mbits);
  return sign ? -v : v;
}

// Rounds a finite float to the nearest value of the format (ties to even) with double
// arithmetic; returns the bit pattern.
uint16_t encode_ref(float f, int ebits, int mbits) {
  const uint16_t sign = std::signbit(f) ? static_cast<uint16_t>(1u << (ebits + mbits)) : 0;
  const double a = std::fabs(static_cast<double>(f));
  const int bias = (1 << (ebits - 1)) - 1;
  const int emin = 1 - bias;  // exponent of the smallest normal
  const uint32_t inf = ((1u << ebits) - 1) << mbits;
  if (a < std::ldexp(1.0, emin)) {
    const double q = std::nearbyint(std::ldexp(a, mbits - emin));  // units of the subnormal step
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(q));  // q == 2^mbits: min normal
  }
  int e2;
  std::frexp(a, &e2);
  int exp = e2 - 1;  // a = 1.xxx * 2^exp
  double q = std::nearbyint(std::ldexp(a, mbits - exp));
  if (q == std::ldexp(1.0, mbits + 1)) {
    q /= 2;
    ++exp;
  }
  if (exp + bias >= (1 << ebits) - 1) return static_cast<uint16_t>(sign | inf);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp + bias) << mbits) |
                               (static_cast<uint32_t>(q) - (1u << mbits)));
}

bool same_value(float got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return static_cast<double>(got) == want && std::signbit(got) == std::signbit(want);
}

}  // namespace

TEST_CASE("half: every float16 bit pattern widens exactly") {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = probe::half_bits_to_float(static_cast<uint16_t>(h));
    if (!same_value(f, decode_ref(h, 5, 10))) {
      if (++bad < 5) FAIL_CHECK("float16 0x" << std::hex << h << " -> " << f);
      continue;
    }
    // NaN payloads survive the widening: quiet bit and payload land in the float mantissa.
    if (std::isnan(f)) CHECK((bits_of(f) & 0x7fffff) == ((h & 0x3ff) << 13));
  }
  CHECK(bad == 0);
  CHECK(probe::half_bits_to_float(0x3c00) == 1.0f);
  CHECK(probe::half_bits_to_float(0x7bff) == 65504.0f);
  CHECK(probe::half_bits_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(probe::half_bits_to_float(0x03ff) == std::ldexp(1023.0f, -24));
  CHECK(std::signbit(probe::half_bits_to_float(0x8000)));
}

TEST_CASE("half: every bfloat16 bit pattern widens exactly") {
  int bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = probe::bfloat16_bits_to_float(static_cast<uint16_t>(b));
    if (!same_value(f, decode_ref(b, 8, 7)) && ++bad < 5)
      FAIL_CHECK("bfloat16 0x" << std::hex << b << " -> " << f);
  }
  CHECK(bad == 0);
}

TEST_CASE("half: every non-NaN pattern survives the round trip, NaN stays NaN") {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const auto h16 = static_cast<uint16_t>(h);
    const float f = probe::half_bits_to_float(h16);
    const float g = probe::bfloat16_bits_to_float(h16);
    const uint16_t back = probe::float_to_half_bits(f);
    const uint16_t back_b = probe::float_to_bfloat16_bits(g);
    if (std::isnan(f)) {
      // Quiet NaN of the same sign, payload kept as far as it fits.
      if ((back & 0x7c00) != 0x7c00 || !(back & 0x0200) || (back & 0x8000) != (h & 0x8000) ||
          (back & 0x1ff) != (h & 0x1ff))
        ++bad;
    } else if (back != h16) {
      ++bad;
    }
    if (std::isnan(g)) {
      if ((back_b & 0x7f80) != 0x7f80 || !(back_b & 0x40) || (back_b & 0x8000) != (h & 0x8000))
        ++bad;
    } else if (back_b != h16) {
      ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("half: float narrowing at every tie, overflow and underflow boundary") {
  REQUIRE(std::fegetround() == FE_TONEAREST);
  // Each pair of neighbouring non-negative halves a < b (b = 2^16 stands for the rounding
  // point of infinity): the midpoint is exact in float and goes to the even one, its float
  // neighbours go to the nearer one. Mirrored for negative values.
  int bad = 0;
  for (uint32_t a = 0; a < 0x7c00; ++a) {
    const double lo = decode_ref(a, 5, 10);
    const double hi = a + 1 == 0x7c00 ? 65536.0 : decode_ref(a + 1, 5, 10);
    const float mid = static_cast<float>((lo + hi) / 2);
    REQUIRE(static_cast<double>(mid) == (lo + hi) / 2);
    const uint16_t even = (a & 1) ? static_cast<uint16_t>(a + 1) : static_cast<uint16_t>(a);
    const float below = std::nextafter(mid, 0.0f), above = std::nextafter(mid, INFINITY);
    for (int s = 0; s < 2; ++s) {
      const uint16_t sign = s ? 0x8000 : 0;
      const float m = s ? -mid : mid;
      if (probe::float_to_half_bits(m) != (sign | even)) ++bad;
      if (probe::float_to_half_bits(s ? -below : below) != (sign | a)) ++bad;
      if (probe::float_to_half_bits(s ? -above : above) != (sign | (a + 1))) ++bad;
      if (probe::float_to_half_bits(s ? -static_cast<float>(lo) : static_cast<float>(lo)) !=
          (sign | a))
        ++bad;
    }
  }
  CHECK(bad == 0);

  CHECK(probe::float_to_half_bits(65504.0f) == 0x7bff);
  CHECK(probe::float_to_half_bits(65519.99f) == 0x7bff);
  CHECK(probe::float_to_half_bits(65520.0f) == 0x7c00);  // tie, odd neighbour: infinity
  CHECK(probe::float_to_half_bits(-1e9f) == 0xfc00);
  CHECK(probe::float_to_half_bits(INFINITY) == 0x7c00);
  CHECK(probe::float_to_half_bits(-INFINITY) == 0xfc00);
  CHECK(probe::float_to_half_bits(std::ldexp(1.0f, -25)) == 0x0000);  // tie with 0: even
  CHECK(probe::float_to_half_bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
  CHECK(probe::float_to_half_bits(std::ldexp(3.0f, -25)) == 0x0002);  // tie 1|2: even
  CHECK(probe::float_to_half_bits(-std::ldexp(1.0f, -26)) == 0x8000);
  CHECK(probe::float_to_half_bits(1e-45f) == 0x0000);                  // float subnormal
  CHECK(probe::float_to_half_bits(-0.0f) == 0x8000);
  // The largest subnormal rounds up into the smallest normal.
  CHECK(probe::float_to_half_bits(std::ldexp(2047.0f, -25)) == 0x0400);
  CHECK(probe::float_to_half_bits(std::nanf("")) == 0x7e00);
  CHECK(probe::float_to_half_bits(-std::nanf("")) == 0xfe00);
  // A signalling NaN whose payload lies only in bits narrowing drops is still a NaN.
  CHECK((probe::float_to_half_bits(float_of(0x7f800001)) & 0x7fff) > 0x7c00);
  CHECK((probe::float_to_bfloat16_bits(float_of(0xff800001)) & 0x7fff) > 0x7f80);
  CHECK((probe::float_to_bfloat16_bits(float_of(0xff800001)) & 0x8000) == 0x8000);
}

TEST_CASE("half: a sweep over all floats matches the double-arithmetic reference") {
  REQUIRE(std::fegetround() == FE_TONEAREST);
  // Stride 251 (prime) visits ~17 million patterns with every residue of the low bits.
  int bad_h = 0, bad_b = 0;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 251) {
    const float f = float_of(static_cast<uint32_t>(u));
    if (std::isnan(f)) continue;
    if (std::isinf(f)) {
      bad_h += probe::float_to_half_bits(f) != (f > 0 ? 0x7c00 : 0xfc00);
      bad_b += probe::float_to_bfloat16_bits(f) != (f > 0 ? 0x7f80 : 0xff80);
      continue;
    }
    if (probe::float_to_half_bits(f) != encode_ref(f, 5, 10) && ++bad_h < 5)
      FAIL_CHECK("float16 of 0x" << std::hex << u);
    if (probe::float_to_bfloat16_bits(f) != encode_ref(f, 8, 7) && ++bad_b < 5)
      FAIL_CHECK("bfloat16 of 0x" << std::hex << u);
  }
  CHECK(bad_h == 0);
  CHECK(bad_b == 0);
}

TEST_CASE("half: bfloat16 narrowing at ties and overflow") {
  CHECK(probe::float_to_bfloat16_bits(1.0f) == 0x3f80);
  CHECK(probe::float_to_bfloat16_bits(float_of(0x3f808000)) == 0x3f80);  // tie: even (down)
  CHECK(probe::float_to_bfloat16_bits(float_of(0x3f818000)) == 0x3f82);  // tie: even (up)
  CHECK(probe::float_to_bfloat16_bits(float_of(0x3f808001)) == 0x3f81);
  CHECK(probe::float_to_bfloat16_bits(float_of(0x7f7fffff)) == 0x7f80);  // FLT_MAX: infinity
  CHECK(probe::float_to_bfloat16_bits(float_of(0x7f7f7fff)) == 0x7f7f);
  CHECK(probe::float_to_bfloat16_bits(float_of(0x00008000)) == 0x0000);  // subnormal tie
  CHECK(probe::float_to_bfloat16_bits(float_of(0x00018000)) == 0x0002);
  CHECK(probe::float_to_bfloat16_bits(-0.0f) == 0x8000);
  // Value types.
  CHECK(probe::to_float(probe::to_float16(0.5f)) == 0.5f);
  CHECK(probe::to_float(probe::to_bfloat16(-2.0f)) == -2.0f);
  CHECK(probe::to_float16(1.0f).bits == 0x3c00);
  CHECK(probe::to_bfloat16(1.0f).bits == 0x3f80);
}
