// PROBE_SCOPE blocks are breakpoint frames, interleaved with op frames as they nest; they link
// themselves only while breakpoints and op frames are on.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/effects/breakpoint_frames.hpp>
#include <probe/effects/breakpoint_prompt.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

void append_text(void* ctx, const char* text, size_t n) { static_cast<std::string*>(ctx)->append(text, n); }

std::vector<std::string> titles(const probe::detail::stop_info& s) {
  std::vector<std::string> t;
  for (size_t i = 0; i < s.frames.size(); ++i) t.push_back(probe::detail::frame_title(s.frames[i], i));
  return t;
}

int g_outer_line = 0, g_inner_line = 0;

probe::detail::stop_info nested_stop() {
  std::vector<float> x{1, 2};
  PROBE_SCOPE("outer"); g_outer_line = __LINE__;
  probe::op layer("L1", "Block");
  layer.input("x", x);
  {
    PROBE_SCOPE("inner"); g_inner_line = __LINE__;
    const probe::var_ref vars[] = {probe::var("x", x)};
    return probe::detail::breakpoint_stop(__FILE__, __LINE__, "nested_stop", vars, 1);
  }
}

}  // namespace

TEST_CASE("scopes: frames innermost first, interleaved with ops; up, down and where walk them") {
  probe::set_flags("--probe_breakpoint=prompt");
  probe::detail::stop_info s = nested_stop();
  const std::string here = __FILE__;
  const std::vector<std::string> t = titles(s);
  REQUIRE(t.size() == 4);
  CHECK(t[1] == "#1 scope inner at " + here + ":" + std::to_string(g_inner_line) + " in nested_stop()");
  CHECK(t[2] == "#2 op L1 (Block) seq 1, step 0");
  CHECK(t[3] == "#3 scope outer at " + here + ":" + std::to_string(g_outer_line) + " in nested_stop()");
  s.reason = "breakpoint";
  std::string in = "u\nu\nu\nl\nd 2\nw\nc\n", out;
  FILE* f = fmemopen(&in[0], in.size(), "r");
  probe::detail::prompt_io io;
  io.in = f;
  io.echo = true;
  io.write = &append_text;
  io.ctx = &out;
  probe::detail::run_prompt(s, io);
  std::fclose(f);
  CHECK(out.find("(probe) u\n> " + t[1] + "\n(probe) u\n> " + t[2] + "\n(probe) u\n> " + t[3] + "\n") !=
        std::string::npos);
  CHECK(out.find("(probe) l\n") != std::string::npos);
  CHECK(out.find(" ->\t  PROBE_SCOPE(\"outer\"); g_outer_line = __LINE__;\n") != std::string::npos);
  CHECK(out.find("(probe) w\n  " + t[3] + "\n  " + t[2] + "\n> " + t[1] + "\n  #0 ") != std::string::npos);
  probe::set_flags("");
}

TEST_CASE("scopes: no scope frames while breakpoints or op frames are off") {
  probe::set_flags("--probe_timing --probe_breakpoint=off");
  {
    PROBE_SCOPE("timed_only");
    CHECK(probe::detail::current_scope() == nullptr);
  }
  probe::set_flags("");  // breakpoints on ('auto'), no op frames: a leftover breakpoint shows its own variables
  CHECK(nested_stop().frames.size() == 1);
  probe::set_flags("--probe_timing");  // op recording and breakpoints both on: scopes link
  {
    PROBE_SCOPE("linked");
    REQUIRE(probe::detail::current_scope() != nullptr);
    CHECK(std::string(probe::detail::current_scope()->site->name) == "linked");
  }
  CHECK(probe::detail::current_scope() == nullptr);
  probe::set_flags("");
}
