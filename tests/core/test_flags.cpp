#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/core/flags.hpp>


#include <fstream>

#include "../support/capture.hpp"

using probe_test::capture_fd;

namespace {
const probe::options& with(const char* flags, std::string* err = nullptr) {
  capture_fd cap;
  probe::set_flags(flags);
  if (err) *err = cap.stop();
  return probe::options_ref();
}
}  // namespace

TEST_CASE("flags: defaults with nothing set") {
  const auto& o = with("");
  CHECK_FALSE(o.dump);
  CHECK(o.print);
  CHECK(o.callback);
  CHECK_FALSE(o.timing);
  CHECK(std::string(o.breakpoint) == "auto");
  CHECK(o.breakpoint_as == probe::breakpoint_mode::auto_);
}

TEST_CASE("flags: --name=value, --name value, booleans, --noname") {
  const auto& o = with("--probe_dump_to=/tmp/a --probe_dump_op_re conv --probe_dump_as_npy "
                       "--probe_noprint --probe_timing=false --probe_reference=1");
  CHECK(std::string(o.dump_to) == "/tmp/a");
  CHECK(std::string(o.dump_op_re) == "conv");
  CHECK(o.dump_as_npy);
  CHECK_FALSE(o.dump_as_text);  // a format was named: no default text
  CHECK_FALSE(o.print);
  CHECK_FALSE(o.timing);
  CHECK(o.reference);
  CHECK(probe::reference_mode());
  for (const char* t : {"true", "1", "on", "yes", "TRUE"}) {
    std::string f = std::string("--probe_timing=") + t;
    CHECK(with(f.c_str()).timing);
  }
  for (const char* t : {"false", "0", "off", "no"}) {
    std::string f = std::string("--probe_print=") + t;
    CHECK_FALSE(with(f.c_str()).print);
  }
  CHECK(with("-probe_timing").timing);  // one dash is accepted too
}

TEST_CASE("flags: quotes and escapes") {
  auto& o = with("--probe_dump_to='/tmp/a dir' --probe_dump_op_re=\"a\\\"b c\\\\d\"");
  CHECK(std::string(o.dump_to) == "/tmp/a dir");
  CHECK(std::string(o.dump_op_re) == "a\"b c\\d");
  std::string err;
  with("--probe_dump_to='/tmp/x", &err);
  CHECK(err.find("unterminated single quote") != std::string::npos);
}

TEST_CASE("flags: intent") {
  auto& o = with("--probe_dump_to=/tmp/x");
  CHECK(o.dump);
  CHECK(o.dump_as_text);
  CHECK_FALSE(o.dump_to_stdout);
  auto& s = with("--probe_dump_stats_only");
  CHECK(s.dump);
  CHECK(s.dump_to_stdout);
  auto& f = with("--probe_dump_op_re=conv");
  CHECK(f.dump);
  CHECK(f.dump_as_text);
  CHECK(f.dump_to_stdout);
  std::string err;
  auto& n = with("--probe_dump_as_npy", &err);
  CHECK(n.dump_to_stdout);
  CHECK_FALSE(n.dump_as_npy);
  CHECK(n.dump_as_text);
  CHECK(err.find("need --probe_dump_to=DIR") != std::string::npos);
  CHECK(with("--probe_trace_to=/tmp/t.json").timing);
  CHECK(with("--probe_timing_summary").timing);
  CHECK(with("--probe_breakpoint=trap").breakpoint_as == probe::breakpoint_mode::trap);
}

TEST_CASE("flags: sizes and integers") {
  CHECK(with("--probe_dump_max_bytes=4096").dump_max_bytes == 4096u);
  CHECK(with("--probe_dump_max_bytes=512K").dump_max_bytes == 512u * 1024);
  CHECK(with("--probe_dump_max_bytes=64M").dump_max_bytes == 64u * 1024 * 1024);
  CHECK(with("--probe_dump_max_bytes=2g").dump_max_bytes == 2ull * 1024 * 1024 * 1024);
  CHECK(with("--probe_dump_max_bytes=1.5KiB").dump_max_bytes == 1536u);
  CHECK(with("--probe_dump_max_bytes=100B").dump_max_bytes == 100u);
  CHECK(with("--probe_dump_max_ops=12").dump_max_ops == 12);
  // decimal only, one suffix: what strtod or a loose suffix would also take is refused
  for (const char* bad : {"0x10", "1e6", "inf", "100BB", "100BiB", "1.2.3K", "1.3K"}) {
    std::string err;
    CAPTURE(bad);
    CHECK(with((std::string("--probe_dump_max_bytes=") + bad).c_str(), &err).dump_max_bytes == 0u);
    CHECK(err.find("a fraction must come to whole bytes") != std::string::npos);
  }
}

