// Chrome traces: the writer, the trace-event rules (checked by check_trace.py with python's
// json), streaming, the event limit, flush, failures.
#include <doctest/doctest.h>
#include <dirent.h>
#include <pthread.h>
#include <unistd.h>
#include <probe/probe.hpp>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/capture.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs check_trace.py on `path` with extra arguments; returns its exit code.
int check_trace(const std::string& path, const std::string& args = "") {
  const std::string cmd = std::string(PROBE_TEST_PYTHON) + " " + PROBE_TEST_SOURCE_DIR +
                          "/timing/check_trace.py '" + path + "' " + args;
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void inner() { PROBE_SCOPE("tr_inner"); }
void outer() {
  PROBE_SCOPE("tr_outer");
  inner();
  inner();
}

}  // namespace

TEST_CASE("trace: JSON strings stay valid and readable") {
  std::string s;
  probe::detail::append_json_chars(s, "a\"b\\c\nd\te\x01 ünï 日本 \xff\xc3(");
  CHECK(s == "a\\\"b\\\\c\\nd\\te\\u0001 ünï 日本 \\ufffd\\ufffd(");
  s.clear();
  probe::detail::append_json_chars(s, "\xed\xa0\x80 \xf4\x90\x80\x80 \xe0\x80\x80");  // surrogate, > U+10FFFF, overlong
  CHECK(s == "\\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd");
  s.clear();
  probe::detail::append_us(s, 1234005);
  s += ' ';
  probe::detail::append_us(s, 7);
  CHECK(s == "1234.005 0.007");
}

TEST_CASE("trace: the writer publishes complete files, keeps streaming, leaves no temporaries") {
  probe_test::temp_dir dir;
  const std::string path = dir / "w.json";
  probe::detail::chrome_trace_writer w;
  REQUIRE(w.open(path));
  w.event("{\"name\":\"a\",\"ph\":\"X\",\"ts\":1.000,\"dur\":2.000,\"pid\":1,\"tid\":1}");
  const std::string meta = "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}";
  REQUIRE(w.publish_copy(meta, "\"displayTimeUnit\":\"ns\""));
  CHECK(check_trace(path, "--count a=1") == 0);
  w.event("{\"name\":\"b\",\"ph\":\"X\",\"ts\":4.000,\"dur\":1.000,\"pid\":1,\"tid\":1}");
  CHECK(check_trace(path, "--count a=1 --count b=0") == 0);  // unchanged until the next publish
  REQUIRE(w.finish(meta, ""));
  CHECK(check_trace(path, "--count a=1 --count b=1") == 0);
  CHECK(read_file(path).find("displayTimeUnit") == std::string::npos);
  std::string listing;
  for (const char* leftover : {".tmp.", ".flush"}) {
    const std::string cmd = "ls '" + dir.path() + "' | grep -q '" + leftover + "'";
    CHECK(std::system(cmd.c_str()) != 0);
  }

  probe::detail::chrome_trace_writer bad;
  CHECK_FALSE(bad.open(dir / "no/such/dir/t.json"));
  CHECK(bad.error().find("no/such/dir") != std::string::npos);
}

TEST_CASE("trace: scopes, threads, ops and metrics obey the trace-event rules") {
  probe_test::temp_dir dir;
  const std::string path = dir / "trace.json";
  probe::set_flags(("--probe_trace_to=" + path).c_str());
  probe::detail::timing_reset();
  for (int i = 0; i < 5; ++i) outer();
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; ++t)
    ts.emplace_back([] {
      for (int i = 0; i < 100; ++i) outer();
    });
  for (auto& t : ts) t.join();
  float x[6] = {1, 2, 3, 4, 5, 6};
  {
    probe::op op("tr_op \"quoted\" ü", "MatMul");
    op.input("x", probe::view(x, {2, 3}));
    PROBE_SCOPE("tr_in_op");
    op.output("y", probe::view(x, 6));
  }
  {
    probe_test::capture_fd out(1);
    probe::metric("tr metric µ", 42.5);
  }
  probe::flush();
  CHECK(check_trace(path, "--count tr_outer=305 --count tr_inner=610 --inside tr_inner:tr_outer "
                          "--count 'tr_op \"quoted\" ü=1' --inside 'tr_in_op:tr_op \"quoted\" ü' "
                          "--threads 4 --counter 'tr metric µ=42.5'") == 0);
  const std::string text = read_file(path);
  // Op arguments: sequence number, step, type, input and output shapes.
  CHECK(text.find("\"type\":\"MatMul\",\"inputs\":{\"x\":\"float32[2,3]\"},\"outputs\":{\"y\":\"float32[6]\"}") !=
        std::string::npos);
  CHECK(text.find("\"seq\":") != std::string::npos);
  CHECK(text.find("\"src\":\"test_trace.cpp:") != std::string::npos);
  CHECK(text.find("\"func\":\"outer\"") != std::string::npos);

  // probe::flush() again: the file grows with what happened since, and stays valid.
  for (int i = 0; i < 7; ++i) outer();
  probe::flush();
  CHECK(check_trace(path, "--count tr_outer=312") == 0);

  // Changing the trace file completes the old one and starts a new one.
  const std::string second = dir / "second.json";
  outer();
  probe::set_flags(("--probe_trace_to=" + second).c_str());
  outer();
  probe::flush();
  CHECK(check_trace(path, "--count tr_outer=313") == 0);
  CHECK(check_trace(second, "--count tr_outer=1") == 0);
  probe::set_flags("");
}

