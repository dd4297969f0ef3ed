// probe::format: every argument kind, format specs, escapes, and the errors.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/format_tensor.hpp>

#include <probe/core/tensor.hpp>

#include <array>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../support/capture.hpp"

namespace {
enum class color : uint8_t { red = 1, green = 7 };
enum plain_enum { plain_a = -3 };
}  // namespace

TEST_CASE("format: integers of every width and sign") {
  CHECK(probe::format("{}", 0) == "0");
  CHECK(probe::format("{} {}", int8_t(-128), uint8_t(255)) == "-128 255");
  CHECK(probe::format("{} {}", int16_t(-32768), uint16_t(65535)) == "-32768 65535");
  CHECK(probe::format("{}", std::numeric_limits<int64_t>::min()) == "-9223372036854775808");
  CHECK(probe::format("{}", std::numeric_limits<uint64_t>::max()) == "18446744073709551615");
  CHECK(probe::format("{} {}", 42L, 42ULL) == "42 42");
  CHECK(probe::format("{} {}", color::green, plain_a) == "7 -3");
  CHECK(probe::format("{} {}", size_t(7), static_cast<signed char>(-5)) == "7 -5");
}

TEST_CASE("format: floats print the shortest text that reads back the same value") {
  CHECK(probe::format("{}", 0.1) == "0.1");
  CHECK(probe::format("{}", 0.1f) == "0.1");  // float's shortest, not double's 0.10000000149011612
  CHECK(probe::format("{}", 1.0) == "1.0");
  CHECK(probe::format("{}", -0.0) == "-0.0");
  CHECK(probe::format("{}", 100.0) == "100.0");
  CHECK(probe::format("{}", 1e16) == "1e+16");
  CHECK(probe::format("{}", 1e-5) == "1e-05");
  CHECK(probe::format("{}", 0.0001) == "0.0001");
  CHECK(probe::format("{}", 1.5e300) == "1.5e+300");
  CHECK(probe::format("{}", 1.0 / 3) == "0.3333333333333333");
  CHECK(probe::format("{}", 16777216.0f) == "16777216.0");
  CHECK(probe::format("{} {} {}", std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                      -std::numeric_limits<float>::infinity()) == "nan inf -inf");
  CHECK(probe::format("{}", 5e-324) == "5e-324");
  CHECK(probe::format("{}", std::numeric_limits<double>::max()) == "1.7976931348623157e+308");
  CHECK(probe::format("{}", 2.5L) == "2.5");
}

TEST_CASE("format: strings, chars, bools, pointers") {
  const char* cp = "abc";
  char buf[16] = "buffer";
  std::string s = "std";
  std::string_view sv = std::string_view("view-and-more").substr(0, 4);
  const char* null_str = nullptr;
  CHECK(probe::format("{}|{}|{}|{}|{}", cp, buf, s, sv, "lit") == "abc|buffer|std|view|lit");
  CHECK(probe::format("{}", null_str) == "(null)");
  CHECK(probe::format("{}{}", 'x', 'y') == "xy");
  CHECK(probe::format("{} {}", true, false) == "true false");
  CHECK(probe::format("{}", static_cast<void*>(nullptr)) == "0x0");
  CHECK(probe::format("{}", nullptr) == "0x0");
  int x = 0;
  char expect[32];
  std::snprintf(expect, sizeof expect, "%p", static_cast<void*>(&x));
  CHECK(probe::format("{}", &x) == expect);
  CHECK(probe::format("{}", std::string("embedded\0nul", 12)) == std::string("embedded\0nul", 12));
}

