// The first use of probe in a process, raced by threads and by fork():
//   first_use race DIR  — threads mark ops at once while the flags are read for the first
//     time; every op must reach the dump (an op begun before the effects were in place took
//     a sequence number and recorded nothing).
//   first_use fork DIR  — a fork() while other threads start the dump's writer threads (the
//     flags were read before, by an op without tensors); the child must be able to dump (it
//     hung on a lock a parent's thread held at the fork).
// Each round runs in a fresh child process, so that probe's first use happens there.
#include <probe/probe.hpp>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int k_threads = 4, k_ops = 200;

size_t tensor_records(const std::string& dir) {
  std::ifstream f(dir + "/manifest.jsonl");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  size_t n = 0;
  for (size_t at = text.find("\"record\":\"tensor\""); at != std::string::npos;
       at = text.find("\"record\":\"tensor\"", at + 1))
    ++n;
  return n;
}

int race_round(const std::string& dir) {
  setenv("PROBE_FLAGS", ("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str(), 1);
  std::atomic<int> ready{0};
  std::vector<std::thread> th;
  for (int t = 0; t < k_threads; ++t)
    th.emplace_back([&ready, t] {
      float x[4] = {static_cast<float>(t), 0, 0, 0};
      ready.fetch_add(1);
      while (ready.load() < k_threads) {
      }
      for (int i = 0; i < k_ops; ++i) {
        x[1] = static_cast<float>(i);
        probe::op op("k", "K", t);
        op.output("x", probe::view(x, {4}));
      }
    });
  for (std::thread& t : th) t.join();
  return 0;
}

int fork_round(const std::string& dir) {
  setenv("PROBE_FLAGS", ("--probe_dump_to=" + dir + " --probe_dump_as_npy").c_str(), 1);
  { probe::op warm("warm", "W"); }  // the flags are read; no tensor yet, so no writer thread
  std::atomic<bool> stop{false};
  std::vector<std::thread> th;
  for (int t = 0; t < 3; ++t)
    th.emplace_back([&stop] {
      std::vector<float> x(64, 1.0f);
      while (!stop.load()) {
        probe::op op("work", "W");
        op.input("x", x);
      }
    });
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<float> z(8, 2.0f);
    probe::op op("child", "C");
    op.input("z", z);
    _exit(0);
  }
  int status = 0, waited = 0;
  for (; waited < 100 && waitpid(pid, &status, WNOHANG) == 0; ++waited) usleep(50000);
  stop = true;
  for (std::thread& t : th) t.join();
  if (waited == 100) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    fprintf(stderr, "the forked child hung on its first dumped op\n");
    return 1;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: first_use race|fork DIR\n");
    return 2;
  }
  const std::string mode = argv[1], dir = argv[2];
  const int rounds = mode == "race" ? 20 : 30;
  int failures = 0;
  for (int r = 0; r < rounds; ++r) {
    const std::string run = dir + "/" + std::to_string(r);
    const pid_t pid = fork();
    if (pid == 0) exit(mode == "race" ? race_round(run) : fork_round(run));  // exit: probe finishes the dump
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "round %d: the child failed (status %d)\n", r, status);
      ++failures;
      continue;
    }
    if (mode == "race") {
      const size_t n = tensor_records(run);
      if (n != static_cast<size_t>(k_threads * k_ops)) {
        fprintf(stderr, "round %d: %zu of %d ops dumped\n", r, n, k_threads * k_ops);
        ++failures;
      }
    }
  }
  printf("%s: %d of %d rounds failed\n", mode.c_str(), failures, rounds);
  return failures ? 1 : 0;
}
