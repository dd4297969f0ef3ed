// Many threads mark ops, scopes, prints and callbacks while another thread keeps changing
// the flags (dumping on, off, into another directory, other formats). Run as a plain test
// (every manifest stays whole and names only files that exist, nothing lands outside the
// dump directories, every callback runs) and under ThreadSanitizer (no data race).
//
// Usage: stress_threads WORKDIR [ITERATIONS]
//        stress_threads WORKDIR exit    threads still marking, printing and dumping while the
//                                       process calls std::exit: it exits 0 and leaves whole
//                                       files (print lines, manifest with its end record, trace)
#include <probe/probe.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

int g_failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++g_failures;
  }
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

// Each line is one whole JSON object; each tensor record's file exists in the same run dir.
void check_manifest(const std::string& run_dir) {
  std::ifstream in(run_dir + "/manifest.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    check(line.size() > 2 && line.front() == '{' && line.back() == '}', run_dir + ": torn line: " + line);
    const std::string key = "\"file\":\"";
    const size_t at = line.find(key);
    if (at == std::string::npos) continue;
    const size_t end = line.find('"', at + key.size());
    const std::string file = line.substr(at + key.size(), end - at - key.size());
    check(exists(run_dir + "/" + file), run_dir + ": manifest names a missing file " + file);
  }
  check(lines > 0, run_dir + ": empty manifest");
}

