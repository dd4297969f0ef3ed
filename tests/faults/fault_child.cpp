// A program that dumps while the test around it (test_faults.cpp) breaks its world. Flags
// come from PROBE_FLAGS; it prints "results ok" (on stderr in `epipe` mode, whose stdout is
// a closed pipe) when the engine's numbers are right, whatever happened to the dump.
//   fault_child fsize N       RLIMIT_FSIZE of N bytes, SIGXFSZ left at its default (kills)
//   fault_child steps N       N passes over the diamond of ops
//   fault_child epipe         one pass, stdout a pipe whose reader is gone (SIGPIPE default)
//   fault_child removed DIR   two passes, DIR removed, three more passes
//   fault_child fork N        N passes with the writers busy, fork: the child does N/2
//                             passes of its own and exits; the parent waits, does N more
//   fault_child loop          passes forever (the test kills it)
//   fault_child trace_fsize N RLIMIT_FSIZE of N bytes while a trace spills to its spool file
//   fault_child stderr_epipe  stderr a pipe whose reader is gone, probe messages and the
//                             timing summary written to it (SIGPIPE default)
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../dump/dump_fixture.hpp"

namespace {
int check(const dump_test::diamond_engine& e, FILE* out) {
  for (size_t i = 0; i < e.d.size(); ++i)
    if (e.d[i] != e.b[i] + e.c[i]) {
      std::fprintf(out, "results wrong at %zu\n", i);
      return 1;
    }
  std::fprintf(out, "results ok\n");
  std::fflush(out);
  return 0;
}
int arg(int argc, char** argv, int i, int def) { return argc > i ? std::atoi(argv[i]) : def; }
}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "steps";
  signal(SIGXFSZ, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  if (!std::strcmp(mode, "fsize")) {
    const rlim_t n = static_cast<rlim_t>(arg(argc, argv, 2, 100 * 1024));
    rlimit lim{n, n};
    setrlimit(RLIMIT_FSIZE, &lim);
    dump_test::diamond_engine small("small.");  // 256-byte tensors
    for (int s = 0; s < 60; ++s) small.step(s);
    dump_test::diamond_engine big("big.", 65536);  // 256 KiB per tensor: over the limit
    for (int s = 0; s < 3; ++s) big.step(s);
    // A SIGXFSZ left pending by probe would be delivered here, when nothing blocks it.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    return check(small, stdout) | check(big, stdout);
  }
  if (!std::strcmp(mode, "trace_fsize")) {
    const rlim_t n = static_cast<rlim_t>(arg(argc, argv, 2, 256 * 1024));
    rlimit lim{n, n};
    setrlimit(RLIMIT_FSIZE, &lim);
    dump_test::diamond_engine e;
    for (int s = 0; s < 40000; ++s) e.step(s);  // events enough to spill the spool past the limit
    probe::flush();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    return check(e, stdout);
  }
  if (!std::strcmp(mode, "stderr_epipe")) {
    int p[2];
    if (pipe(p) != 0) return 3;
    close(p[0]);
    dup2(p[1], 2);
    probe::set_flags((std::string(getenv("PROBE_FLAGS") ? getenv("PROBE_FLAGS") : "") + " --probe_no_such_flag").c_str());
    dump_test::diamond_engine e;
    for (int s = 0; s < 3; ++s) e.step(s);
    return check(e, stdout);  // the timing summary goes to stderr at exit
  }
  if (!std::strcmp(mode, "epipe")) {
    dump_test::diamond_engine e;
    for (int s = 0; s < 3; ++s) e.step(s);
    probe::flush();
    return check(e, stderr);
  }
  dump_test::diamond_engine e;
  if (!std::strcmp(mode, "removed") && argc > 2) {
    for (int s = 0; s < 2; ++s) e.step(s);
    probe::flush();
    const std::string rm = "rm -rf '" + std::string(argv[2]) + "'";
    if (std::system(rm.c_str()) != 0) return 3;
    for (int s = 2; s < 5; ++s) e.step(s);
    return check(e, stdout);
  }
  if (!std::strcmp(mode, "fork")) {
    const int n = arg(argc, argv, 2, 40);
    for (int s = 0; s < n; ++s) e.step(s);
    std::fflush(stdout);
    const pid_t pid = fork();  // the writers still hold queued files
    if (pid == 0) {
      alarm(60);  // a child waiting on writers it does not have fails instead of hanging
      for (int s = 0; s < n / 2; ++s) e.step(s);
      std::printf("child %d\n", static_cast<int>(getpid()));
      std::exit(check(e, stdout));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    for (int s = n; s < 2 * n; ++s) e.step(s);
    return check(e, stdout);
  }
  if (!std::strcmp(mode, "loop")) {
    std::printf("started\n");
    std::fflush(stdout);
    for (int s = 0;; ++s) e.step(s);
  }
  const int n = arg(argc, argv, 2, 1);
  for (int s = 0; s < n; ++s) e.step(s);
  return check(e, stdout);
}