TEST_CASE("flags: bad values name the flag and the value, and keep the default") {
  std::string err;
  auto& o = with("--probe_dump_max_bytes=lots", &err);
  CHECK(o.dump_max_bytes == 0u);
  CHECK(err.find("'lots'") != std::string::npos);
  CHECK(err.find("--probe_dump_max_bytes") != std::string::npos);
  const probe::options& negative = with("--probe_dump_max_ops=-3", &err);
  CHECK(err.find("--probe_dump_max_ops") != std::string::npos);
  // a dump filter or budget that cannot be read narrows the dump to nothing, never widens it
  CHECK(negative.dump_narrowing_unread);
  CHECK(err.find("nothing is dumped") != std::string::npos);
  for (const char* bad : {"--probe_dump_every=abc", "--probe_dump_every=-2", "--probe_dump_max_bytes=10X",
                          "--probe_dump_max_bytes=99999999999999999999", "--probe_dump_max_ops=1.5",
                          "--probe_dump_ir_min_ops=abc"}) {
    CAPTURE(bad);
    CHECK(with(bad, &err).dump_narrowing_unread);
    CHECK(err.find("nothing is dumped") != std::string::npos);
  }
  CHECK_FALSE(with("--probe_dump_max_bytes=1M --probe_dump_every=3 --probe_dump_ir_min_ops=2", &err).dump_narrowing_unread);
  with("--probe_timing=maybe", &err);
  CHECK(err.find("'maybe'") != std::string::npos);
  auto& b = with("--probe_breakpoint=sometimes", &err);
  CHECK(err.find("prompt|trap|dump|abort|off") != std::string::npos);
  CHECK(std::string(b.breakpoint) == "auto");
  with("--probe_dump_to", &err);
  CHECK(err.find("needs a value") != std::string::npos);
}

TEST_CASE("flags: unknown flag suggests the closest name and parsing goes on") {
  std::string err;
  auto& o = with("--probe_dump_too=/tmp/x --probe_timing", &err);
  CHECK(err.find("unknown flag --probe_dump_too") != std::string::npos);
  CHECK(err.find("did you mean --probe_dump_to?") != std::string::npos);
  CHECK(o.timing);  // flags after the unknown one still apply
  with("--xla_dump_to=/tmp/x", &err);
  CHECK(err.find("unknown flag --xla_dump_to") != std::string::npos);
  CHECK(err.find("--probe_dump_to") != std::string::npos);
  with("--probe_completely_unrelated_words", &err);
  CHECK(err.find("--probe_help lists them all") != std::string::npos);
}

TEST_CASE("flags: a file of flags; a missing file is a clear error") {
  probe_test::temp_dir d;
  {
    std::ofstream f(d / "flags.txt");
    f << "# dump settings\n--probe_dump_to=/tmp/from_file   # trailing comment\n"
         "--probe_dump_as_npy\n";
  }
  std::string flags = "--probe_timing " + (d / "flags.txt");
  auto& o = with(flags.c_str());
  CHECK(std::string(o.dump_to) == "/tmp/from_file");
  CHECK(o.dump_as_npy);
  CHECK(o.timing);
  std::string err;
  with("/nonexistent/probe_flags_file", &err);
  CHECK(err.find("cannot read flags file '/nonexistent/probe_flags_file'") != std::string::npos);
  // Paths that are not files of flags: a folder, an endless device. One message, then go on.
  auto& t = with(("--probe_timing " + d.path() + " /dev/zero").c_str(), &err);
  CHECK(err.find("cannot read flags file '" + d.path() + "': Is a directory") != std::string::npos);
  CHECK(err.find("flags file '/dev/zero' is larger than 1 MiB") != std::string::npos);
  CHECK(t.timing);
}

TEST_CASE("flags: --probe_help lists every flag with its default") {
  std::string err;
  with("--probe_help", &err);
  for (const char* name : {"--probe_dump_to", "--probe_dump_as_npy", "--probe_dump_max_bytes=N[KMG]",
                           "--probe_breakpoint=MODE", "--probe_trace_to", "--probe_strict_flags"})
    CHECK_MESSAGE(err.find(name) != std::string::npos, name);
  CHECK(err.find("[default: 50000000]") != std::string::npos);
}

TEST_CASE("flags: probe::init takes --probe_* arguments and removes them from argv") {
  with("--probe_timing");
  char a0[] = "app", a1[] = "--probe_dump_to", a2[] = "/tmp/argv_dir", a3[] = "input.bin",
       a4[] = "--probe_reference", a5[] = "--verbose";
  char* argv[] = {a0, a1, a2, a3, a4, a5, nullptr};
  int argc = 6;
  probe::init(argc, argv);
  REQUIRE(argc == 3);
  CHECK(std::string(argv[0]) == "app");
  CHECK(std::string(argv[1]) == "input.bin");
  CHECK(std::string(argv[2]) == "--verbose");
  CHECK(argv[3] == nullptr);
  const auto& o = probe::options_ref();
  CHECK(std::string(o.dump_to) == "/tmp/argv_dir");
  CHECK(o.reference);
  CHECK(o.timing);  // env flags stay, command line applies on top
  // Later set_flags keeps the command-line flags on top.
  auto& o2 = with("--probe_reference=false");
  CHECK(o2.reference);  // argv wins over the environment
  probe::detail::clear_argv_flags();
  CHECK_FALSE(with("").reference);
}
