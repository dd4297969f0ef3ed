// Background writers for the dump's small files. Creating a small file costs the kernel far
// more than its bytes do (an unnamed file, a link, a write, a close, the manifest line), so
// the op hands over a copy of the bytes with the file's name and manifest line and goes on;
// writer threads make the files and append the lines. The queue is bounded in bytes (the
// flag) and in files (k_max_jobs: what a drain at exit or set_flags waits for stays short
// on a slow file system); past either the op waits for the writers: nothing is dropped,
// nothing grows without bound. Internal header.
//
// Jobs go to lanes, one per writer thread, each written in the order queued: the dump puts
// all of one op's files in one lane, so an op's manifest lines keep their order. A drain
// waits, lane by lane, for what was queued when it began, so threads that go on dumping
// while the process exits cannot make it wait forever.
//
// Threads do not survive fork(): a child gets a new set of writers on first use, and never
// waits on (or locks) its parent's, whose queued jobs the parent writes.
#pragma once
#include <pthread.h>
#include <stdint.h>

#include <new>
#include <string>

#include "../util/fs.hpp"
#include "../util/log.hpp"
#include "../util/background_thread.hpp"
#include "../util/sync.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// One file for a writer. Its bytes follow the struct, in the same allocation.
struct dump_job {
  dump_job* next = nullptr;
  void (*write)(dump_job&) noexcept = nullptr;  // makes the file (and its line); on a writer thread
  void* owner = nullptr;                        // what `write` needs: the dump effect
  void* dir = nullptr;                          // the run's open directory, referenced by the job
  uint64_t run = 0;                             // the run it belongs to
  uint64_t ticket = 0;                          // queued order (which jobs an error leaves alone)
  std::string name;                             // relative to the run directory
  std::string line;                             // the manifest line; empty: none
  size_t size = 0;                              // bytes at data()
  size_t cost = 0;                              // counted against the queue's cap

  char* data() noexcept { return reinterpret_cast<char*>(this + 1); }

  // A job with room for `size` bytes; nullptr when out of memory.
  static dump_job* create(size_t size) noexcept {
    void* p = ::operator new(sizeof(dump_job) + size, std::nothrow);
    if (!p) return nullptr;
    dump_job* j = new (p) dump_job();
    j->size = size;
    j->cost = sizeof(dump_job) + size;
    return j;
  }
  static void destroy(dump_job* j) noexcept {
    j->~dump_job();
    ::operator delete(static_cast<void*>(j));
  }
};

class dump_writers;
inline dump_writers* g_dump_writers = nullptr;  // this process's (see get)

class dump_writers {
 public:
  static constexpr int k_max_threads = 16;
  static constexpr uint64_t k_max_jobs = 256;

  // This process's writers, with up to `want` threads running (started on first use); a new
  // set after fork. nullptr when no thread runs: the caller writes synchronously.
  static dump_writers* get(int want) noexcept {
    if (want > k_max_threads) want = k_max_threads;
    dump_writers* w = __atomic_load_n(&g_dump_writers, __ATOMIC_ACQUIRE);
    if (PROBE_LIKELY(w && w->pid_ == cached_pid() && w->lanes() >= want)) return w;
    return start(want);
  }

  // This process's writers if it has any, without starting them.
  static dump_writers* existing() noexcept {
    dump_writers* w = __atomic_load_n(&g_dump_writers, __ATOMIC_ACQUIRE);
    return w && w->pid_ == cached_pid() ? w : nullptr;
  }

  // Threads running; jobs may go to lanes [0, lanes()).
  int lanes() const noexcept { return __atomic_load_n(&started_, __ATOMIC_ACQUIRE); }

  // Queues `j` (ownership passes) on lane `lane % lanes()`. Waits while the queued bytes
  // would pass `cap` or k_max_jobs are queued, unless nothing is (a job larger than the cap
  // still goes).
  void push(dump_job* j, unsigned lane, uint64_t cap) noexcept {
    lane_state& l = lanes_[lane % static_cast<unsigned>(lanes())];
    bool wake;
    {
      lock_guard<mutex> g(m_);
      while (queued_ > 0 && (queued_ + j->cost > cap || jobs_ >= k_max_jobs)) {
        // Woken when half the room is free (or nothing is queued): not once per file.
        const uint64_t below = cap / 2;
        if (!room_waiters_ || below < room_below_) room_below_ = below;
        ++room_waiters_;
        room_.wait_for_ms(m_, 100);
        --room_waiters_;
      }
      queued_ += j->cost;
      ++jobs_;
      if (l.tail) l.tail->next = j;
      else l.head = j;
      l.tail = j;
      ++l.pushed;
      wake = l.idle;
    }
    if (wake) l.work.notify_one();
  }

