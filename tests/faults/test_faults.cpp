// Fault injection: a dumping program (fault_child) run while its world breaks under it. In
// every case the program computes the same results and exits normally, probe says what
// happened once, and what is on disk passes scripts/check_dump.py (whole manifest lines,
// complete files, no duplicate keys, nothing outside the dump folder).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../dump/dump_fixture.hpp"

using dump_test::count_containing;
using dump_test::manifest_lines;
using dump_test::read_file;
using probe_test::temp_dir;

namespace {
struct result {
  int rc = -1;       // exit code, or 128 + signal
  std::string out;   // stdout and stderr together
};

// Runs fault_child with `args` and PROBE_FLAGS=flags; stdout goes to `stdout_fd` when given.
result run_child(const std::string& flags, const std::vector<std::string>& args, int stdout_fd = -1,
                 const std::vector<std::string>& env = {}) {
  char log[] = "/tmp/probe_fault_log_XXXXXX";
  const int log_fd = mkstemp(log);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(stdout_fd >= 0 ? stdout_fd : log_fd, 1);
    dup2(log_fd, 2);
    setenv("PROBE_FLAGS", flags.c_str(), 1);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> av{const_cast<char*>(FAULT_CHILD_PATH)};
    for (const std::string& a : args) av.push_back(const_cast<char*>(a.c_str()));
    av.push_back(nullptr);
    execv(FAULT_CHILD_PATH, av.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  close(log_fd);
  r.out = read_file(log);
  unlink(log);
  return r;
}

int check_dump(const std::string& dir) {
  const std::string cmd = std::string(PROBE_TEST_PYTHON) + " " PROBE_SCRIPTS_DIR "/check_dump.py --quiet '" + dir + "'";
  return std::system(cmd.c_str());
}

bool exists(const std::string& p) {
  struct stat st;
  return lstat(p.c_str(), &st) == 0;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A small file system mounted for the test (root only): a full disk, a read-only folder.
struct scratch_mount {
  std::string path;
  bool ok = false;
  scratch_mount(const std::string& where, const char* opts) : path(where) {
    mkdir(path.c_str(), 0777);
    ok = getuid() == 0 && mount("tmpfs", path.c_str(), "tmpfs", 0, opts) == 0;
  }
  ~scratch_mount() {
    if (ok) umount2(path.c_str(), MNT_DETACH);
  }
};
}  // namespace

TEST_CASE("faults: a file-size limit (SIGXFSZ at its default) stops dumping, not the program") {
  for (int threads : {0, 2}) {
    CAPTURE(threads);
    temp_dir d;
    const result r = run_child("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=" +
                                   std::to_string(threads),
                               {"fsize", "102400"});
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "results ok") == 2);
    CHECK(count(r.out, "dumping turned off") == 1);
    CHECK(count(r.out, "File too large") == 1);
    const std::string manifest = read_file(d / "manifest.jsonl");
    CHECK(manifest.size() <= 102400);
    CHECK(manifest_lines(d.path()).size() > 10);
    CHECK(check_dump(d.path()) == 0);
  }
}

TEST_CASE("faults: a file-size limit while a trace spills its spool: the program goes on") {
  temp_dir d;
  const result r = run_child("--probe_trace_to=" + (d / "trace.json"), {"trace_fsize", "262144"});
  INFO(r.out);
  CHECK(r.rc == 0);  // 153 when SIGXFSZ killed it
  CHECK(count(r.out, "results ok") == 1);
}

TEST_CASE("faults: probe's messages and the timing summary to a stderr whose reader is gone") {
  temp_dir d;
  const result r = run_child("--probe_dump_to=" + d.path() + " --probe_timing_summary", {"stderr_epipe"});
  INFO(r.out);
  CHECK(r.rc == 0);  // 141 when SIGPIPE killed it
  CHECK(count(r.out, "results ok") == 1);
  CHECK(check_dump(d.path()) == 0);
}

