// The manifest reader's flat JSON tape (tools/analysis/json_tape.hpp) against json::parse:
// the same documents accepted, the same values read, over hand-picked edge cases and over
// many documents mutated from them.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "analysis/json_tape.hpp"

namespace {

namespace pa = probe::analysis;
namespace json = probe::json;

// "" when the tape and json::parse agree on text, else what differs.
std::string disagreement(const std::string& text) {
  pa::json_tape tape;
  json::value dom;
  const bool by_tape = tape.parse(text.data(), text.size());
  const bool by_dom = json::parse(text, dom);
  if (by_tape != by_dom) return std::string("accepted by ") + (by_tape ? "the tape only" : "json::parse only");
  if (!by_tape) return std::string();
  const std::string a = json::to_string(tape.root().to_value()), b = json::to_string(dom);
  return a == b ? std::string() : "read as " + a + " by the tape, " + b + " by json::parse";
}

const char* const k_documents[] = {
    R"({"record":"tensor","seq":3,"op":"mm","shape":[2,3],"stats":{"min":-1.5,"max":2e3,"nan":0}})",
    R"({"a":1,"a":2,"b":{"a":3}})",
    R"({"k\u0065y":"a\nb\t\"c\" \\ \/","e\u00e9":"\ud83d\ude00 \ud800 x \udc00"})",
    R"([1.0, -0, -0.0, 0.5, 1e3, 1E-2, 9223372036854775807, 9223372036854775808, -9223372036854775808, 1e400])",
    R"([NaN, Infinity, -Infinity, true, false, null, "", {}, []])",
    "\xEF\xBB\xBF {\"bom\" : true}",
    " \t\r\n[ 1 , [ 2 , { } ] ]\n ",
    "\"just a string\"", "42", "-", "01", "1.", "1e", "[1,]", "{\"a\"}", "{\"a\":}", "{,}", "[", "]", "",
    "nul", "tru", "NaNa", "\"\\x\"", "\"\\u12\"", "\"a\x01\"", "{\"a\":1}}", "[1 2]", "{\"a\":1,}", "-Infinity1",
    "\"unterminated", "{\"a\":\"\\ud83d\\u0041\"}",
};

}  // namespace

TEST_CASE("json tape: accepts and reads exactly what json::parse does") {
  for (const char* doc : k_documents) CHECK_MESSAGE(disagreement(doc).empty(), doc, ": ", disagreement(doc));
}

TEST_CASE("json tape: documents mutated from valid ones") {
  // Deterministic mutations (a byte changed, dropped, doubled, a token spliced in) of each
  // valid document: whatever json::parse makes of them, the tape makes the same.
  const char* const splices[] = {"\\", "\"", ",", ":", "[", "]", "{", "}", "-", "0", "e", ".", "\\u00", " ", "NaN", "\x80"};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  size_t checked = 0, accepted = 0;
  for (const char* doc : k_documents) {
    const std::string base = doc;
    if (base.empty()) continue;
    for (int round = 0; round < 2000; ++round) {
      std::string m = base;
      for (int edits = 1 + static_cast<int>(next() % 3); edits > 0 && !m.empty(); --edits) {
        const size_t at = next() % m.size();
        switch (next() % 4) {
          case 0: m[at] = static_cast<char>(next() & 0xFF); break;
          case 1: m.erase(at, 1); break;
          case 2: m.insert(at, 1, m[at]); break;
          default: m.insert(at, splices[next() % (sizeof splices / sizeof *splices)]); break;
        }
      }
      const std::string why = disagreement(m);
      CHECK_MESSAGE(why.empty(), m, ": ", why);
      ++checked;
      json::value v;
      accepted += json::parse(m, v);
    }
  }
  CHECK(checked > 50000);
  CHECK(accepted > 1000);  // the mutations reach both sides of the grammar
}

TEST_CASE("json tape: nesting limit, repeated names, numbers, reuse") {
  pa::json_tape tape;
  const std::string deep_ok = std::string(256, '[') + std::string(256, ']');
  const std::string too_deep = std::string(257, '[') + std::string(257, ']');
  CHECK(tape.parse(deep_ok.data(), deep_ok.size()));
  CHECK_FALSE(tape.parse(too_deep.data(), too_deep.size()));
  CHECK(disagreement(too_deep).empty());

  const std::string rec = R"({"seq":1,"op":"a","seq":7,"shape":[4,5],"x":1.0,"y":-0.0,"z":2.5,"s":"q\"r"})";
  REQUIRE(tape.parse(rec.data(), rec.size()));
  const pa::json_tape::ref r = tape.root();
  CHECK(r.get_int("seq") == 7);  // the last of a repeated name, as json::value
  static constexpr std::string_view names[] = {"op", "seq", "shape", "missing"};
  pa::json_tape::ref m[4];
  r.pick(names, m);
  CHECK(m[0].as_string() == "a");
  CHECK(m[1].as_int() == 7);
  CHECK(m[2].size() == 2);
  CHECK(m[2][1].as_int() == 5);
  CHECK_FALSE(m[3]);
  CHECK(m[3].is_null());
  CHECK(r.get("x").is_integer());  // 1.0 is integral, as json::value says
  CHECK_FALSE(r.get("y").is_integer());
  CHECK(r.get("z").as_double() == 2.5);
  CHECK(r.get_string("s") == "q\"r");

  // Parsing again reuses the memory; what the new document holds is read, not the old.
  const std::string other = R"({"s":"\u0041\u0042","t":[true]})";
  REQUIRE(tape.parse(other.data(), other.size()));
  CHECK(tape.root().get_string("s") == "AB");
  CHECK(tape.root().get("t")[0].as_bool());
  CHECK_FALSE(tape.root().get("seq"));
}
