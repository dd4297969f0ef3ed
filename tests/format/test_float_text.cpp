// Shortest round-trip float text (detail/float_text.hpp): property tests over many random
// values, exhaustive over the 16-bit formats, and agreement with Python's repr and numpy.
// (test_shortest_digits.cpp compares the double and float digits with std::to_chars.)
#include <doctest/doctest.h>
#include <probe/util/float_text.hpp>

#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/capture.hpp"
#include "numpy_cases.hpp"

namespace {

double random_double(probe_test::rng& r) {
  for (;;) {
    uint64_t bits = r.next();
    if (r.below(4) == 0) {  // a "human" value: small integer over a power of ten
      const double v = static_cast<double>(r.below(100000)) / std::pow(10.0, r.below(12));
      return r.below(2) ? -v : v;
    }
    double d;
    std::memcpy(&d, &bits, 8);
    if (std::isfinite(d)) return d;
  }
}

float random_float(probe_test::rng& r) {
  for (;;) {
    const uint32_t bits = static_cast<uint32_t>(r.next());
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isfinite(f)) return f;
  }
}

std::string hex_of(const void* p, size_t n) {
  // Big-endian hex of a little-endian value, the order struct/numpy read back reversed.
  std::string s;
  static const char* digits = "0123456789abcdef";
  for (size_t i = n; i-- > 0;) {
    const unsigned char c = static_cast<const unsigned char*>(p)[i];
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

std::string run_python_check(const std::string& script, const std::string& input, int* rc) {
  probe_test::temp_dir dir;
  const std::string cmd = std::string(PROBE_TEST_PYTHON) + " " + PROBE_TEST_SOURCE_DIR + "/format/" + script + " " +
                          input + " > " + (dir / "out.txt") + " 2>&1";
  *rc = std::system(cmd.c_str());
  std::ifstream in(dir / "out.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("float_text: shortest text reads back to the same double and float") {
  probe_test::rng r{7};
  char buf[probe::detail::shortest_text_capacity];
  for (int i = 0; i < 200000; ++i) {
    const double d = random_double(r);
    const size_t n = probe::detail::write_shortest(buf, d);
    REQUIRE(n == std::strlen(buf));
    const double back = std::strtod(buf, nullptr);
    INFO(buf);
    REQUIRE(std::memcmp(&back, &d, 8) == 0);
    const float f = random_float(r);
    probe::detail::write_shortest(buf, f);
    const float fback = std::strtof(buf, nullptr);
    REQUIRE(std::memcmp(&fback, &f, 4) == 0);
  }
}

TEST_CASE("float_text: shortest text equals Python's repr and numpy's str, float16 exhaustively") {
  probe_test::temp_dir dir;
  const std::string path = dir / "values.txt";
  {
    std::ofstream out(path);
    probe_test::rng r{11};
    char buf[probe::detail::shortest_text_capacity];
    for (int i = 0; i < 30000; ++i) {
      const double d = random_double(r);
      probe::detail::write_shortest(buf, d);
      out << "d " << hex_of(&d, 8) << ' ' << buf << '\n';
      const float f = random_float(r);
      probe::detail::write_shortest(buf, f);
      out << "f " << hex_of(&f, 4) << ' ' << buf << '\n';
    }
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const uint16_t h = static_cast<uint16_t>(b);
      if (!probe::detail::f16_bits_finite(h)) continue;
      probe::detail::decimal d;
      probe::detail::shortest_decimal_f16(h, d);
      probe::detail::write_decimal(buf, d, probe::detail::prefers_scientific(probe::detail::f16_bits_to_double(h)));
      out << "h " << hex_of(&h, 2) << ' ' << buf << '\n';
    }
  }
  int rc = 0;
  const std::string report = run_python_check("shortest_check.py", path, &rc);
  INFO(report);
  CHECK(rc == 0);
  CHECK(report.find("mismatched 0") != std::string::npos);
}

TEST_CASE("float_text: bfloat16 shortest text reads back, for every bit pattern") {
  char buf[400];
  int longest = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    if (!probe::detail::bf16_bits_finite(h)) continue;
    probe::detail::decimal d;
    probe::detail::shortest_decimal_bf16(h, d);
    probe::detail::write_decimal(buf, d, true);
    const float back = std::strtof(buf, nullptr);
    INFO(buf);
    REQUIRE(probe_test::float_to_bf16_bits(back) == h);
    longest = d.count > longest ? d.count : longest;
  }
  // 8 significant bits never need more than 4 decimal digits.
  CHECK(longest <= 4);
}

TEST_CASE("float_text: fixed-precision text matches printf in the C locale") {
  probe_test::rng r{5};
  char mine[probe::detail::fixed_text_capacity], ref[probe::detail::fixed_text_capacity];
  const char styles[] = {'f', 'e', 'g'};
  for (int i = 0; i < 50000; ++i) {
    const double d = r.below(2) ? random_double(r) : (r.uniform() - 0.5) * std::pow(10.0, r.below(30) - 15);
    const char style = styles[r.below(3)];
    const int precision = r.below(25);
    probe::detail::fixed_text(mine, d, style, precision);
    const char fmt[5] = {'%', '.', '*', style, 0};
    std::snprintf(ref, sizeof ref, fmt, precision, d);
    INFO(ref);
    REQUIRE(std::string(mine) == ref);
  }
}

// The integer fast paths for '%.Nf' and '%.Ne' (N <= 17): exact ties (k / 2^j), values that
// round up into a new digit, the largest values they take and the smallest.
TEST_CASE("float_text: fixed 'f' and 'e' text match printf at ties and edges of the integer path") {
  probe_test::rng r{11};
  char mine[probe::detail::fixed_text_capacity], ref[probe::detail::fixed_text_capacity];
  auto same = [&](double d, int precision) {
    probe::detail::fixed_text(mine, d, 'f', precision);
    std::snprintf(ref, sizeof ref, "%.*f", precision, d);
    INFO(ref, " precision ", precision);
    REQUIRE(std::string(mine) == ref);
    probe::detail::fixed_text(mine, d, 'e', precision);
    std::snprintf(ref, sizeof ref, "%.*e", precision, d);
    REQUIRE(std::string(mine) == ref);
  };
  for (int j = 0; j <= 60; ++j)
    for (int k = 0; k < 64; ++k)
      for (int precision = 0; precision <= 18; ++precision) {
        const double d = std::ldexp(static_cast<double>(k * 2 + 1), -j);  // odd / 2^j: ties
        same(d, precision);
        same(-d, precision);
      }
  const double edges[] = {0.0, -0.0, 0.5, 1.5, 2.5, 9.5, 99.995, 0.9999999999999999, 1e-18, 4.9e-324,
                          2.2250738585072014e-308, 9007199254740993.0, 1.8446744073709552e19, 1.8e19,
                          1.8446744073709550e19, 184467440737.09552, 1e17, 123456789.987654321, 0.1, 0.3,
                          9.9995, 9.99949999, 99999.5, 0.00099995, 1e-5, 1e22, 1e23, 5e-324, 1.7976931348623157e308};
  for (double d : edges)
    for (int precision = 0; precision <= 18; ++precision) {
      same(d, precision);
      same(-d, precision);
    }
  for (int i = 0; i < 200000; ++i) {
    const double d = (r.uniform() - 0.5) * std::pow(10.0, r.below(60) - 30);
    same(d, r.below(19));
  }
}

TEST_CASE("float_text: parse_double reads C syntax whatever the locale and saturates") {
  double d = 0;
  CHECK(probe::detail::parse_double("1.5e3xyz", 8, &d) == 5);
  CHECK(d == 1500);
  CHECK(probe::detail::parse_double("-0.25", 5, &d) == 5);
  CHECK(d == -0.25);
  CHECK(probe::detail::parse_double("1e400", 5, &d) == 5);
  CHECK(d == HUGE_VAL);
  CHECK(probe::detail::parse_double("-123.4e307", 10, &d) == 10);
  CHECK(d == -HUGE_VAL);
  CHECK(probe::detail::parse_double("-1e-400", 7, &d) == 7);
  CHECK(d == 0.0);
  CHECK(std::signbit(d));
  CHECK(probe::detail::parse_double("0.00001e-320", 12, &d) == 12);
  CHECK(d == 0.0);
  CHECK(probe::detail::parse_double("x", 1, &d) == 0);
  // A host program that switched LC_NUMERIC to a comma locale still gets '.' text.
  if (std::setlocale(LC_NUMERIC, "de_DE.UTF-8") || std::setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
    char buf[probe::detail::fixed_text_capacity];
    probe::detail::fixed_text(buf, 2.5, 'f', 2);
    CHECK(std::string(buf) == "2.50");
    CHECK(probe::detail::parse_double("2.5", 3, &d) == 3);
    CHECK(d == 2.5);
    std::setlocale(LC_NUMERIC, "C");
  }
}
