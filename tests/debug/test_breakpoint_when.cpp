// --probe_break_if conditions and the blocks of a commands file, parsed and matched in process.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/effects/breakpoint_when.hpp>

#include <string>
#include <vector>

using probe::detail::command_block;
using probe::detail::stop_info;
using probe::detail::when_condition;
using probe::detail::when_facts;

namespace {

bool holds(const char* cond, const char* op, int64_t step, uint64_t hit) {
  when_condition c;
  std::string err;
  REQUIRE_MESSAGE(probe::detail::parse_when(cond, &c, &err), err);
  when_facts f;
  f.op = op;
  f.type = op ? "Block" : nullptr;
  f.step = step;
  f.hit = hit;
  return probe::detail::when_holds(c, f);
}

std::string parse_error(const char* cond) {
  when_condition c;
  std::string err;
  CHECK_FALSE(probe::detail::parse_when(cond, &c, &err));
  return err;
}

stop_info stop_at(const char* file, int line, const char* function, uint64_t hit, const char* op) {
  stop_info s;
  s.hit = hit;
  probe::detail::frame f;
  f.file = file;
  f.line = line;
  f.name = function;
  s.frames.push_back(f);
  if (op) {
    probe::detail::frame o;
    o.kind = probe::detail::frame_kind::op;
    o.name = op;
    s.frames.push_back(o);
  }
  return s;
}

}  // namespace

TEST_CASE("break_if: op regex, step and hit comparisons, && binds tighter than ||") {
  CHECK(holds("", nullptr, 0, 1));
  CHECK(holds("op=L1\\..*", "L1.attn", 0, 1));
  CHECK_FALSE(holds("op=L1\\..*", "L11attn", 0, 1));
  CHECK_FALSE(holds("op=L1", nullptr, 0, 1));   // outside every op: no op matches
  CHECK_FALSE(holds("op!=L1", nullptr, 0, 1));
  CHECK(holds("op!=L1", "L2.mlp", 0, 1));
  CHECK(holds("type=^Block$", "x", 0, 1));
  CHECK(holds("step>=3", nullptr, 3, 1));
  CHECK_FALSE(holds("step>3", nullptr, 3, 1));
  CHECK(holds("step<0", nullptr, -1, 1));
  CHECK(holds("step == 2 && hit <= 4", nullptr, 2, 4));
  CHECK_FALSE(holds("step == 2 && hit < 4", nullptr, 2, 4));
  CHECK(holds("step==9 || hit==4 && op=mlp", "L0.mlp", 2, 4));
  CHECK_FALSE(holds("step==9 || hit==4 && op=attn", "L0.mlp", 2, 4));
}

TEST_CASE("break_if: errors say what and where") {
  CHECK(parse_error("stp>=3") == "unknown name 'stp' at 1 (op=RE, type=RE, step CMP N, hit CMP N)");
  CHECK(parse_error("step>=") == "expected a number after 'step>=' at 7");
  CHECK(parse_error("op>x") == "expected '=' or '!=' after 'op' at 3");
  CHECK(parse_error("hit 3") == "expected '==', '!=', '<', '<=', '>' or '>=' after 'hit' at 5");
  CHECK(parse_error("op=(x").find("bad regex '(x'") == 0);
  CHECK(parse_error("step==1 &&") == "expected a name at 11 (op=RE, type=RE, step CMP N, hit CMP N)");
  CHECK(parse_error("op=") == "expected a regular expression after 'op' at 4");
}

TEST_CASE("commands file: blocks by location, name and hit count; lines before any header everywhere") {
  std::vector<command_block> blocks;
  std::string err;
  REQUIRE(probe::detail::parse_command_blocks("# comment\nw\n\n@ model.cpp:42\np y\n@ forward hit 2\nstats y\n"
                                              "@ hit 3\nc\n@ L1.attn\nup\n",
                                              &blocks, &err));
  REQUIRE(blocks.size() == 5);
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/model.cpp", 42, "forward", 1, nullptr)) == "w\np y\n");
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/model.cpp", 42, "forward", 2, nullptr)) ==
        "w\np y\nstats y\n");
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/xmodel.cpp", 42, "other", 3, nullptr)) == "w\nc\n");
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("model.cpp", 43, "f", 1, "L1.attn")) == "w\nup\n");
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("model.cpp", 42, "f", 1, nullptr)) == "w\np y\n");
  CHECK_FALSE(probe::detail::parse_command_blocks("p x\n@ hit x\n", &blocks, &err));
  CHECK(err == "line 2: 'hit' needs a count from 1");
  CHECK_FALSE(probe::detail::parse_command_blocks("@\n", &blocks, &err));
  CHECK(err == "line 1: '@' needs FILE:LINE, a name or 'hit N'");
  CHECK_FALSE(probe::detail::parse_command_blocks("@ a.cpp:0\n", &blocks, &err));
}

TEST_CASE("commands file: a header's comment is not a word, and every word must match") {
  std::vector<command_block> blocks;
  std::string err;
  // As docs/debug.md writes them: a '#' word ends the header's words.
  REQUIRE(probe::detail::parse_command_blocks("@ model.cpp:42   # stops at this line\nstats y\n"
                                              "@ forward hit 3 # the 3rd arrival\ndump y\n"
                                              "@ forward L1.attn #inside\nup\n",
                                              &blocks, &err));
  REQUIRE(blocks.size() == 4);
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/model.cpp", 42, "f", 1, nullptr)) == "stats y\n");
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/m.cpp", 7, "forward", 3, nullptr)) == "dump y\n");
  // Both names: the function and an enclosing op; one of them alone is not enough.
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/m.cpp", 7, "forward", 1, "L1.attn")) == "up\n");
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/m.cpp", 7, "other", 1, "L1.attn")) == "");
  CHECK(probe::detail::commands_for_stop(blocks, stop_at("/src/m.cpp", 7, "forward", 1, "L2.attn")) == "");
  CHECK_FALSE(probe::detail::parse_command_blocks("@ a.cpp:1 b.cpp:2\n", &blocks, &err));
  CHECK(err == "line 1: two places ('a.cpp:1' and 'b.cpp:2'); a header names one");
  CHECK_FALSE(probe::detail::parse_command_blocks("@ hit 1 hit 2\n", &blocks, &err));
  CHECK(err == "line 1: 'hit' given twice");
  CHECK_FALSE(probe::detail::parse_command_blocks("@ # only a comment\n", &blocks, &err));
}
