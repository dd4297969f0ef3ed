// Dumping one tensor: read it chunk by chunk (any layout, any device), compute its health
// statistics and write its .npy file in the same pass, so each chunk is read from memory
// once while it is hot in cache. Internal header.
#pragma once
#include <string.h>
#include <unistd.h>

#include <new>

#include <string>

#include "../core/stats.hpp"
#include "../core/tensor.hpp"
#include "../core/tensor_reader.hpp"
#include "../util/background_thread.hpp"
#include "../util/sync.hpp"
#include "../util/fs.hpp"
#include "../util/hash.hpp"
#include "../formats/npy.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Combines the statistics of two disjoint parts of one tensor (Chan et al.'s pairwise
// update for mean and variance).
inline health merge_health(const health& a, const health& b) noexcept {
  if (!a.valid || a.count == 0) return b;
  if (!b.valid || b.count == 0) return a;
  health h = a;
  h.count = a.count + b.count;
  h.finite = a.finite + b.finite;
  h.nan = a.nan + b.nan;
  h.pos_inf = a.pos_inf + b.pos_inf;
  h.neg_inf = a.neg_inf + b.neg_inf;
  h.zero = a.zero + b.zero;
  h.subnormal = a.subnormal + b.subnormal;
  h.negative = a.negative + b.negative;
  h.positive = a.positive + b.positive;
  if (b.finite == 0) return h;
  if (a.finite == 0) {
    h.min = b.min;
    h.max = b.max;
    h.mean = b.mean;
    h.std = b.std;
    return h;
  }
  h.min = a.min < b.min ? a.min : b.min;
  h.max = a.max > b.max ? a.max : b.max;
  const double na = static_cast<double>(a.finite), nb = static_cast<double>(b.finite);
  const double n = na + nb, delta = b.mean - a.mean;
  h.mean = a.mean + delta * nb / n;
  const double m2 = a.std * a.std * na + b.std * b.std * nb + delta * delta * na * nb / n;
  h.std = __builtin_sqrt(m2 / n);
  return h;
}

// Computes health statistics of chunks on a second thread while the caller writes them, so
// a large dump costs about as much as writing its bytes. One job at a time; the caller hands
// a chunk over, writes it, then waits for the statistics before the chunk's memory is reused.
class stats_worker {
 public:
  // The process's worker (a new one after fork: threads do not survive it); nullptr if no
  // thread can be started.
  static stats_worker* get() noexcept {
    static fork_safe_mutex m;  // a child forked while a parent's thread held it takes it over
    static stats_worker* w = nullptr;
    lock_guard<fork_safe_mutex> g(m);
    if (w && w->pid_ == getpid()) return w;
    stats_worker* fresh = new (std::nothrow) stats_worker();
    if (!fresh) return nullptr;
    if (!fresh->th_.start(&stats_worker::main, fresh)) {
      delete fresh;
      return nullptr;
    }
    fresh->forked_from_ = w;  // kept reachable: its memory is the parent's
    w = fresh;  // a worker from before a fork is left alone: its thread exists only in the parent
    return w;
  }

  // The worker for one tensor's chunks, from its first start() to its last wait(); nullptr
  // while another thread's tensor has it (that caller computes its statistics itself: one
  // job slot, so two callers would take each other's results). release() when done.
  static stats_worker* claim() noexcept {
    stats_worker* w = get();
    if (!w || __atomic_exchange_n(&w->claimed_, true, __ATOMIC_ACQUIRE)) return nullptr;
    return w;
  }
  void release() noexcept { __atomic_store_n(&claimed_, false, __ATOMIC_RELEASE); }

  void start(const void* p, size_t count, dtype t) noexcept {
    lock_guard<mutex> g(m_);
    job_ = view_raw(p, t, dims{static_cast<int64_t>(count)});
    pending_ = true;
    cv_.notify_all();
  }
  health wait() noexcept {
    lock_guard<mutex> g(m_);
    while (pending_) cv_.wait(m_);
    return result_;
  }

 private:
  stats_worker() : pid_(getpid()) {}
  static void* main(void* self) noexcept {
    become_background_thread("probe-stats");
    auto* w = static_cast<stats_worker*>(self);
    for (;;) {
      tensor_view job;
      {
        lock_guard<mutex> g(w->m_);
        while (!w->pending_) w->cv_.wait(w->m_);
        job = w->job_;
      }
      const health h = compute_health(job);
      lock_guard<mutex> g(w->m_);
      w->result_ = h;
      w->pending_ = false;
      w->cv_.notify_all();
    }
    return nullptr;
  }

  mutex m_;
  condvar cv_;
  tensor_view job_{};
  health result_;
  bool pending_ = false;  // a job was handed over and its result is not ready yet
  bool claimed_ = false;  // a caller holds the worker (claim/release)
  pid_t pid_;
  stats_worker* forked_from_ = nullptr;
  thread th_;
};

// A claimed worker, released when the tensor is done (on every way out).
struct stats_lease {
  explicit stats_lease(stats_worker* w) noexcept : worker(w) {}
  stats_lease(const stats_lease&) = delete;
  stats_lease& operator=(const stats_lease&) = delete;
  ~stats_lease() {
    if (worker) worker->release();
  }
  stats_worker* const worker;
};

struct dump_result {
  bool read_ok = false;  // the tensor's bytes could be read (stats are meaningful)
  bool written = false;  // the .npy file exists under its final name
  int io_error = 0;      // errno of a failed file write (the dump should turn itself off)
  health stats;
  std::string note;      // why the tensor could not be read, if it could not
  tensor head;           // its first values (up to the count asked), for text dumps
  bool have_hash = false;  // `hash` is the content hash of the bytes read (when asked)
  uint64_t hash = 0;
};

constexpr size_t k_parallel_stats_bytes = size_t(16) << 20;

// Largest tensor whose file a background writer makes: copying a larger one would cost about
// what writing it does, so it is written on the op's thread.
constexpr size_t k_async_max_bytes = size_t(1) << 20;

// Reads `v` once: statistics, the first `head_values` elements, and (when `name` is not
// empty) an atomically written .npy file, `name` relative to the directory `dirfd` (with
// AT_FDCWD: a path), or (with `copy_to`) a copy of its row-major bytes, `copy_bytes` of
// them, for a background writer to write later. With `hash`, also the content hash of the
// row-major bytes.
PROBE_API dump_result dump_tensor(const tensor_view& v, int dirfd, const std::string& name, size_t head_values,
                                   char* copy_to = nullptr, size_t copy_bytes = 0, bool hash = false) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
