// Programs that print and then end in different ways; test_print_exit.cpp checks that no
// print is lost (or, for abort, that effects_barrier() keeps them) and none is duplicated.
//   print_exit_program MODE N      MODE: return exit thread_exit callback_exit barrier_abort fork fork_busy
#include <probe/probe.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {
void print_lines(const char* who, int n) {
  std::vector<float> t{1.5f, 2.5f};
  for (int i = 0; i < n; ++i) probe::print("{} {} {}", who, i, t);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string mode = argv[1];
  const int n = std::atoi(argv[2]);
  if (mode == "return") {
    print_lines("main", n);
    return 0;
  }
  if (mode == "exit") {
    print_lines("main", n);
    std::exit(0);
  }
  if (mode == "thread_exit") {
    std::thread t([n] {
      print_lines("thread", n);
      std::exit(0);
    });
    t.join();
    return 1;  // not reached
  }
  if (mode == "callback_exit") {
    // Queue: before..., a callback that waits until everything is queued, one that exits,
    // after... The exit handler runs on the worker thread, inside the callback.
    static std::atomic<bool> all_queued{false};
    print_lines("before", n);
    probe::callback([] {
      while (!all_queued.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    probe::callback([] { std::exit(0); });
    print_lines("after", n);
    all_queued = true;
    probe::effects_barrier();
    return 1;  // not reached: the callback ends the program
  }
  if (mode == "barrier_abort") {
    print_lines("main", n);
    probe::effects_barrier();  // what docs/debug.md recommends before an abort
    std::abort();
  }
  if (mode == "fork") {
    print_lines("parent-before", n);
    const pid_t pid = fork();
    if (pid == 0) {
      print_lines("child", n);
      std::exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    print_lines("parent-after", n);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (mode == "fork_busy") {
    // N children forked while two threads print without pause: a child may start while the
    // parent's worker holds a lock. Each child prints, waits for its effects and exits; one
    // that hangs is stopped by its alarm, and the parent says how many did.
    std::atomic<bool> stop{false};
    std::vector<std::thread> busy;
    for (const char* who : {"busy0", "busy1"})
      busy.emplace_back([who, &stop] {
        std::vector<float> t{1.5f, 2.5f};
        for (int i = 0; !stop.load(); ++i) probe::print("{} {} {}", who, i, t);
      });
    int hung = 0, failed = 0;
    for (int c = 0; c < n; ++c) {
      const pid_t pid = fork();
      if (pid == 0) {
        alarm(20);
        print_lines(("child" + std::to_string(c)).c_str(), 1);
        probe::effects_barrier();
        std::exit(0);
      }
      int status = 0;
      waitpid(pid, &status, 0);
      if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) ++hung;
      else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
    }
    stop = true;
    for (std::thread& t : busy) t.join();
    std::fprintf(stdout, "children hung: %d, failed: %d\n", hung, failed);
    return hung || failed ? 4 : 0;
  }
  return 2;
}
