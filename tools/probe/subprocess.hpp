// Running a command for bisect-run: posix_spawn in its own process group, stdin from
// /dev/null, stdout and stderr captured together through one pipe, an optional timeout
// after which the whole group is killed. Ctrl-C or a TERM while waiting kills the group too.
// Linux (pipe2, pidfd).
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "analysis/bisect.hpp"

extern char** environ;

namespace probe_cli {

namespace subprocess_detail {

inline volatile sig_atomic_t g_interrupt = 0;
inline void on_interrupt(int sig) { g_interrupt = sig; }

// A file descriptor that polls readable when the process exits; -1 where the kernel has none
// (before Linux 5.3).
inline int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

inline double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace subprocess_detail

// Keeps at most this much output per run (the start and the end); the middle is dropped.
constexpr size_t k_output_cap = 32u << 20;

// Runs argv (looked up in PATH). timeout_s <= 0: no limit. echo_fd >= 0: output is copied
// there as it arrives.
inline probe::analysis::process_outcome run_process(const std::vector<std::string>& argv, double timeout_s,
                                                    int echo_fd = -1) {
  using namespace subprocess_detail;
  probe::analysis::process_outcome out;
  if (argv.empty()) {
    out.spawn_error = "no command";
    return out;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    out.spawn_error = std::string("pipe: ") + strerror(errno);
    return out;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  struct sigaction act, old_int, old_term, old_chld, dfl;
  memset(&act, 0, sizeof act);
  act.sa_handler = on_interrupt;
  sigemptyset(&act.sa_mask);
  sigaction(SIGINT, &act, &old_int);
  sigaction(SIGTERM, &act, &old_term);
  // With SIGCHLD ignored the kernel would reap the child itself and its status would be lost.
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &dfl, &old_chld);
  g_interrupt = 0;

  const double start = now_seconds();
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGCHLD, &old_chld, nullptr);
    out.spawn_error = argv[0] + ": " + strerror(rc);
    return out;
  }
  out.started = true;

  std::string tail;  // once past the cap: the latest output, kept to half the cap
  bool dropped = false;
  auto keep = [&](const char* data, size_t n) {
    if (echo_fd >= 0) {
      ssize_t w = write(echo_fd, data, n);
      (void)w;
    }
    if (out.output.size() + n <= k_output_cap / 2 && !dropped) {
      out.output.append(data, n);
      return;
    }
    dropped = true;
    tail.append(data, n);
    if (tail.size() > k_output_cap / 2) tail.erase(0, tail.size() - k_output_cap / 2);
  };

  // Waits sleep in poll(2) on the output and on the process itself (a pidfd), so a child
  // that closed its output but runs on costs no CPU. Waits are capped, so that a signal
  // arriving just before poll is seen soon, and without a pidfd the exit is noticed within
  // that cap.
  const int pidfd = open_pidfd(pid);
  int status = 0;
  bool reaped = false, open = true;
  char buf[65536];
  while (!reaped || open) {
    if (g_interrupt) {
      kill(-pid, SIGKILL);
      if (!reaped) waitpid(pid, &status, 0);
      sigaction(SIGINT, &old_int, nullptr);
      sigaction(SIGTERM, &old_term, nullptr);
      sigaction(SIGCHLD, &old_chld, nullptr);
      raise(g_interrupt);
      _exit(128 + g_interrupt);  // if the signal was ignored before: stop anyway
    }
    const double elapsed = now_seconds() - start;
    if (!reaped && timeout_s > 0 && elapsed > timeout_s && !out.timed_out) {
      out.timed_out = true;
      kill(-pid, SIGKILL);
    }
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      // stragglers of the group could hold the pipe open forever: stop them, drain, finish
      kill(-pid, SIGKILL);
      fcntl(fds[0], F_SETFL, O_NONBLOCK);
    }
    if (reaped) {  // drain what is left, without waiting
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n > 0) keep(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) open = false;
      continue;
    }
    int wait_ms = 100;
    if (timeout_s > 0 && !out.timed_out) {
      const double left_ms = (timeout_s - elapsed) * 1000 + 1;
      if (left_ms < wait_ms) wait_ms = left_ms < 1 ? 1 : static_cast<int>(left_ms);
    }
    pollfd p[2];
    nfds_t count = 0;
    if (open) p[count++] = pollfd{fds[0], POLLIN, 0};
    if (pidfd >= 0) p[count++] = pollfd{pidfd, POLLIN, 0};
    if (poll(count ? p : nullptr, count, wait_ms) <= 0 || !open || !(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) keep(buf, static_cast<size_t>(n));
    else if (n == 0 || (errno != EINTR && errno != EAGAIN)) open = false;  // closed: wait for the exit
  }
  if (pidfd >= 0) close(pidfd);
  close(fds[0]);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGCHLD, &old_chld, nullptr);
  out.seconds = now_seconds() - start;
  if (dropped) out.output += "\n[... output over " + std::to_string(k_output_cap >> 20) + " MiB dropped ...]\n" + tail;
  if (WIFEXITED(status)) {
    out.exited = true;
    out.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  return out;
}

}  // namespace probe_cli