TEST_CASE("trace: a main thread the program renamed keeps its name") {
  char before[64] = {};
  REQUIRE(pthread_getname_np(pthread_self(), before, sizeof before) == 0);
  probe_test::temp_dir dir;
  const std::string path = dir / "named.json";
  probe::set_flags(("--probe_trace_to=" + path).c_str());
  std::thread worker([] { outer(); });  // named as the program before the rename: "thread N"
  worker.join();
  REQUIRE(pthread_setname_np(pthread_self(), "tr_solver") == 0);
  outer();
  probe::flush();  // the file as it stands while the main thread is renamed
  const std::string text = read_file(path);
  pthread_setname_np(pthread_self(), before);
  probe::set_flags("");
  const std::string main_tid = std::to_string(static_cast<long long>(getpid()));
  CHECK(text.find("\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + main_tid + ",\"tid\":" + main_tid +
                  ",\"args\":{\"name\":\"tr_solver\"}") != std::string::npos);
  INFO(text);
  // the worker inherited the program's name: no thread is shown under it (the process may be)
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find("\"thread_name\"") != std::string::npos)
      CHECK_MESSAGE(line.find("\"name\":\"" + std::string(before) + "\"") == std::string::npos, line);
  CHECK(text.find("\"args\":{\"name\":\"thread ") != std::string::npos);
}

TEST_CASE("trace: a large trace streams to disk with bounded memory") {
  probe_test::temp_dir dir;
  const std::string path = dir / "big.json";
  probe::set_flags(("--probe_trace_to=" + path).c_str());
  probe::detail::timing_reset();
  auto& reg = probe::detail::registry();
  __atomic_store_n(&reg.chunks_peak, __atomic_load_n(&reg.chunks_live, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  // ~700 chunks: more than two 256-chunk backlogs, so at least ~180 chunks (about 20 MB of
  // JSON) must have been written before the flush.
  const int n = 700000;
  for (int i = 0; i < n; ++i) inner();
  // The events went to disk while recording (the trace's binary spool, made JSON at the
  // flush): a file in the trace's folder is already large before it. It has no name (or a
  // temporary one): find it among this process's open descriptors.
  off_t written = 0;
  if (DIR* fds = opendir("/proc/self/fd")) {
    while (const dirent* e = readdir(fds)) {
      char link[4096];
      const std::string fd_path = std::string("/proc/self/fd/") + e->d_name;
      const ssize_t len = readlink(fd_path.c_str(), link, sizeof link - 1);
      if (len <= 0) continue;
      link[len] = 0;
      struct stat st {};
      if (std::string(link).rfind(dir.path(), 0) == 0 && stat(fd_path.c_str(), &st) == 0 && st.st_size > written)
        written = st.st_size;
    }
    closedir(fds);
  }
  CHECK(written > 10 * 1000 * 1000);
  const int64_t peak = __atomic_load_n(&reg.chunks_peak, __ATOMIC_RELAXED);
  INFO("peak chunks " << peak);
  CHECK(peak <= 2 * 256 + 64);  // two backlogs' worth at most, not a chunk per 1024 events
  probe::flush();
  CHECK(check_trace(path, "--count tr_inner=700000") == 0);
  probe::set_flags("");
}

TEST_CASE("trace: --probe_trace_max_events stops the trace with a note; the summary goes on") {
  probe_test::temp_dir dir;
  const std::string path = dir / "max.json";
  probe::set_flags(("--probe_trace_to=" + path + " --probe_trace_max_events=100").c_str());
  probe::detail::timing_reset();
  probe_test::capture_fd err(2);
  for (int i = 0; i < 1000; ++i) inner();
  probe::flush();
  const std::string said = err.stop();
  CHECK(count_of(said, "reached --probe_trace_max_events=100") == 1);
  CHECK(check_trace(path, "--count tr_inner=100 --truncated") == 0);
  uint64_t count = 0;
  double total = 0;
  REQUIRE(probe::detail::timing_lookup("tr_inner", 's', &count, &total));
  CHECK(count == 1000);
  CHECK(read_file(path).find("\"events_left_out\":900") != std::string::npos);
  probe::set_flags("");
}

TEST_CASE("trace: an unwritable trace is one message; timing goes on") {
  probe_test::capture_fd err(2);
  probe::set_flags("--probe_trace_to=/nonexistent_probe_dir/t.json");
  probe::detail::timing_reset();
  for (int i = 0; i < 3000; ++i) inner();
  probe::flush();
  probe::flush();
  const std::string said = err.stop();
  CHECK(count_of(said, "nonexistent_probe_dir") == 1);
  uint64_t count = 0;
  double total = 0;
  REQUIRE(probe::detail::timing_lookup("tr_inner", 's', &count, &total));
  CHECK(count == 3000);
  probe::set_flags("");
}
