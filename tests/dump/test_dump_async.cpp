// Small files written by background threads (--probe_dump_threads): the same dump as on the
// op's thread, visible after flush(), bounded memory, errors met by a writer.
#include <doctest/doctest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include <probe/effects/dump_writer.hpp>
#include <probe/formats/json_read.hpp>

#include "dump_fixture.hpp"

using dump_test::check_with_numpy;
using dump_test::count_containing;
using dump_test::diamond_engine;
using dump_test::flags_scope;
using dump_test::manifest_lines;
using dump_test::read_file;
using probe_test::temp_dir;

namespace {
std::vector<std::string> list_dir(const std::string& d) {
  std::vector<std::string> out;
  if (DIR* dir = opendir(d.c_str())) {
    while (dirent* e = readdir(dir))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(dir);
  }
  std::sort(out.begin(), out.end());
  return out;
}
// A manifest line without what differs from run to run (times, pid, directory).
std::string stable(const std::string& line) {
  std::string s = line;
  for (const char* key : {"\"wall_time\":", "\"start_time\":", "\"end_time\":", "\"pid\":", "\"dir\":", "\"dump_to\":",
                          "\"flags\":"}) {
    const size_t at = s.find(key);
    if (at == std::string::npos) continue;
    size_t end = at + std::strlen(key);
    if (s[end] == '"') end = s.find('"', end + 1) + 1;
    else if (s[end] == '[') end = s.find(']', end) + 1;  // the run's flags name the folder and the threads
    else end = s.find_first_of(",}", end);
    s.erase(at, end - at);
  }
  return s;
}
// An engine with more than the diamond: strided and 0-d tensors, several dtypes, text.
void run_engine(const std::string& dir, int threads) {
  flags_scope f("--probe_dump_to=" + dir + " --probe_dump_as_npy --probe_dump_as_text --probe_dump_threads=" +
                std::to_string(threads));
  diamond_engine e;
  for (int s = 0; s < 4; ++s) e.step(s);
  std::vector<double> m(24);
  for (size_t i = 0; i < m.size(); ++i) m[i] = 0.5 * static_cast<double>(i) - 3;
  int32_t scalar = 7;
  std::vector<float> big(200000, 1.25f);  // 800 KB: still queued
  std::vector<float> huge(300000, -2.f);  // 1.2 MB: written on the op's thread
  {
    probe::op op("mixed", "Test");
    op.input("strided", probe::view(m.data(), {3, 4}, {8, 2}));
    op.input("scalar", probe::view(scalar));
    op.output("big", big);
    op.output("huge", huge);
  }
}
}  // namespace

TEST_CASE("dump async: the same files and records with 0, 1 or 4 writer threads") {
  std::map<int, std::vector<std::string>> records, files;
  std::map<int, std::map<std::string, std::string>> contents;
  for (int threads : {0, 1, 4}) {
    CAPTURE(threads);
    temp_dir d;
    run_engine(d.path(), threads);
    CHECK(check_with_numpy(d.path(), R"({"records": 40, "end": true, "files": true})") == 0);
    std::vector<std::string> lines;
    for (const auto& l : manifest_lines(d.path())) lines.push_back(stable(l));
    REQUIRE(lines.size() == 42);
    CHECK(lines.front().find("\"record\":\"run\"") != std::string::npos);
    CHECK(lines.back().find("\"record\":\"end\"") != std::string::npos);
    // One op's records keep their order; ops may interleave.
    std::map<std::string, std::vector<std::string>> by_op;
    for (const auto& l : lines) {
      const size_t at = l.find("\"seq\":");
      if (at != std::string::npos) by_op[l.substr(at, l.find(',', at) - at)].push_back(l);
    }
    for (const auto& op : by_op) {
      std::vector<std::string> in_order;
      for (const auto& l : lines)
        if (l.find(op.first + ",") != std::string::npos) in_order.push_back(l);
      CHECK(in_order == op.second);
    }
    std::sort(lines.begin(), lines.end());
    records[threads] = lines;
    files[threads] = list_dir(d.path());
    for (const auto& name : files[threads]) contents[threads][name] = read_file(d / name);
  }
  // Tensors (less those whose bytes an earlier input file holds), text files, manifest.
  const int same = count_containing(records[0], "\"same_as\":");
  CHECK(same > 0);
  CHECK(files[0].size() == static_cast<size_t>(40 - same + 17 + 1));
  CHECK(records[1] == records[0]);
  CHECK(records[4] == records[0]);
  CHECK(files[1] == files[0]);
  CHECK(files[4] == files[0]);
  for (const auto& f : contents[0]) {
    if (f.first == "manifest.jsonl") continue;
    CAPTURE(f.first);
    CHECK(contents[1][f.first] == f.second);
    CHECK(contents[4][f.first] == f.second);
  }
}

