// Minimal mutex / condition variable / thread over pthreads. The standard <mutex>,
// <condition_variable> and <thread> headers cost ~0.4 s of compile time per TU together;
// these wrappers cost almost nothing and are all probe needs. Internal header.
#pragma once
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class mutex {
 public:
  mutex() noexcept { pthread_mutex_init(&m_, nullptr); }
  ~mutex() { pthread_mutex_destroy(&m_); }
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  void lock() noexcept { pthread_mutex_lock(&m_); }
  void unlock() noexcept { pthread_mutex_unlock(&m_); }
  bool try_lock() noexcept { return pthread_mutex_trylock(&m_) == 0; }
  pthread_mutex_t* native() noexcept { return &m_; }

 private:
  pthread_mutex_t m_;
};

// For function-local statics: constant-initialized and never destroyed, so that threads
// still running while the process exits (and atexit handlers) can keep locking it.
class static_mutex {
 public:
  constexpr static_mutex() noexcept = default;
  static_mutex(const static_mutex&) = delete;
  static_mutex& operator=(const static_mutex&) = delete;
  void lock() noexcept { pthread_mutex_lock(&m_); }
  void unlock() noexcept { pthread_mutex_unlock(&m_); }

 private:
  pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

// For the rare start-up steps that a fork() may interrupt (the first reading of the flags,
// starting threads): a child forked while a thread of its parent held the lock takes it
// over, since that thread does not exist in the child. Waiters spin (with sched_yield):
// holders keep it for start-up work only. Constant-initialized, never destroyed.
class fork_safe_mutex {
 public:
  constexpr fork_safe_mutex() noexcept = default;
  fork_safe_mutex(const fork_safe_mutex&) = delete;
  fork_safe_mutex& operator=(const fork_safe_mutex&) = delete;
  void lock() noexcept {
    const int me = static_cast<int>(getpid());
    for (;;) {
      int owner = __atomic_load_n(&owner_, __ATOMIC_ACQUIRE);
      // Free (0), or held by a thread of another process: the parent's, copied at a fork.
      if (owner != me && __atomic_compare_exchange_n(&owner_, &owner, me, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
      sched_yield();
    }
  }
  void unlock() noexcept { __atomic_store_n(&owner_, 0, __ATOMIC_RELEASE); }

 private:
  int owner_ = 0;  // pid of the process whose thread holds it; 0: free
};

// Recursive: for state that a callback running under the lock may re-enter.
class recursive_mutex {
 public:
  recursive_mutex() noexcept {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&m_, &a);
    pthread_mutexattr_destroy(&a);
  }
  ~recursive_mutex() { pthread_mutex_destroy(&m_); }
  recursive_mutex(const recursive_mutex&) = delete;
  recursive_mutex& operator=(const recursive_mutex&) = delete;
  void lock() noexcept { pthread_mutex_lock(&m_); }
  void unlock() noexcept { pthread_mutex_unlock(&m_); }

 private:
  pthread_mutex_t m_;
};

template <class M>
class lock_guard {
 public:
  explicit lock_guard(M& m) noexcept : m_(m) { m_.lock(); }
  ~lock_guard() { m_.unlock(); }
  lock_guard(const lock_guard&) = delete;
  lock_guard& operator=(const lock_guard&) = delete;

 private:
  M& m_;
};

class condvar {
 public:
  condvar() noexcept { pthread_cond_init(&c_, nullptr); }
  ~condvar() { pthread_cond_destroy(&c_); }
  condvar(const condvar&) = delete;
  condvar& operator=(const condvar&) = delete;
  void wait(mutex& m) noexcept { pthread_cond_wait(&c_, m.native()); }
  // Waits at most `ms` milliseconds (wall clock); spurious wake-ups are the caller's to handle.
  void wait_for_ms(mutex& m, long ms) noexcept {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec += 1;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&c_, m.native(), &ts);
  }
  void notify_one() noexcept { pthread_cond_signal(&c_); }
  void notify_all() noexcept { pthread_cond_broadcast(&c_); }

 private:
  pthread_cond_t c_;
};

// A joinable thread running fn(arg). Returns false when the thread could not be created.
class thread {
 public:
  thread() = default;
  thread(const thread&) = delete;
  thread& operator=(const thread&) = delete;
  ~thread() { join(); }
  bool start(void* (*fn)(void*), void* arg) noexcept {
    if (running_) return false;
    running_ = pthread_create(&t_, nullptr, fn, arg) == 0;
    return running_;
  }
  void join() noexcept {
    if (running_) {
      pthread_join(t_, nullptr);
      running_ = false;
    }
  }
  bool running() const noexcept { return running_; }
  bool is_self() const noexcept { return running_ && pthread_equal(t_, pthread_self()); }

 private:
  pthread_t t_{};
  bool running_ = false;
};

}  // namespace detail
PROBE_END_NAMESPACE
