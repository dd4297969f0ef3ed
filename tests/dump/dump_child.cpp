// A program that dumps, driven by tests/dump/test_dump_process.cpp in a child process.
//   dump_child fsize       dump under a 100 KiB RLIMIT_FSIZE (SIGXFSZ ignored): small tensors fit,
//                          then a large one fails mid-dump
//   dump_child loop        dump 1 MiB tensors forever (the test kills it)
//   dump_child loop_named  the same, files written under named temporaries and renamed (the
//                          fallback for file systems without O_TMPFILE)
//   dump_child once        one pass over the diamond (mpirun runs several of these)
//   dump_child exit        one pass, then std::exit from inside a nested function
// Flags come from PROBE_FLAGS. Prints "results ok" when the engine's numbers are right.
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <probe/detail/atomic_file.hpp>

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
  e.step(0);
  if (!std::strcmp(mode, "exit")) {
    check(e);
    leave_early();
  }
  return check(e);
}