TEST_CASE("dump async: flush() makes every queued file and line visible") {
  temp_dir d;
  flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=2");
  std::vector<float> x(256, 0.5f);
  for (int round = 1; round <= 3; ++round) {
    for (int i = 0; i < 300; ++i) {
      probe::op op("small", "Fill");
      x[0] = static_cast<float>(i);
      op.output("y", x);
    }
    probe::flush();
    CHECK(probe::detail::dump_writers::existing()->queued_bytes() == 0);
    const auto lines = manifest_lines(d.path());
    CHECK(count_containing(lines, "\"record\":\"tensor\"") == 300 * round);
    int files = 0;
    for (const auto& name : list_dir(d.path())) files += name.find(".npy") != std::string::npos;
    CHECK(files == 300 * round);
  }
  f.close_run();
  CHECK(check_with_numpy(d.path(), R"({"records": 900, "end": true})") == 0);
}

TEST_CASE("dump async: a full queue makes the op wait, and nothing is lost") {
  temp_dir d;
  // A 4 KiB cap holds two of these files (1 KiB of data, its header, name and line).
  flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=1 --probe_dump_queue_bytes=4K");
  std::vector<float> x(256, 0.25f);
  uint64_t peak = 0;
  for (int i = 0; i < 500; ++i) {
    probe::op op("tiny", "Fill");
    op.output("y", x);
    // Only this thread queues, so the queue is at its fullest right after each op.
    peak = std::max(peak, probe::detail::dump_writers::existing()->queued_bytes());
  }
  CHECK(peak > 0);
  CHECK(peak <= 4096);
  f.close_run();
  CHECK(check_with_numpy(d.path(), R"({"records": 500, "end": true})") == 0);

  // A file larger than the whole cap still goes, alone.
  temp_dir d2;
  {
    flags_scope f2("--probe_dump_to=" + d2.path() + " --probe_dump_as_npy --probe_dump_threads=2 --probe_dump_queue_bytes=1");
    std::vector<float> y(1000, 2.f);
    for (int i = 0; i < 50; ++i) {
      probe::op op("bigger", "Fill");
      op.output("y", y);
    }
  }
  CHECK(check_with_numpy(d2.path(), R"({"records": 50, "end": true})") == 0);
}

TEST_CASE("dump async: a writer's error turns dumping off once; the files queued before it stay") {
  temp_dir d;
  // The fifth op's file cannot be created: a directory holds its name.
  REQUIRE(::mkdir((d / "op_000005.tiny.out.y.npy").c_str(), 0777) == 0);
  REQUIRE(::mkdir((d / "op_000005.tiny.out.y.npy/keep").c_str(), 0777) == 0);
  std::string err;
  std::vector<float> x(64, 1.f);
  {
    probe_test::capture_fd cap;
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=4");
    for (int i = 0; i < 40; ++i) {
      probe::op op("tiny", "Fill");
      op.output("y", x);
    }
    probe::flush();
    const size_t after_error = manifest_lines(d.path()).size();
    for (int i = 0; i < 40; ++i) {  // dumping is off now
      probe::op op("tiny", "Fill");
      op.output("y", x);
    }
    probe::flush();
    CHECK(manifest_lines(d.path()).size() == after_error);
    err = cap.stop();
  }
  CHECK(count_containing({err}, "dumping turned off") == 1);
  CHECK(err.find("op_000005.tiny.out.y.npy") != std::string::npos);
  const auto lines = manifest_lines(d.path());
  for (int i = 1; i <= 4; ++i)
    CHECK(count_containing(lines, "\"file\":\"op_00000" + std::to_string(i) + ".tiny.out.y.npy\"") == 1);
  CHECK(count_containing(lines, "op_000005") == 0);
  // Writers finishing later files while the fifth failed may have listed some; the rest
  // were dropped, and every file left has its record (the directory in the way aside).
  const int records = count_containing(lines, "\"record\":\"tensor\"");
  CHECK(::rmdir((d / "op_000005.tiny.out.y.npy/keep").c_str()) == 0);
  CHECK(::rmdir((d / "op_000005.tiny.out.y.npy").c_str()) == 0);
  CHECK(check_with_numpy(d.path(), "{\"records\": " + std::to_string(records) + "}") == 0);
  CHECK(x[3] == 1.f);  // the program went on
}