TEST_CASE("format: specs for numbers") {
  CHECK(probe::format("{:.3f}", 3.14159) == "3.142");
  CHECK(probe::format("{:.3e}", 31415.9) == "3.142e+04");
  CHECK(probe::format("{:.3g}", 0.000123456) == "0.000123");
  CHECK(probe::format("{:.3g}", 123456.0) == "1.23e+05");
  CHECK(probe::format("{:g}", 1.0) == "1");
  CHECK(probe::format("{:f}", 1.0) == "1.000000");
  CHECK(probe::format("{:E}", 1.0) == "1.000000E+00");
  CHECK(probe::format("{:.1%}", 0.256) == "25.6%");
  CHECK(probe::format("{:8.2f}|", 3.14159) == "    3.14|");
  CHECK(probe::format("{:<8.2f}|", 3.14159) == "3.14    |");
  CHECK(probe::format("{:^8.2f}|", 3.14159) == "  3.14  |");
  CHECK(probe::format("{:*>8}|", 42) == "******42|");
  CHECK(probe::format("{:08.3f}", -2.5) == "-002.500");
  CHECK(probe::format("{:+}", 5) == "+5");
  CHECK(probe::format("{:+.1f}", 0.25) == "+0.2");  // round half to even on the exact value
  CHECK(probe::format("{: d}", 5) == " 5");
  CHECK(probe::format("{:x} {:X} {:#x} {:o} {:#o} {:b} {:#b}", 255, 255, 255, 8, 8, 5, 5) == "ff FF 0xff 10 010 101 0b101");
  CHECK(probe::format("{:#010x}", 255) == "0x000000ff");
  CHECK(probe::format("{:x}", -255) == "-ff");
  CHECK(probe::format("{:.2f}", 3) == "3.00");  // integers take float types
  CHECK(probe::format("{:d} {:x}", true, 'A') == "1 41");
  CHECK(probe::format("{:c}", 65) == "A");
  CHECK(probe::format("{:8.3f}|", std::numeric_limits<double>::infinity()) == "     inf|");
  CHECK(probe::format("{:08}", -std::numeric_limits<double>::infinity()) == "    -inf");
  CHECK(probe::format("{:.200f}", 1.0).size() == 202);
}

TEST_CASE("format: specs for strings, and manual argument indices") {
  CHECK(probe::format("{:6}|{:>6}|{:^6}|", "ab", "ab", "ab") == "ab    |    ab|  ab  |");
  CHECK(probe::format("{:.3}", "abcdef") == "abc");
  CHECK(probe::format("{:.2}", "\xc3\xa9\xc3\xa9\xc3\xa9") == "\xc3\xa9\xc3\xa9");  // code points, not bytes
  CHECK(probe::format("{:4}|", "\xc3\xa9") == "\xc3\xa9   |");
  CHECK(probe::format("{1} {0} {1}", "a", "b") == "b a b");
  CHECK(probe::format("{0:.1f} {0:.3f}", 2.0) == "2.0 2.000");
}

TEST_CASE("format: brace escapes and literal text") {
  CHECK(probe::format("{{}}") == "{}");
  CHECK(probe::format("{{{}}}", 1) == "{1}");
  CHECK(probe::format("no placeholders") == "no placeholders");
  CHECK(probe::format("") == "");
  CHECK(probe::format("a}}b{{c") == "a}b{c");
}

TEST_CASE("format: format_to appends; runtime_format takes run-time strings") {
  std::string out = "head:";
  probe::format_to(out, "{}-{}", 1, 2);
  probe::format_to(out, "!");
  CHECK(out == "head:1-2!");
  std::string fmt = "{} and {}";
  CHECK(probe::format(probe::runtime_format(fmt), 1, 2) == "1 and 2");
  const char* cfmt = "[{}]";
  CHECK(probe::format(probe::runtime_format(cfmt), 3) == "[3]");
  CHECK(probe::format(fmt, 3, 4) == "3 and 4");  // string objects need no wrapper
}