TEST_CASE("faults: text to stdout whose reader is gone (SIGPIPE at its default): EPIPE said once") {
  int p[2];
  REQUIRE(pipe(p) == 0);
  close(p[0]);  // the reader is gone before the first write
  const result r = run_child("--probe_dump_to=- --probe_dump_as_text", {"epipe"}, p[1]);
  close(p[1]);
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(count(r.out, "results ok") == 1);
  CHECK(count(r.out, "Broken pipe") == 1);
}

TEST_CASE("faults: the dump folder removed mid-run: one clear message, the folder is not made again") {
  for (const char* flags : {"--probe_dump_as_npy --probe_dump_snapshots --probe_dump_threads=0",
                            "--probe_dump_as_npy --probe_dump_as_text --probe_dump_threads=2"}) {
    CAPTURE(flags);
    temp_dir d;
    const std::string dir = d / "run";
    const result r = run_child("--probe_dump_to=" + dir + " " + flags, {"removed", dir});
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "results ok") == 1);
    CHECK(count(r.out, "dumping turned off") == 1);
    CHECK(count(r.out, "the dump folder was removed while the program ran") == 1);
    CHECK_FALSE(exists(dir));
  }
}

TEST_CASE("faults: fork with the writers busy: the child dumps into a folder of its own") {
  temp_dir d;
  const result r = run_child("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=2",
                             {"fork", "40"});
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(count(r.out, "results ok") == 2);
  CHECK(count(r.out, "child exit 0") == 1);
  const size_t at = r.out.find("child ");
  REQUIRE(at != std::string::npos);
  const std::string child_pid = r.out.substr(at + 6, r.out.find('\n', at) - at - 6);
  char host[128] = "host";
  gethostname(host, sizeof host - 1);
  const std::string child_dir = d / (probe::detail::sanitize_name(host, 64) + "_" + child_pid);
  const auto parent = manifest_lines(d.path());
  const auto child = manifest_lines(child_dir);
  // 80 passes x 9 tensors in the parent's run, 20 x 9 in the child's, each with its ends.
  CHECK(count_containing(parent, "\"record\":\"tensor\"") == 720);
  CHECK(count_containing(child, "\"record\":\"tensor\"") == 180);
  CHECK(count_containing(parent, "\"record\":\"run\"") == 1);
  CHECK(count_containing(child, "\"record\":\"run\"") == 1);
  CHECK(count_containing(parent, "\"record\":\"end\"") == 1);
  CHECK(count_containing(child, "\"record\":\"end\"") == 1);
  // The child numbers its ops afresh.
  CHECK(count_containing(child, "\"seq\":1,") == 2);  // embed: x in, a out
  CHECK(count_containing(child, "\"seq\":161,") == 0);
  CHECK(check_dump(d.path()) == 0);  // both manifests: whole lines, unique keys, complete files
}

TEST_CASE("faults: SIGKILL mid-dump leaves whole lines and complete files") {
  for (int threads : {0, 2}) {
    CAPTURE(threads);
    temp_dir d;
    const std::string flags =
        "--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_snapshots --probe_dump_threads=" + std::to_string(threads);
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("PROBE_FLAGS", flags.c_str(), 1);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execl(FAULT_CHILD_PATH, FAULT_CHILD_PATH, "loop", static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 300 && manifest_lines(d.path()).size() < 60; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(23));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(manifest_lines(d.path()).size() > 10);
    CHECK(check_dump(d.path()) == 0);
  }
}