TEST_CASE("dump async: threads dumping files at once lose no record and tear no line") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=3 --probe_dump_queue_bytes=256K");
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([t] {
        float v[16] = {};
        const std::string name = "t" + std::to_string(t);
        for (int i = 0; i < 200; ++i) {
          probe::op op(name, "Work");
          op.input("x", probe::view(v, 16));
          v[i % 16] += 1;
          op.output("y", probe::view(v, 16));
          if (i % 50 == 0) probe::flush();
        }
      });
    for (auto& t : ts) t.join();
  }
  const auto lines = manifest_lines(d.path());
  for (const auto& l : lines) CHECK((l.front() == '{' && l.back() == '}'));
  std::set<std::string> keys;
  for (const auto& l : lines) {
    const size_t k = l.find("\"key\":\"");
    if (k != std::string::npos) keys.insert(l.substr(k + 7, l.find('"', k + 7) - k - 7));
  }
  CHECK(keys.size() == 3200);
  CHECK(check_with_numpy(d.path(), R"({"records": 3200, "end": true})") == 0);
}

TEST_CASE("dump async: tuning flags alone do not turn dumping on") {
  flags_scope f("--probe_dump_threads=3 --probe_dump_queue_bytes=1M");
  CHECK_FALSE(probe::options_ref().dump);
  CHECK(probe::options_ref().dump_threads == 3);
  CHECK(probe::options_ref().dump_queue_bytes == (1u << 20));
}

TEST_CASE("dump async: large tensors dumped on two threads at once keep their own statistics") {
  // Both large enough for the statistics worker, which holds one job: a second thread must not
  // take the first one's results (or hand it its own).
  temp_dir d;
  const size_t n = (size_t(16) << 20) / sizeof(float) + 1024;
  std::vector<float> ones(n, 1.f), twos(n, 2.f);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_threads=0");
    auto run = [](const char* name, const std::vector<float>& x) {
      for (int i = 0; i < 3; ++i) {
        probe::op op(name, "Fill");
        op.output("y", x);
      }
    };
    std::thread a(run, "ones", std::cref(ones)), b(run, "twos", std::cref(twos));
    a.join();
    b.join();
  }
  int seen = 0;
  for (const std::string& l : manifest_lines(d.path())) {
    probe::json::value v;
    REQUIRE(probe::json::parse(l, v));
    if (v.get_string("record") != "tensor") continue;
    const double want = v.get_string("op") == "ones" ? 1.0 : 2.0;
    const probe::json::value& s = v.get("stats");
    INFO(l);
    CHECK(s.get("min").as_double() == want);
    CHECK(s.get("max").as_double() == want);
    CHECK(s.get("mean").as_double() == want);
    ++seen;
  }
  CHECK(seen == 6);
}

TEST_CASE("dump async: probe's own threads block the program's signals") {
  // Signals meant for the program (SIGINT, SIGTERM, SIGALRM, SIGUSR1) must reach its threads,
  // never one of probe's: a handler would run there, or a SIGXFSZ from its writes kill the host.
  temp_dir d;
  std::vector<float> big((size_t(16) << 20) / sizeof(float) + 1, 1.f);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_trace_to=" + (d / "trace.json"));
    probe::op op("fill", "Fill");  // a large tensor: the statistics worker
    op.output("y", big);
    for (int i = 0; i < 1000000; ++i) {
      PROBE_SCOPE("tick");  // a backlog of trace events: the timing writer
    }
  }
  std::set<std::string> names;
  DIR* tasks = opendir("/proc/self/task");
  REQUIRE(tasks);
  while (dirent* e = readdir(tasks)) {
    if (e->d_name[0] == '.') continue;
    const std::string base = std::string("/proc/self/task/") + e->d_name;
    std::string comm = read_file(base + "/comm");
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    if (comm.compare(0, 6, "probe-") != 0) continue;
    names.insert(comm);
    const std::string status = read_file(base + "/status");
    const size_t at = status.find("SigBlk:");
    REQUIRE(at != std::string::npos);
    const unsigned long long blocked = std::strtoull(status.c_str() + at + 7, nullptr, 16);
    INFO(comm);
    for (int sig : {SIGINT, SIGTERM, SIGALRM, SIGUSR1, SIGXFSZ, SIGPIPE}) CHECK((blocked >> (sig - 1) & 1) == 1);
  }
  closedir(tasks);
  CHECK(names.count("probe-stats") == 1);
  CHECK(names.count("probe-timing") == 1);
}