TEST_CASE("format: placeholder/argument mismatches and malformed formats are clear errors") {
  // Run-time strings: under C++20 the literal forms of these do not compile (see
  // tests/compile), so they go through runtime_format here.
  using probe::runtime_format;
  probe_test::capture_fd err;
  const std::string few = probe::format(runtime_format("x={} y={}"), 1);
  const std::string many = probe::format(runtime_format("x={}"), 1, 2);
  const std::string log = err.stop();
  CHECK(few == "<probe::format error: more placeholders than arguments (2 placeholders, 1 argument) in \"x={} y={}\">");
  CHECK(many == "<probe::format error: more arguments than placeholders (1 placeholder, 2 arguments) in \"x={}\">");
  // Logged once, however many errors follow.
  CHECK(log.find("probe: probe::format error: more placeholders than arguments") != std::string::npos);
  CHECK(log.find("more arguments than placeholders") == std::string::npos);

  CHECK(probe::format(runtime_format("a{b"), 1).find("'{' without a matching '}' at offset 1") != std::string::npos);
  CHECK(probe::format(runtime_format("a}b")).find("'}' without a matching '{'") != std::string::npos);
  CHECK(probe::format(runtime_format("{:q}"), 1).find("malformed format spec at offset 0") != std::string::npos);
  CHECK(probe::format(runtime_format("{:.}"), 1).find("malformed format spec") != std::string::npos);
  CHECK(probe::format(runtime_format("{0} {}"), 1, 2).find("mixes '{}' and '{N}'") != std::string::npos);
  CHECK(probe::format(runtime_format("{2}"), 1, 2).find("argument index out of range") != std::string::npos);
  CHECK(probe::format(runtime_format("{0}"), 1, 2).find("argument 1 is never used") != std::string::npos);
  CHECK(probe::format(runtime_format("{:d}"), 1.5).find("format type 'd' does not apply to argument 0 (floating-point)") !=
        std::string::npos);
  CHECK(probe::format(runtime_format("{:f}"), "s").find("does not apply to argument 0 (string)") != std::string::npos);
  CHECK(probe::format(runtime_format("{:99999}"), 1).find("malformed format spec") != std::string::npos);
  // Output before the error is not left behind.
  std::string out = "keep|";
  probe::format_to(out, runtime_format("text {} {}"), 1);
  CHECK(out.rfind("keep|<probe::format error:", 0) == 0);
}

TEST_CASE("format: tensors print as numpy's str() does") {
  // Expected strings below were printed by numpy 1.24.2 (str(array)) for the same data.
  std::vector<float> f32{1.0f, 2.5f, -3.25f};
  CHECK(probe::format("{}", f32) == "[ 1.    2.5  -3.25]");
  std::array<int32_t, 3> i32{1, -20, 300};
  CHECK(probe::format("{}", i32) == "[  1 -20 300]");
  bool b[3] = {true, false, true};
  CHECK(probe::format("{}", b) == "[ True False  True]");
  double m[4] = {1.0, 2.0, 3.5, -4.0};
  CHECK(probe::format("{}", probe::view(m, {2, 2})) == "[[ 1.   2. ]\n [ 3.5 -4. ]]");
  std::vector<int64_t> r24(24);
  for (int i = 0; i < 24; ++i) r24[i] = i;
  CHECK(probe::format("{}", probe::view(r24.data(), {2, 3, 4})) ==
        "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]");
  float none[1] = {0};
  CHECK(probe::format("{}", probe::view(none, {2, 0})) == "[]");
  // np.arange(12.).reshape(3, 4)[:, ::2].T
  double base[12];
  for (int i = 0; i < 12; ++i) base[i] = i;
  CHECK(probe::format("{}", probe::view(base, {2, 3}, {2, 4})) == "[[ 0.  4.  8.]\n [ 2.  6. 10.]]");
  std::vector<float> big(2000);
  for (int i = 0; i < 2000; ++i) big[static_cast<size_t>(i)] = static_cast<float>(i);
  CHECK(probe::format("{}", big) == "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]");
  std::vector<int32_t> big2(1200);
  for (int i = 0; i < 1200; ++i) big2[static_cast<size_t>(i)] = i;
  CHECK(probe::format("{}", probe::view(big2.data(), {30, 40})) ==
        "[[   0    1    2 ...   37   38   39]\n [  40   41   42 ...   77   78   79]\n"
        " [  80   81   82 ...  117  118  119]\n ...\n [1080 1081 1082 ... 1117 1118 1119]\n"
        " [1120 1121 1122 ... 1157 1158 1159]\n [1160 1161 1162 ... 1197 1198 1199]]");
  std::vector<double> wrap(30);
  for (int i = 0; i < 30; ++i) wrap[static_cast<size_t>(i)] = i / 7.0;
  CHECK(probe::format("{}", wrap) ==
        "[0.         0.14285714 0.28571429 0.42857143 0.57142857 0.71428571\n"
        " 0.85714286 1.         1.14285714 1.28571429 1.42857143 1.57142857\n"
        " 1.71428571 1.85714286 2.         2.14285714 2.28571429 2.42857143\n"
        " 2.57142857 2.71428571 2.85714286 3.         3.14285714 3.28571429\n"
        " 3.42857143 3.57142857 3.71428571 3.85714286 4.         4.14285714]");
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> nonfinite{std::numeric_limits<double>::quiet_NaN(), 1.0, -inf, inf};
  CHECK(probe::format("{}", nonfinite) == "[ nan   1. -inf  inf]");
  std::vector<probe::float16> f16{{0x2e66}, {0x7bff}, {0x0001}};  // 0.1, 65504, 2^-24
  CHECK(probe::format("{}", f16) == "[1.00e-01 6.55e+04 5.96e-08]");
  std::vector<std::complex<float>> c64{{1, 2}, {-0.5f, -1}};
  CHECK(probe::format("{}", c64) == "[ 1. +2.j -0.5-1.j]");
  std::vector<uint8_t> u8{0, 255, 7};
  CHECK(probe::format("{}", u8) == "[  0 255   7]");
}

