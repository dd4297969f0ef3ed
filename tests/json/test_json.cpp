// JSON writer and reader: escaping, numbers, round trips, Python's json module on both sides,
// malformed and hostile input.
#include <doctest/doctest.h>
#include <probe/formats/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "../format/numpy_cases.hpp"
#include "../support/capture.hpp"

namespace json = probe::json;

namespace {

std::string written(const std::string& s) {
  std::string out;
  json::write_string(out, s);
  return out;
}

std::string run_python(const std::string& args, int* rc) {
  probe_test::temp_dir dir;
  const std::string cmd = std::string(PROBE_TEST_PYTHON) + " " + PROBE_TEST_SOURCE_DIR + "/json/json_check.py " + args +
                          " > " + (dir / "out.txt") + " 2>&1";
  *rc = std::system(cmd.c_str());
  std::ifstream in(dir / "out.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string hex(const std::string& bytes) {
  static const char* d = "0123456789abcdef";
  std::string h;
  for (unsigned char c : bytes) {
    h += d[c >> 4];
    h += d[c & 15];
  }
  return h;
}

std::string parse_error(const std::string& text, const json::parse_options& o = json::parse_options()) {
  json::value v = json::value::integer(1);
  std::string err;
  CHECK_FALSE(json::parse(text, v, &err, o));
  CHECK(v.is_null());
  return err;
}

}  // namespace

TEST_CASE("json writer: commas, nesting, members") {
  std::string out;
  json::writer w(out);
  w.begin_object().member("op", "conv1").member("seq", 12).key("shape").begin_array().value(2).value(3).end_array();
  w.key("stats").begin_object().member("mean", 0.25).member("nan", 0ULL).end_object();
  w.key("empty").begin_array().end_array().key("none").null().member("ok", true).end_object();
  CHECK(out == R"({"op":"conv1","seq":12,"shape":[2,3],"stats":{"mean":0.25,"nan":0},"empty":[],"none":null,"ok":true})");
  std::string more;
  const char* no_text = nullptr;
  json::writer x(more);
  x.begin_array().value(nullptr).value(no_text).value(std::string("s")).value(static_cast<short>(-3)).end_array();
  CHECK(more == R"([null,null,"s",-3])");
  CHECK(w.complete());

  std::string bad;
  json::writer m(bad);
  m.begin_object().value(1);  // a value without a key
  CHECK_FALSE(m.complete());
  std::string open;
  json::writer o(open);
  o.begin_array();
  CHECK_FALSE(o.complete());
  CHECK(o.depth() == 1);
}

TEST_CASE("json writer: string escaping, UTF-8 kept, invalid bytes replaced") {
  CHECK(written("plain") == "\"plain\"");
  CHECK(written("q\"b\\s/") == "\"q\\\"b\\\\s/\"");
  CHECK(written("\n\t\r\b\f") == "\"\\n\\t\\r\\b\\f\"");
  CHECK(written(std::string("\x00\x01\x1f", 3)) == "\"\\u0000\\u0001\\u001f\"");
  CHECK(written("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e") == "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e\"");
  CHECK(written("\xe2\x80\xa8") == "\"\\u2028\"");
  CHECK(written("\xc0\x80") == "\"\\ufffd\\ufffd\"");          // overlong
  CHECK(written("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");  // an encoded surrogate
  CHECK(written("\xe2\x82x") == "\"\\ufffdx\"");               // truncated: one replacement
  CHECK(written("\xf4\x90\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // past U+10FFFF
  CHECK(written("\x80 \xff") == "\"\\ufffd \\ufffd\"");
  CHECK(written("\xf0\x9d\x84") == "\"\\ufffd\"");
}

TEST_CASE("json writer: exact integers, shortest doubles, non-finite as null or tokens") {
  std::string out;
  json::writer w(out);
  w.begin_array()
      .value(std::numeric_limits<long long>::min())
      .value(std::numeric_limits<unsigned long long>::max())
      .value(0.1)
      .value(0.1f)
      .value(1.0)
      .value(-0.0)
      .value(1e-5)
      .value(1e300)
      .value(std::nan(""))
      .value(-HUGE_VAL)
      .end_array();
  CHECK(out == "[-9223372036854775808,18446744073709551615,0.1,0.1,1.0,-0.0,1e-05,1e+300,null,null]");
  std::string tok;
  json::writer t(tok, json::writer::nonfinite::tokens);
  t.begin_array().value(std::nan("")).value(HUGE_VAL).value(-HUGE_VAL).end_array();
  CHECK(tok == "[NaN,Infinity,-Infinity]");
}

TEST_CASE("json writer: Python's json module reads what it writes") {
  probe_test::rng r{3};
  std::string out;
  json::writer w(out);
  w.begin_object().key("strings").begin_array();
  const char* pieces[] = {"a", "\"", "\\", "\n", "\x01", "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e",
                          "\xe2\x80\xa8", "\xc0", "\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xff", "z"};
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const int n = r.below(10);
    for (int k = 0; k < n; ++k) s += r.below(4) ? pieces[r.below(17)] : std::string(1, static_cast<char>(r.next()));
    w.begin_object().member("raw", hex(s)).member("s", s).end_object();
  }
  w.end_array().key("doubles").begin_array();
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = r.next();
    if (r.below(3) == 0) {
      const double v = static_cast<double>(r.below(1000000)) / std::pow(10.0, r.below(10));
      std::memcpy(&bits, &v, 8);
    }
    double d;
    std::memcpy(&d, &bits, 8);
    char h[17];
    std::snprintf(h, sizeof h, "%016llx", static_cast<unsigned long long>(bits));
    w.begin_object().member("bits", h).member("v", d).end_object();
  }
  w.end_array().key("ints").begin_array();
  for (int i = 0; i < 2000; ++i) {
    const long long v = static_cast<long long>(r.next()) >> r.below(63);
    w.begin_object().member("text", std::to_string(v)).member("v", v).end_object();
  }
  w.end_array().end_object();
  REQUIRE(w.complete());
  probe_test::temp_dir dir;
  {
    std::ofstream f(dir / "w.json", std::ios::binary);
    f << out;
  }
  int rc = 0;
  const std::string report = run_python("writer " + (dir / "w.json"), &rc);
  INFO(report);
  CHECK(rc == 0);
  CHECK(report.find(": 0 bad") != std::string::npos);
}

TEST_CASE("json reader: every kind, key order, exact integers") {
  json::value v;
  std::string err;
  REQUIRE_MESSAGE(json::parse(R"( {"z": 1, "a": [true, false, null, -2.5e3, "s"], "big": 9007199254740993,
      "huge": 123456789012345678901234567890, "f": 1.0, "neg0": -0.0, "o": {}, "z": 2} )", v, &err), err);
  REQUIRE(v.is_object());
  CHECK(v.size() == 8);
  CHECK(v.key(0) == "z");
  CHECK(v.key(1) == "a");
  CHECK(v.get_int("z") == 2);  // a repeated name: the last one wins, as in Python
  const json::value& a = v.get("a");
  REQUIRE(a.size() == 5);
  CHECK(a[0].as_bool());
  CHECK(a[1].is_bool());
  CHECK_FALSE(a[1].as_bool(true));
  CHECK(a[2].is_null());
  CHECK(a[3].as_double() == -2500);
  CHECK(a[3].is_integer());
  CHECK(a[4].as_string() == "s");
  CHECK(a[9].is_null());
  CHECK(v.get_int("big") == 9007199254740993LL);
  CHECK(v.get("big").is_integer_text());
  CHECK_FALSE(v.get("huge").is_integer());
  CHECK(v.get_double("huge") == 123456789012345678901234567890.0);
  CHECK(v.get("f").is_integer());
  CHECK_FALSE(v.get("f").is_integer_text());
  CHECK_FALSE(v.get("neg0").is_integer());
  CHECK(std::signbit(v.get_double("neg0")));
  CHECK(v.get("o").is_object());
  CHECK(v.find("missing") == nullptr);
  CHECK(v.get_string("missing", "fallback") == "fallback");
  CHECK(json::to_string(v) ==
        R"({"z":1,"a":[true,false,null,-2500.0,"s"],"big":9007199254740993,"huge":1.2345678901234568e+29,"f":1.0,"neg0":-0.0,"o":{},"z":2})");
}

TEST_CASE("json reader: string escapes, surrogate pairs, lenient tokens, BOM") {
  json::value v;
  REQUIRE(json::parse(R"(["\u00e9\u20ac", "\ud834\udd1e", "\ud834x", "\udd1e", "\"\\\/\b\f\n\r\t", "\u0000"])", v));
  CHECK(v[0].as_string() == "\xc3\xa9\xe2\x82\xac");
  CHECK(v[1].as_string() == "\xf0\x9d\x84\x9e");
  CHECK(v[2].as_string() == "\xef\xbf\xbdx");  // a lone surrogate becomes U+FFFD
  CHECK(v[3].as_string() == "\xef\xbf\xbd");
  CHECK(v[4].as_string() == "\"\\/\b\f\n\r\t");
  CHECK(v[5].as_string() == std::string(1, '\0'));
  REQUIRE(json::parse("[NaN, Infinity, -Infinity]", v));
  CHECK(std::isnan(v[0].as_double()));
  CHECK(v[1].as_double() == HUGE_VAL);
  CHECK(v[2].as_double() == -HUGE_VAL);
  REQUIRE(json::parse("\xEF\xBB\xBF{\"a\":1}", v));
  CHECK(v.get_int("a") == 1);
  REQUIRE(json::parse("1e400", v));
  CHECK(v.as_double() == HUGE_VAL);
}

TEST_CASE("json reader: malformed input gets a message with line and column") {
  CHECK(parse_error("") == "line 1, column 1: empty input, expected a JSON value");
  CHECK(parse_error("{\"a\":1,}") == "line 1, column 8: expected '\"' to begin an object member name");
  CHECK(parse_error("{\"a\" 1}") == "line 1, column 6: expected ':' after an object member name");
  CHECK(parse_error("{\n  \"a\": 1\n  \"b\": 2\n}") == "line 3, column 3: expected ',' or '}' after an object member");
  CHECK(parse_error("[1 2]") == "line 1, column 4: expected ',' or ']' after an array element");
  CHECK(parse_error("[1,]") == "line 1, column 4: expected a value (object, array, string, number, true, false or null)");
  CHECK(parse_error("\"abc") == "line 1, column 5: unterminated string");
  CHECK(parse_error("\"a\tb\"") == "line 1, column 3: control character in a string (it must be escaped)");
  CHECK(parse_error("\"\\q\"") == "line 1, column 2: unknown escape in a string");
  CHECK(parse_error("\"\\u12\"") == "line 1, column 2: \\u needs four hex digits");
  CHECK(parse_error("01") == "line 1, column 2: leading zeros are not allowed in numbers");
  CHECK(parse_error("1.") == "line 1, column 3: expected digits after the decimal point");
  CHECK(parse_error("-") == "line 1, column 2: expected digits in a number");
  CHECK(parse_error("1e+") == "line 1, column 4: expected digits in the exponent");
  CHECK(parse_error("tru") == "line 1, column 1: expected a value (object, array, string, number, true, false or null)");
  CHECK(parse_error("{} x") == "line 1, column 4: unexpected text after the JSON value");
  CHECK(parse_error("[1, 2") == "line 1, column 6: expected ',' or ']' after an array element");
}

TEST_CASE("json reader: hostile input -- deep nesting, every truncation, random corruption") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(parse_error(deep) == "line 1, column 257: nesting deeper than the limit");
  json::parse_options shallow;
  shallow.max_depth = 2;
  CHECK(parse_error("[[[1]]]", shallow).find("nesting deeper than the limit") != std::string::npos);
  json::value v;
  CHECK(json::parse("[[1]]", v, nullptr, shallow));

  const std::string doc = R"({"a":[1,2.5,"x\u00e9",{"b":null,"c":[true,false]}],"d":"\ud834\udd1e","e":-1e-7})";
  REQUIRE(json::parse(doc, v));
  for (size_t n = 0; n < doc.size(); ++n) {
    json::value part;
    CHECK_FALSE(json::parse(doc.substr(0, n), part));
  }
  probe_test::rng r{17};
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bad = doc;
    for (int k = 0, edits = 1 + r.below(3); k < edits; ++k)
      bad[static_cast<size_t>(r.below(static_cast<int>(bad.size())))] = static_cast<char>(r.next());
    json::value any;
    std::string err;
    if (json::parse(bad, any, &err))
      ++parsed;
    else
      CHECK(err.rfind("line ", 0) == 0);
  }
  CHECK(parsed < 20000);
}

TEST_CASE("json: documents written by Python's json module survive a round trip through probe") {
  probe_test::temp_dir dir;
  for (int seed = 1; seed <= 5; ++seed) {
    const std::string in = dir / ("in" + std::to_string(seed) + ".json");
    const std::string out = dir / ("out" + std::to_string(seed) + ".json");
    int rc = 0;
    const std::string made = run_python("make " + in + " " + std::to_string(seed), &rc);
    REQUIRE_MESSAGE(rc == 0, made);
    std::ifstream f(in, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    json::value v;
    std::string err;
    REQUIRE_MESSAGE(json::parse(ss.str(), v, &err), err);
    std::ofstream(out, std::ios::binary) << json::to_string(v);
    const std::string report = run_python("same " + in + " " + out, &rc);
    INFO(report);
    CHECK(rc == 0);
  }
}