TEST_CASE("faults: links and FIFOs planted in the dump folder send no write outside it") {
  temp_dir d;
  const std::string dir = d / "run", outside = d / "outside";
  mkdir(dir.c_str(), 0777);
  mkdir(outside.c_str(), 0777);
  mkdir((outside + "/snaps").c_str(), 0777);
  { std::ofstream(outside + "/victim") << "keep"; }
  REQUIRE(symlink((outside + "/victim").c_str(), (dir + "/manifest.jsonl").c_str()) == 0);
  REQUIRE(symlink((outside + "/lock").c_str(), (dir + "/.probe.lock").c_str()) == 0);
  REQUIRE(symlink((outside + "/graph").c_str(), (dir + "/graph.dot").c_str()) == 0);
  REQUIRE(symlink((outside + "/text").c_str(), (dir + "/op_000001.embed.txt").c_str()) == 0);
  REQUIRE(mkfifo((dir + "/op_000002.left.out.b.npy").c_str(), 0666) == 0);
  REQUIRE(symlink((outside + "/npy").c_str(), (dir + "/op_000003.right.in.a.npy").c_str()) == 0);

  SUBCASE("tensor files, text, graph, manifest and lock") {
    const result r = run_child("--probe_dump_to=" + dir + " --probe_dump_as_npy --probe_dump_as_text --probe_dump_as_dot "
                               "--probe_dump_threads=0",
                               {"steps", "2"});
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "dumping turned off") == 0);
    CHECK(count_containing(manifest_lines(dir), "\"record\":\"tensor\"") == 18);
    CHECK(check_dump(dir) == 0);
  }
  SUBCASE("a snapshots/ link") {
    REQUIRE(symlink((outside + "/snaps").c_str(), (dir + "/snapshots").c_str()) == 0);
    const result r = run_child("--probe_dump_to=" + dir + " --probe_dump_snapshots", {"steps", "1"});
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "dumping turned off") == 1);
    CHECK(count(r.out, "snapshots is a symbolic link, which probe does not follow") == 1);
  }
  SUBCASE("a rank folder that is a link") {
    REQUIRE(symlink((outside + "/snaps").c_str(), (dir + "/rank_0001").c_str()) == 0);
    const result r = run_child("--probe_dump_to=" + dir + " --probe_dump_as_npy", {"steps", "1"},
                               -1, {"RANK=1", "WORLD_SIZE=2"});
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "is a symbolic link") == 1);
  }
  // Nothing outside was written, made or truncated.
  CHECK(read_file(outside + "/victim") == "keep");
  CHECK_FALSE(exists(outside + "/lock"));
  CHECK_FALSE(exists(outside + "/graph"));
  CHECK_FALSE(exists(outside + "/text"));
  CHECK_FALSE(exists(outside + "/npy"));
  CHECK(std::system(("test -z \"$(ls -A '" + outside + "/snaps')\"").c_str()) == 0);
}

TEST_CASE("faults: a read-only dump folder: one message, the program goes on") {
  temp_dir d;
  const std::string dir = d / "ro";
  scratch_mount m(dir, "ro,size=64k");
  if (!m.ok) chmod(dir.c_str(), 0555);
  if (!m.ok && getuid() == 0) {
    MESSAGE("cannot mount a read-only file system, and root ignores permissions: skipped");
    return;
  }
  const result r = run_child("--probe_dump_to=" + dir + " --probe_dump_as_npy", {"steps", "3"});
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(count(r.out, "results ok") == 1);
  CHECK(count(r.out, "dumping turned off") == 1);
  CHECK((count(r.out, "Read-only file system") + count(r.out, "Permission denied")) == 1);
}

TEST_CASE("faults: a full disk (ENOSPC): one message, whole lines, complete files") {
  if (getuid() != 0) {
    MESSAGE("not root: no small file system to fill; skipped");
    return;
  }
  temp_dir d;
  const std::string dir = d / "full";
  scratch_mount m(dir, "size=256k");
  if (!m.ok) {
    MESSAGE("cannot mount a small tmpfs here: skipped");
    return;
  }
  for (int threads : {0, 2}) {
    CAPTURE(threads);
    const std::string run = dir + "/t" + std::to_string(threads);
    const result r = run_child("--probe_dump_to=" + run + " --probe_dump_as_npy --probe_dump_threads=" + std::to_string(threads),
                               {"steps", "200"});
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "results ok") == 1);
    CHECK(count(r.out, "dumping turned off") == 1);
    CHECK(count(r.out, "No space left on device") == 1);
    CHECK(check_dump(run) == 0);
    CHECK(std::system(("rm -rf '" + run + "'").c_str()) == 0);
  }
  // A trace that does not fit names the same error.
  { std::ofstream(dir + "/fill") << std::string(200 << 10, 'x'); }
  const result r = run_child("--probe_trace_to=" + dir + "/trace.json", {"steps", "3000"});
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(count(r.out, "No space left on device") == 1);
  CHECK_FALSE(exists(dir + "/trace.json"));
}
