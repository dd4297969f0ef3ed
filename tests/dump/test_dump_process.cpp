// Dumps seen from outside the process: write limits, SIGKILL mid-dump, std::exit, mpirun.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "dump_fixture.hpp"

using dump_test::count_containing;
using dump_test::manifest_lines;
using dump_test::read_file;
using probe_test::temp_dir;

namespace {
// Runs the child with PROBE_FLAGS and returns its exit status; output into *out.
int run_child(const std::string& flags, const std::string& mode, std::string* out) {
  const std::string log = "/tmp/probe_dump_child_" + std::to_string(getpid()) + ".log";
  const std::string cmd = "PROBE_FLAGS='" + flags + "' " DUMP_CHILD_PATH " " + mode + " > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  // Without the sanitizers' own notes ("==PID==Running thread N was not suspended", printed
  // by LeakSanitizer in a forked child of a process that had threads).
  std::istringstream in(read_file(log));
  out->clear();
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, 2, "==") != 0) *out += line + "\n";
  unlink(log.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}
}  // namespace

TEST_CASE("dump process: a file-size limit reached mid-dump stops dumping, not the program") {
  temp_dir d;
  std::string out;
  const int rc = run_child("--probe_dump_to=" + d.path() + " --probe_dump_as_npy", "fsize", &out);
  CHECK(rc == 0);
  CHECK(count_containing({out}, "results ok") == 1);
  CHECK(out.find("results ok\nresults ok") != std::string::npos);
  CHECK(count_containing({out}, "dumping turned off") == 1);
  CHECK(out.find("File too large") != std::string::npos);
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"op\":\"small.join\"") == 3);
  CHECK(count_containing(lines, "\"op\":\"big.") == 0);
  // Whatever was written is whole: every manifest line parses, every named file loads.
  CHECK(dump_test::check_with_numpy(d.path()) == 0);
}

TEST_CASE("dump process: a filter that cannot be read is fatal with --probe_strict_flags") {
  temp_dir d;
  std::string out;
  const int rc = run_child("--probe_dump_to=" + d.path() + " --probe_strict_flags --probe_dump_op_re=^(?!x)", "once", &out);
  CHECK(rc == 2);
  CHECK(out.find("lookaround is not supported") != std::string::npos);
  CHECK(out.find("results ok") == std::string::npos);
}

TEST_CASE("dump process: values an effect finds malformed are fatal with --probe_strict_flags, else one message") {
  temp_dir d;
  const std::string bad[] = {"--probe_break_on_abs_above=abc", "--probe_break_if=foo~~bar",
                             "--probe_dump_to=" + d.path() + " --probe_dump_module_re=(",
                             "--probe_dump_to=" + d.path() + " --probe_dump_pass_re=("};
  for (const std::string& flags : bad) {
    CAPTURE(flags);
    std::string out;
    CHECK(run_child(flags + " --probe_strict_flags", "once", &out) == 2);
    CHECK(out.find("--probe_strict_flags: stopping") != std::string::npos);
    CHECK(out.find("results ok") == std::string::npos);
    CHECK(run_child(flags, "once", &out) == 0);
    CHECK(out.find("results ok") != std::string::npos);
  }
}

TEST_CASE("dump process: under --probe_strict_flags a bad value does not claim to keep the default") {
  std::string out;
  CHECK(run_child("--probe_timing=maybe --probe_strict_flags", "once", &out) == 2);
  CHECK(out.find("bad value 'maybe' for --probe_timing") != std::string::npos);
  CHECK(out.find("keeping the default") == std::string::npos);
  CHECK(out.find("--probe_strict_flags: stopping") != std::string::npos);
  CHECK(run_child("--probe_timing=maybe", "once", &out) == 0);
  CHECK(out.find("keeping the default") != std::string::npos);
}

TEST_CASE("dump process: a boolean dump flag set to false does not turn dumping on") {
  // (a text dump to stdout shows each op's header line; run_child drops lines that start with "==")
  std::string out;
  CHECK(run_child("--probe_dump_as_npy=false", "once", &out) == 0);
  CHECK(out.find("op 1 embed [Embed]") == std::string::npos);
  CHECK(out.find("results ok") != std::string::npos);
  CHECK(run_child("--probe_nodump_as_npy", "once", &out) == 0);
  CHECK(out.find("op 1 embed [Embed]") == std::string::npos);
  CHECK(run_child("--probe_dump_as_text", "once", &out) == 0);
  CHECK(out.find("op 1 embed [Embed]") != std::string::npos);  // a true one does
}

