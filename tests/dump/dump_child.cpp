// A program that dumps, driven by tests/dump/test_dump_process.cpp in a child process.
//   dump_child fsize       dump under a 100 KiB RLIMIT_FSIZE (SIGXFSZ ignored): small tensors fit,
//                          then a large one fails mid-dump
//   dump_child loop        dump 1 MiB tensors forever (the test kills it)
//   dump_child loop_named  the same, files written under named temporaries and renamed (the
//                          fallback for file systems without O_TMPFILE)
//   dump_child once        one pass over the diamond (mpirun runs several of these)
//   dump_child exit        one pass, then std::exit from inside a nested function
//   dump_child many        100 passes, then return from main (files may still be queued)
//   dump_child many_exit   the same, then std::exit
//   dump_child fork DIR    20 passes, fork: the child dumps 10 passes into DIR/child and
//                          exits; the parent waits for it, then does 20 more passes
// Flags come from PROBE_FLAGS. Prints "results ok" when the engine's numbers are right.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <probe/util/fs.hpp>

#include "dump_fixture.hpp"

namespace {
int check(const dump_test::diamond_engine& e) {
  for (size_t i = 0; i < e.d.size(); ++i)
    if (e.d[i] != e.b[i] + e.c[i]) {
      std::printf("results wrong at %zu\n", i);
      return 1;
    }
  std::printf("results ok\n");
  std::fflush(stdout);
  return 0;
}
[[noreturn]] void leave_early() { std::exit(0); }
}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "once";
  if (!std::strcmp(mode, "fsize")) {
    signal(SIGXFSZ, SIG_IGN);
    rlimit lim{100 * 1024, 100 * 1024};
    setrlimit(RLIMIT_FSIZE, &lim);
    dump_test::diamond_engine small("small.");  // 256-byte tensors: these files fit
    small.step(0);
    dump_test::diamond_engine big("big.", 65536);  // 256 KiB per tensor: over the limit
    for (int s = 0; s < 3; ++s) big.step(s);
    return check(small) | check(big);
  }
  if (!std::strcmp(mode, "loop_named")) probe::detail::learn_atomic_file_mode(probe::detail::k_atomic_named_only);
  if (!std::strcmp(mode, "loop") || !std::strcmp(mode, "loop_named")) {
    dump_test::diamond_engine e("", 1 << 18);
    std::printf("started\n");
    std::fflush(stdout);
    for (int s = 0;; ++s) e.step(s);
  }
  dump_test::diamond_engine e;
  if (!std::strcmp(mode, "many") || !std::strcmp(mode, "many_exit")) {
    for (int s = 0; s < 100; ++s) e.step(s);
    if (!std::strcmp(mode, "many_exit")) {
      check(e);
      leave_early();
    }
    return check(e);
  }
  if (!std::strcmp(mode, "fork") && argc > 2) {
    for (int s = 0; s < 20; ++s) e.step(s);
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      alarm(60);  // a child waiting on writers it does not have fails the test instead of hanging it
      probe::set_flags(("--probe_dump_to=" + std::string(argv[2]) + "/child --probe_dump_as_npy --probe_dump_threads=2").c_str());
      dump_test::diamond_engine c;
      for (int s = 0; s < 10; ++s) c.step(s);
      std::exit(check(c));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    for (int s = 20; s < 40; ++s) e.step(s);
    return check(e);
  }
  e.step(0);
  if (!std::strcmp(mode, "exit")) {
    check(e);
    leave_early();
  }
  return check(e);
}