void worker(int id, int iterations, std::atomic<long>* callbacks_run) {
  const std::string prefix = "t" + std::to_string(id) + ".";
  std::vector<float> x(32), y(32), z(32);
  for (int i = 0; i < iterations; ++i) {
    PROBE_SCOPE("iteration");
    for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(id * 1000 + i) + static_cast<float>(k);
    {
      probe::op op(prefix + "scale", "Mul");
      op.input("x", x);
      for (size_t k = 0; k < x.size(); ++k) y[k] = 2 * x[k];
      op.output("y", y);
    }
    {
      probe::op op(prefix + "shift", "Add");
      op.input("y", y);
      for (size_t k = 0; k < y.size(); ++k) z[k] = y[k] + 1;
      op.output("z", z);
    }
    if (i % 8 == 0) probe::print("thread {} iteration {}: z = {}", id, i, probe::view(z));
    if (i % 8 == 4) probe::print(probe::ordered, "thread {} ordered {}", id, i);
    probe::callback([callbacks_run](long v) { callbacks_run->fetch_add(v); }, 1L);
    probe::metric("stress_value", static_cast<double>(i));
  }
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The child: four threads that never stop, and std::exit from main while they run.
[[noreturn]] void exit_child(const std::string& work) {
  alarm(60);  // a hang at exit fails the test instead of blocking it
  const std::string flags = "--probe_dump_to=" + work + "/d --probe_dump_as_npy --probe_dump_as_text --probe_print_to=" +
                            work + "/prints.txt --probe_timing_summary --probe_trace_to=" + work + "/trace.json";
  probe::set_flags(flags.c_str());
  static std::atomic<long> iterations{0};
  for (int t = 0; t < 4; ++t)
    std::thread([t] {
      std::vector<float> x(16, 1.f);
      for (long i = 0;; ++i) {
        PROBE_SCOPE("loop");
        probe::op op("t" + std::to_string(t), "Loop");
        op.input("x", x);
        op.output("x", x);
        probe::print("thread {} i {} x {}", t, i, probe::view(x));
        probe::callback([](long) {}, i);
        iterations.fetch_add(1);
      }
    }).detach();
  // Work in flight whatever the machine's load: every thread has started and the effects
  // are busy when the process exits.
  while (iterations.load() < 400) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::exit(0);
}

int exit_mode(const std::string& work) {
  if (::mkdir(work.c_str(), 0777) != 0) {
    std::perror(work.c_str());
    return 2;
  }
  const pid_t pid = fork();
  if (pid == 0) exit_child(work);
  int status = 0;
  check(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
  check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exits 0 (status " + std::to_string(status) + ")");
  // Every print line is whole: "thread T i N x [1. 1. ...]".
  std::ifstream prints(work + "/prints.txt");
  std::string line;
  int lines = 0;
  while (std::getline(prints, line)) {
    ++lines;
    check(line.compare(0, 7, "thread ") == 0 && line.back() == ']', "whole print line: " + line);
  }
  check(lines > 0, "prints were written");
  std::ifstream manifest(work + "/d/manifest.jsonl");
  std::string last;
  while (std::getline(manifest, line)) {
    check(line.size() > 2 && line.front() == '{' && line.back() == '}', "whole manifest line: " + line);
    last = line;
  }
  check(last.find("\"record\":\"end\"") != std::string::npos, "the manifest ends with its end record");
  const std::string trace = read_all(work + "/trace.json");
  check(trace.size() > 2 && trace.front() == '{' && trace.compare(trace.size() - 2, 2, "}\n") == 0,
        "trace.json is complete");
  if (g_failures) return 1;
  std::printf("stress_threads exit: ok (%d print lines)\n", lines);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stress_threads WORKDIR [ITERATIONS]\n");
    return 2;
  }
  const std::string work = argv[1];
  if (argc > 2 && std::string(argv[2]) == "exit") return exit_mode(work);
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  if (::mkdir(work.c_str(), 0777) != 0 || ::chdir(work.c_str()) != 0) {
    std::perror(work.c_str());
    return 2;
  }
  const std::string prints = " --probe_print_to=" + work + "/prints.txt";
  const std::string common = prints + " --probe_timing_summary";
  // With and without timing, so the dump listener's place among the listeners moves while
  // ops are in flight.
  const std::vector<std::string> configs = {
      "--probe_dump_to=" + work + "/a --probe_dump_as_npy --probe_dump_as_text" + common,
      "--probe_dump_to=" + work + "/b --probe_dump_snapshots --probe_dump_op_re=scale" + prints,
      "--probe_dump_to=" + work + "/c --probe_dump_as_npy --probe_dump_as_dot --probe_dump_stage_re=after" + common,
      common + " --probe_trace_to=" + work + "/trace.json --probe_trace_max_events=5000",
  };
  probe::set_flags(configs[0].c_str());

  constexpr int k_threads = 6;
  std::atomic<long> callbacks_run{0};
  std::atomic<bool> done{false};
  std::thread flipper([&] {
    for (size_t n = 1; !done.load(); ++n) {
      probe::set_flags(configs[n % configs.size()].c_str());
      if (n % 3 == 0) probe::flush();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    probe::set_flags(configs[0].c_str());
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < k_threads; ++t) workers.emplace_back(worker, t, iterations, &callbacks_run);
  for (auto& w : workers) w.join();
  done = true;
  flipper.join();
  // The last configuration (dump into a/) sees one more round of ops, so a/ ends with a run.
  worker(k_threads, 4, &callbacks_run);
  probe::effects_barrier();
  probe::flush();

  check(callbacks_run.load() == static_cast<long>(k_threads) * iterations + 4, "every callback ran once");
  for (const char* run : {"a", "b", "c"})
    if (exists(work + "/" + run + "/manifest.jsonl")) check_manifest(work + "/" + run);
  check(exists(work + "/a/manifest.jsonl"), "a/manifest.jsonl exists");
  {
    // Trace files are completed when the flags move away from them (the last config traces).
    std::ifstream in(work + "/trace.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    check(text.size() > 2 && text.front() == '{' && text.compare(text.size() - 2, 2, "}\n") == 0,
          "trace.json is a complete JSON object");
  }
  for (const std::string& name : list_dir(work))
    check(name == "a" || name == "b" || name == "c" || name == "prints.txt" || name == "trace.json",
          "stray file in the work dir: " + name);
  if (g_failures) return 1;
  std::printf("stress_threads: ok (%d threads x %d iterations)\n", k_threads, iterations);
  return 0;
}
