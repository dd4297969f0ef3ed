// A program that ends in one of several ways with timing on; check_exit.py runs it and
// checks that the trace and the summary were still written.
//   return   returns from main
//   exit     calls std::exit from inside nested scopes
//   threads  workers that finished long before exit, one named worker, one still running
//   fork     a child forked mid-run times its own scopes and exits: the parent's trace is
//            left alone
#include <probe/probe.hpp>

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

void leaf() { PROBE_SCOPE("leaf"); }

void step(int n) {
  PROBE_SCOPE("step");
  for (int i = 0; i < n; ++i) leaf();
}

[[noreturn]] void exit_inside_scopes() {
  PROBE_SCOPE("never_closed");  // still open at exit: not in the trace
  std::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "return";
  // A stopwatch made before any mark reads the clock before probe has seen a flag: the flags
  // are read then, so --probe_timing_clock still chooses the clock.
  std::unique_ptr<probe::timer> early;
  if (std::strcmp(mode, "timer_first") == 0) early.reset(new probe::timer());
  {
    PROBE_SCOPE("setup");
    for (int i = 0; i < 3; ++i) step(4);
  }
  float x[6] = {1, 2, 3, 4, 5, 6};
  {
    probe::op op("matmul", "MatMul");
    op.input("x", probe::view(x, {2, 3}));
    op.output("y", probe::view(x, {3, 2}));
  }
  probe::metric("MLUPS", 577.3);
  if (std::strcmp(mode, "threads") == 0) {
    std::vector<std::thread> done;
    for (int t = 0; t < 4; ++t)
      done.emplace_back([t] {
        if (t == 0) pthread_setname_np(pthread_self(), "named_worker");
        for (int i = 0; i < 250; ++i) step(1);
      });
    for (auto& t : done) t.join();
    // A thread still running when main returns: whatever it finished before exit counts.
    static std::atomic<bool> started{false};
    std::thread([] {
      { PROBE_SCOPE("straggler"); }
      started = true;
      for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }).detach();
    while (!started) std::this_thread::yield();
  }
  if (std::strcmp(mode, "exit") == 0) exit_inside_scopes();
  if (std::strcmp(mode, "fork") == 0) {
    probe::flush();  // the trace file is open and written when the child starts
    const pid_t child = fork();
    if (child == 0) {
      for (int i = 0; i < 5000; ++i) {
        PROBE_SCOPE("child_only");
      }
      std::exit(0);  // runs the exit handler in the child too
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 3;
  }
  return 0;
}