TEST_CASE("format: 0-d tensors and scalars of tensor-only types print as numpy scalars") {
  // numpy 1.24.2: str(np.float32(0.1)), str(np.complex128(1.5-2j)), str(np.bool_(True)), ...
  float f = 0.1f;
  CHECK(probe::format("{}", probe::view(f)) == "0.1");
  CHECK(probe::format("{}", std::complex<double>(1.5, -2)) == "(1.5-2j)");
  CHECK(probe::format("{}", std::complex<double>(0, 2)) == "2j");
  bool t = true;
  CHECK(probe::format("{}", probe::view(t)) == "True");
  CHECK(probe::format("{}", probe::float16{0x7bff}) == "65500.0");
  CHECK(probe::format("{}", probe::bfloat16{0x3f80}) == "1.0");
}

TEST_CASE("format: precision and type apply to tensor elements") {
  // numpy 1.24.2: np.array2string(x, precision=3), (..., precision=2, floatmode='fixed'),
  // np.array2string(np.array([1e-6, 1e6]), precision=3, floatmode='fixed')
  std::vector<double> x{1.0 / 3, 2.0 / 3, 10};
  CHECK(probe::format("{:.3}", x) == "[ 0.333  0.667 10.   ]");
  CHECK(probe::format("{:.3g}", x) == "[ 0.333  0.667 10.   ]");
  CHECK(probe::format("{:.2f}", x) == "[ 0.33  0.67 10.00]");
  std::vector<double> wide{1e-6, 1e6};
  CHECK(probe::format("{:.3e}", wide) == "[1.000e-06 1.000e+06]");
  // 'f' keeps positional notation even where numpy's default would not (numpy 1.24.2:
  // np.array2string(wide, precision=1, floatmode='fixed', suppress_small=True)).
  CHECK(probe::format("{:.1f}", wide) == "[      0.0 1000000.0]");
  CHECK(probe::format("{:.2f}", probe::view(x[0])) == "0.33");
  CHECK(probe::format("{:>12}|", std::vector<int>{1, 2}) == "       [1 2]|");
}

TEST_CASE("format: owning tensors, engine types, device and invalid views") {
  std::vector<float> v{1, 2, 3, 4};
  probe::tensor t = probe::tensor::copy_of(probe::view(v.data(), {2, 2}));
  CHECK(probe::format("{}", t) == "[[1. 2.]\n [3. 4.]]");
  CHECK(probe::format("{}", probe::view(v.data(), 4).on_cuda(1)) == "<float32[4] on cuda:1>");
  CHECK(probe::format("{}", probe::view(v.data(), {1, 2, 3, 4, 5, 6, 7, 8, 9})) == "<invalid tensor>");
  CHECK(probe::format("{}", probe::view_raw(nullptr, probe::dtype::float32, {3})) == "<float32[3] with no data>");
}

TEST_CASE("format: summary, edge items and line width are options of format_tensor") {
  std::vector<int32_t> v(20);
  for (int i = 0; i < 20; ++i) v[static_cast<size_t>(i)] = i;
  probe::detail::tensor_format f;
  f.threshold = 10;
  f.edgeitems = 2;
  std::string out;
  probe::detail::format_tensor(out, probe::view(v), f);
  CHECK(out == "[ 0  1 ... 18 19]");  // numpy: np.array2string(np.arange(20), threshold=10, edgeitems=2)
  f = {};
  f.linewidth = 20;
  out.clear();
  probe::detail::format_tensor(out, probe::view(v), f);
  // numpy: np.array2string(np.arange(20), max_line_width=20)
  CHECK(out == "[ 0  1  2  3  4  5\n  6  7  8  9 10 11\n 12 13 14 15 16 17\n 18 19]");
}