  // Returns once every job queued before the call is written (or dropped by its writer).
  void drain() noexcept {
    uint64_t target[k_max_threads];
    lock_guard<mutex> g(m_);
    const int n = lanes();
    for (int i = 0; i < n; ++i) target[i] = lanes_[i].pushed;
    for (int i = 0; i < n; ++i) {
      lane_state& l = lanes_[i];
      while (l.done < target[i]) {
        // Woken when the lane reaches the furthest target waited for: not once per file.
        if (l.drain_at < target[i]) l.drain_at = target[i];
        ++drain_waiters_;
        drained_.wait_for_ms(m_, 100);
        --drain_waiters_;
      }
    }
  }

  // Bytes queued, not yet written (tests).
  uint64_t queued_bytes() noexcept {
    lock_guard<mutex> g(m_);
    return queued_;
  }

 private:
  struct lane_state {
    dump_writers* pool = nullptr;
    dump_job *head = nullptr, *tail = nullptr;
    dump_job* writing = nullptr;    // the batch its thread writes now (see main)
    uint64_t pushed = 0, done = 0;  // jobs queued and finished on this lane, ever
    uint64_t drain_at = 0;          // a drain waits until done reaches this
    bool idle = false;              // its thread waits for work
    condvar work;
    thread th;
  };

  dump_writers() noexcept = default;

  static dump_writers* start(int want) noexcept {
    // A child forked while a parent's thread started writers here takes the lock over.
    static fork_safe_mutex m;
    lock_guard<fork_safe_mutex> g(m);
    dump_writers* w = g_dump_writers;
    if (!w || w->pid_ != cached_pid()) {
      // One from before a fork is left alone: its threads exist only in the parent, and its
      // locks may have been held there when the process forked.
      dump_writers* parents = w;
      w = new (std::nothrow) dump_writers();
      if (!w) return nullptr;
      w->pid_ = cached_pid();
      w->forked_from_ = parents;
      __atomic_store_n(&g_dump_writers, w, __ATOMIC_RELEASE);
    }
    while (w->started_ < want && !w->start_failed_) {
      lane_state& l = w->lanes_[w->started_];
      l.pool = w;
      if (!l.th.start(&dump_writers::main, &l)) {
        w->start_failed_ = true;
        log("cannot start dump writer thread %d; dumping with %d", w->started_ + 1, w->started_);
        break;
      }
      __atomic_store_n(&w->started_, w->started_ + 1, __ATOMIC_RELEASE);
    }
    return w->started_ > 0 ? w : nullptr;
  }

  static void* main(void* arg) noexcept {
    become_background_thread("probe-dump");
    lane_state& l = *static_cast<lane_state*>(arg);
    dump_writers& w = *l.pool;
    w.m_.lock();
    for (;;) {
      while (!l.head) {
        l.idle = true;
        l.work.wait(w.m_);
        l.idle = false;
      }
      // A few jobs per turn of the lock, so that the op's thread rarely finds it taken.
      dump_job* batch = l.head;
      dump_job* last = batch;
      for (int k = 1; k < k_batch && last->next; ++k) last = last->next;
      l.head = last->next;
      if (!l.head) l.tail = nullptr;
      last->next = nullptr;
      w.m_.unlock();
      uint64_t cost = 0, n = 0;
      while (batch) {
        dump_job* j = batch;
        // The batch stays reachable from the lane while it is written: a child forked now
        // has no copy of this thread's stack, only of the lane (leak checkers see the jobs).
        __atomic_store_n(&l.writing, j, __ATOMIC_RELAXED);
        batch = j->next;
        cost += j->cost;
        ++n;
        j->write(*j);
        dump_job::destroy(j);
      }
      __atomic_store_n(&l.writing, static_cast<dump_job*>(nullptr), __ATOMIC_RELAXED);
      w.m_.lock();
      w.queued_ -= cost;
      w.jobs_ -= n;
      l.done += n;
      if (w.room_waiters_ && (w.queued_ == 0 || (w.queued_ <= w.room_below_ && w.jobs_ <= k_max_jobs / 2)))
        w.room_.notify_all();
      if (w.drain_waiters_ && l.drain_at && l.done >= l.drain_at) {
        l.drain_at = 0;
        w.drained_.notify_all();
      }
    }
    return nullptr;
  }

  static constexpr int k_batch = 8;

  mutex m_;             // the queues and counters below
  condvar room_;        // pushes waiting for room
  condvar drained_;     // drains waiting for lanes
  uint64_t queued_ = 0;  // bytes queued or being written
  uint64_t jobs_ = 0;    // files queued or being written
  uint64_t room_below_ = 0;  // wake room_ once queued_ is this low
  int room_waiters_ = 0, drain_waiters_ = 0;
  int started_ = 0;    // written under start()'s lock, read atomically
  bool start_failed_ = false;
  pid_t pid_ = 0;
  // In a forked child: the parent's writers, whose queued jobs stay reachable (the parent
  // writes and frees them; the child must not).
  dump_writers* forked_from_ = nullptr;
  lane_state lanes_[k_max_threads];
};

}  // namespace detail
PROBE_END_NAMESPACE