namespace {
// mode: "loop" (unnamed O_TMPFILE files linked into place, where the system has them) or
// "loop_named" (named temporaries renamed into place). threads: --probe_dump_threads.
void kill_mid_dump(const char* mode, int threads) {
  temp_dir d;
  const std::string cmd = "PROBE_FLAGS='--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=" +
                          std::to_string(threads) + "' exec " DUMP_CHILD_PATH " " + std::string(mode);
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Let it write a good number of files, then kill it wherever it is.
  for (int i = 0; i < 200 && manifest_lines(d.path()).size() < 40; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(37));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const auto lines = manifest_lines(d.path());
  CHECK(lines.size() > 10);
  // check_dump.py: every line parses, every listed file is whole; at most the files being
  // recorded at the kill (one per thread writing them) are unlisted, and they are whole too.
  const int writing = threads > 0 ? threads : 1;
  CHECK(dump_test::check_with_numpy(d.path(), R"({"killed": true, "end": false, "max_unlisted": )" +
                                                  std::to_string(writing) + "}") == 0);
}
}  // namespace

TEST_CASE("dump process: SIGKILL mid-dump leaves whole manifest lines and no partial file") {
  SUBCASE("files written on the op's thread") { kill_mid_dump("loop", 0); }
  SUBCASE("files written by background threads") { kill_mid_dump("loop", 2); }
}

TEST_CASE("dump process: the same with named temporaries (no O_TMPFILE)") {
  SUBCASE("files written on the op's thread") { kill_mid_dump("loop_named", 0); }
  SUBCASE("files written by background threads") { kill_mid_dump("loop_named", 2); }
}

TEST_CASE("dump process: std::exit still writes the graph and the end record") {
  temp_dir d;
  std::string out;
  CHECK(run_child("--probe_dump_to=" + d.path() + " --probe_dump_as_dot", "exit", &out) == 0);
  CHECK(out.find("results ok") != std::string::npos);
  const auto lines = manifest_lines(d.path());
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back().find("\"record\":\"end\"") != std::string::npos);
  CHECK(read_file(d / "graph.dot").find("n1 -> n2") != std::string::npos);
}

// Files still queued for the background writers when the program ends are written before
// the end record, whichever way it ends normally.
TEST_CASE("dump process: returning from main or std::exit writes every queued file first") {
  for (const char* mode : {"many", "many_exit"}) {
    CAPTURE(mode);
    temp_dir d;
    std::string out;
    CHECK(run_child("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=2", mode, &out) == 0);
    CHECK(out.find("results ok") != std::string::npos);
    const auto lines = manifest_lines(d.path());
    REQUIRE_FALSE(lines.empty());
    CHECK(lines.back().find("\"record\":\"end\"") != std::string::npos);
    // 100 steps x 9 tensors, every one with its file.
    CHECK(dump_test::check_with_numpy(d.path(), R"({"records": 900, "end": true})") == 0);
  }
}

// A child forked while the parent's writers hold queued files has none of their threads: it
// starts its own, and neither waits for the other's.
TEST_CASE("dump process: a forked child dumps with writers of its own") {
  temp_dir d;
  std::string out;
  CHECK(run_child("--probe_dump_to=" + (d / "parent") + " --probe_dump_as_npy --probe_dump_threads=2", "fork " + d.path(),
                  &out) == 0);
  INFO(out);
  CHECK(out.find("results ok\nchild exit 0\nresults ok\n") != std::string::npos);
  CHECK(dump_test::check_with_numpy(d / "parent", R"({"records": 360, "end": true})") == 0);
  CHECK(dump_test::check_with_numpy(d / "child", R"({"records": 90, "end": true})") == 0);
  // The child left its parent's run alone: one end record, the parent's.
  CHECK(count_containing(manifest_lines(d / "parent"), "\"record\":\"end\"") == 1);
}

TEST_CASE("dump process: mpirun ranks write rank folders side by side") {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) {
    MESSAGE("mpirun not installed: skipped");
    return;
  }
  temp_dir d;
  const std::string cmd = "mpirun --allow-run-as-root --oversubscribe -np 3 -x PROBE_FLAGS='--probe_dump_to=" + d.path() +
                          " --probe_dump_as_npy' " DUMP_CHILD_PATH " once > " + (d / "mpi.log") + " 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO(read_file(d / "mpi.log"));
  REQUIRE(rc == 0);
  int ok = 0;
  std::istringstream log(read_file(d / "mpi.log"));
  for (std::string line; std::getline(log, line);) ok += line == "results ok";
  CHECK(ok == 3);
  for (const char* r : {"rank_0000", "rank_0001", "rank_0002"}) {
    const std::string dir = d / r;
    CHECK(count_containing(manifest_lines(dir), "\"record\":\"tensor\"") == 9);
    CHECK(count_containing(manifest_lines(dir), "\"world\":3") == 1);
    CHECK(dump_test::check_with_numpy(dir) == 0);
  }
}
