// Writes that cannot kill the host. A write past RLIMIT_FSIZE raises SIGXFSZ and a write to a
// pipe whose reader is gone raises SIGPIPE; both terminate a process that keeps the default
// action. probe's own writes block the two around the write, so the write fails with EFBIG
// or EPIPE instead (one message, the effect turns itself off), and take back the signal they
// raised before unblocking, so it is never delivered later. probe's background threads block
// every signal for good (background_thread.hpp) and skip the mask changes. Internal header.
#pragma once
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Guards active on this thread (a background thread holds one for its whole life).
inline thread_local int t_io_signal_depth = 0;
// A guarded write failed in a way that raises one of the signals.
inline thread_local bool t_io_signal_raised = false;

// Called by the writers (fs.hpp) with a failed write's errno.
inline void note_io_error(int err) noexcept {
  if (err == EFBIG || err == EPIPE) t_io_signal_raised = true;
}

class io_signal_guard {
 public:
  // `on` false: nothing (a caller that may not write at all).
  explicit io_signal_guard(bool on = true) noexcept : counted_(on) {
    sigemptyset(&old_);
    if (!on || t_io_signal_depth++ > 0) return;  // nested, or a background thread
    t_io_signal_raised = false;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGXFSZ);
    sigaddset(&s, SIGPIPE);
    active_ = pthread_sigmask(SIG_BLOCK, &s, &old_) == 0;
  }
  ~io_signal_guard() {
    if (counted_) --t_io_signal_depth;
    if (!active_) return;
    if (t_io_signal_raised) {
      // Take the signals our writes raised, unless the program blocks them itself (then a
      // pending one may be its own, and stays pending as it would have without probe).
      sigset_t mine;
      sigemptyset(&mine);
      if (!sigismember(&old_, SIGXFSZ)) sigaddset(&mine, SIGXFSZ);
      if (!sigismember(&old_, SIGPIPE)) sigaddset(&mine, SIGPIPE);
      const timespec zero = {0, 0};
      for (int k = 0; k < 4; ++k) {
        sigset_t pending;
        if (sigpending(&pending) != 0) break;
        if (!(sigismember(&mine, SIGXFSZ) && sigismember(&pending, SIGXFSZ)) &&
            !(sigismember(&mine, SIGPIPE) && sigismember(&pending, SIGPIPE)))
          break;
        if (sigtimedwait(&mine, nullptr, &zero) < 0 && errno != EINTR) break;
      }
      t_io_signal_raised = false;
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  io_signal_guard(const io_signal_guard&) = delete;
  io_signal_guard& operator=(const io_signal_guard&) = delete;

 private:
  sigset_t old_;
  bool counted_;
  bool active_ = false;
};

// For threads that block every signal for their whole life: guards cost nothing there.
inline void io_signals_blocked_for_good() noexcept { t_io_signal_depth = 1; }

}  // namespace detail
PROBE_END_NAMESPACE
