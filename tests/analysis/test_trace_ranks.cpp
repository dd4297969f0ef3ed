// probe show's reading of a timing trace (tools/analysis/trace_ranks.hpp): rows per name and
// kind, a cut trace said to be cut, traces another tool re-saved or wrote as a bare array.
#include <doctest/doctest.h>

#include <string>

#include "analysis/trace_ranks.hpp"

namespace pa = probe::analysis;

namespace {

const char* const k_events =
    R"({"name":"collide","cat":"op","ph":"X","ts":0,"dur":1000,"pid":7,"tid":1},)"
    R"({"name":"collide","cat":"op","ph":"X","ts":1,"dur":1000,"pid":7,"tid":1},)"
    R"({"name":"collide","cat":"scope","ph":"X","ts":2,"dur":3,"pid":7,"tid":1},)"
    R"({"name":"stream","cat":"scope","ph":"X","ts":3,"dur":500,"pid":7,"tid":1})";

pa::trace_ranks read(const std::string& text) {
  pa::trace_ranks t;
  std::string error;
  REQUIRE(pa::looks_like_trace(text));
  REQUIRE_MESSAGE(pa::read_trace_ranks(text, &t, &error), error);
  return t;
}

}  // namespace

TEST_CASE("trace: one row per name and kind; a name of two kinds is told apart") {
  const pa::trace_ranks t = read(std::string("{\"traceEvents\":[\n") + k_events + "\n]}");
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0].name == "collide [op]");
  CHECK(t.rows[0].calls.at(7) == 2);
  CHECK(t.rows[0].total_us.at(7) == 2000);
  CHECK(t.rows[2].name == "collide [scope]");
  CHECK(t.rows[2].calls.at(7) == 1);
  CHECK(t.rows[1].name == "stream");  // one kind: its name alone
  const std::string text = pa::trace_ranks_text(t);
  CHECK(text.find("note: the trace was cut") == std::string::npos);
}

TEST_CASE("trace: a cut trace says so, with the events it left out") {
  const std::string cut = std::string("{\"traceEvents\":[\n") + k_events +
                          ",\n{\"name\":\"probe: trace truncated at --probe_trace_max_events\",\"ph\":\"i\",\"s\":\"g\","
                          "\"ts\":9,\"pid\":7,\"tid\":0}\n],\"otherData\":{\"events_left_out\":79}}";
  const pa::trace_ranks t = read(cut);
  CHECK(t.events_left_out == 79);
  CHECK(t.truncated == std::vector<int64_t>{7});
  CHECK(pa::trace_ranks_text(t).find("note: the trace was cut at --probe_trace_max_events (79 events left out): these "
                                     "totals count only the events kept") != std::string::npos);
}

TEST_CASE("trace: a count of events left out past 2^64 (another tool's) reads as the most there can be") {
  const pa::trace_ranks t = read(std::string("{\"traceEvents\":[") + k_events + "],\"otherData\":{\"events_left_out\":1e30}}");
  CHECK(t.events_left_out == UINT64_MAX);
}

TEST_CASE("trace: members in another order, or the bare array form, read the same") {
  const pa::trace_ranks first = read(std::string("{\"otherData\":{},\"traceEvents\":[") + k_events + "]}");
  const pa::trace_ranks bare = read(std::string("  [") + k_events + "]");
  REQUIRE(first.rows.size() == 3);
  REQUIRE(bare.rows.size() == 3);
  CHECK(bare.rows[0].total_us.at(7) == 2000);
  CHECK_FALSE(pa::looks_like_trace("{\"record\":\"run\"}"));
  CHECK_FALSE(pa::looks_like_trace("[1, 2, 3]"));
}

TEST_CASE("trace: cells widen for large call counts") {
  std::string ev = "{\"traceEvents\":[\n";
  ev += R"({"name":"x","cat":"scope","ph":"X","ts":0,"dur":10000000,"pid":1,"tid":1})";
  ev += "\n]}";
  pa::trace_ranks t = read(ev);
  t.rows[0].calls[1] = 1000000;  // as a million events would count
  const std::string text = pa::trace_ranks_text(t);
  const size_t head = text.find("name"), row = text.find("\nx ");
  REQUIRE(head != std::string::npos);
  REQUIRE(row != std::string::npos);
  // the process's label ends where its cell "10000.000 (1000000)" ends
  const std::string header = text.substr(head, text.find('\n', head) - head);
  const std::string line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  CHECK(line.find("10000.000 (1000000)") != std::string::npos);
  CHECK(header.find("pid 1") + 5 == line.find(')') + 1);
}
