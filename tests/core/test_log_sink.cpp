// probe::set_log_sink: every library message goes to the sink instead of stderr, whole and
// without the "probe: " prefix; nullptr restores stderr.
#include <doctest/doctest.h>
#include <probe/probe.hpp>

#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace {
struct collected {
  std::vector<std::string> lines;
};
void collect(const char* message, void* user) { static_cast<collected*>(user)->lines.emplace_back(message); }
}  // namespace

TEST_CASE("log sink: messages reach the sink, not stderr; nullptr restores stderr") {
  collected got;
  probe::set_log_sink(collect, &got);
  probe_test::capture_fd err(2);
  probe::set_flags("--probe_dump_tooo=x");  // an unknown flag: one message
  const std::string on_stderr = err.stop();
  CHECK(on_stderr.empty());
  REQUIRE(got.lines.size() == 1);
  CHECK(got.lines[0].find("--probe_dump_tooo") != std::string::npos);
  CHECK(got.lines[0].find("did you mean --probe_dump_to") != std::string::npos);
  CHECK(got.lines[0].rfind("probe: ", 0) == std::string::npos);
  CHECK(got.lines[0].find('\n') == std::string::npos);

  probe::set_log_sink(nullptr);
  probe_test::capture_fd err2(2);
  probe::set_flags("--probe_dump_tooo2=x");
  const std::string back = err2.stop();
  CHECK(back.rfind("probe: ", 0) == 0);
  CHECK(got.lines.size() == 1);
  probe::set_flags("");
}

TEST_CASE("log: a message longer than the stack buffer arrives whole, its reason at the end") {
  const std::string name(5000, 'n');
  collected got;
  probe::set_log_sink(collect, &got);
  probe::detail::log("op %s: attribute 'a' not recorded (too long)", name.c_str());
  probe::set_log_sink(nullptr);
  REQUIRE(got.lines.size() == 1);
  CHECK(got.lines[0] == "op " + name + ": attribute 'a' not recorded (too long)");
  CHECK(got.lines[0].find(" not recorded (too long)") != std::string::npos);
  probe_test::capture_fd err(2);
  probe::detail::log("op %s: attribute 'a' not recorded (too long)", name.c_str());
  const std::string line = err.stop();
  CHECK(line == "probe: op " + name + ": attribute 'a' not recorded (too long)\n");
}
