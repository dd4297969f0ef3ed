// Dumping one tensor: read it chunk by chunk (any layout, any device), compute its health
// statistics and write its .npy file in the same pass, so each chunk is read from memory
// once while it is hot in cache. Implementation-only header.
#pragma once
#include <string.h>
#include <unistd.h>

#include <new>

#include <string>

#include "../core/stats.hpp"
#include "../core/tensor.hpp"
#include "../core/tensor_reader.hpp"
#include "../util/sync.hpp"
#include "../util/fs.hpp"
#include "../formats/npy.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Combines the statistics of two disjoint parts of one tensor (Chan et al.'s pairwise
// update for mean and variance).
PROBE_INLINE health merge_health(const health& a, const health& b) noexcept {
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
  template <int = 0>
  static stats_worker* get() noexcept {
    static static_mutex m;
    static stats_worker* w = nullptr;
    lock_guard<static_mutex> g(m);
    if (w && w->pid_ == getpid()) return w;
    stats_worker* fresh = new (std::nothrow) stats_worker();
    if (!fresh) return nullptr;
    if (!fresh->th_.start(&stats_worker::main, fresh)) {
      delete fresh;
      return nullptr;
    }
    w = fresh;  // a worker from before a fork is left alone: its thread exists only in the parent
    return w;
  }

  template <int = 0>
  void start(const void* p, size_t count, dtype t) noexcept {
    lock_guard<mutex> g(m_);
    job_ = view_raw(p, t, dims{static_cast<int64_t>(count)});
    pending_ = true;
    cv_.notify_all();
  }
  template <int = 0>
  health wait() noexcept {
    lock_guard<mutex> g(m_);
    while (pending_) cv_.wait(m_);
    return result_;
  }

 private:
  template <int = 0>
  stats_worker() : pid_(getpid()) {}
  template <int = 0>
  static void* main(void* self) noexcept {
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
  pid_t pid_;
  thread th_;
};

struct dump_result {
  bool read_ok = false;  // the tensor's bytes could be read (stats are meaningful)
  bool written = false;  // the .npy file exists under its final name
  int io_error = 0;      // errno of a failed file write (the dump should turn itself off)
  health stats;
  std::string note;      // why the tensor could not be read, if it could not
  tensor head;           // its first values (up to the count asked), for text dumps
};

constexpr size_t k_parallel_stats_bytes = size_t(16) << 20;

// Largest tensor whose file a background writer makes: copying a larger one would cost about
// what writing it does, so it is written on the op's thread.
constexpr size_t k_async_max_bytes = size_t(1) << 20;

// Reads `v` once: statistics, the first `head_values` elements, and (when `name` is not
// empty) an atomically written .npy file, `name` relative to the directory `dirfd` (with
// AT_FDCWD: a path), or (with `copy_to`) a copy of its row-major bytes, `copy_bytes` of
// them, for a background writer to write later.
PROBE_FUNC dump_result dump_tensor(const tensor_view& v, int dirfd, const std::string& name, size_t head_values,
                                   char* copy_to = nullptr, size_t copy_bytes = 0) noexcept {
  dump_result res;
  try {
    tensor_reader reader;
    if (!reader.open(v)) {
      res.note = reader.error();
      return res;
    }
    atomic_file file;
    std::string header;  // written with the first chunk: one system call for small tensors
    if (!name.empty()) {
      header = npy::header_for(v);
      if (int e = file.open_at(dirfd, name)) {
        res.io_error = e;
        return res;
      }
    }
    const size_t item = v.itemsize();
    const int64_t total = v.numel();
    const int64_t head_n = static_cast<int64_t>(head_values) < total ? static_cast<int64_t>(head_values) : total;
    if (head_n > 0) res.head = tensor(v.type, dims{head_n});
    size_t head_bytes_left = static_cast<size_t>(head_n) * item;
    char* head_dst = head_n > 0 ? static_cast<char*>(res.head.data()) : nullptr;
    health acc;
    acc.valid = true;
    acc.type = v.type;
    // Statistics overlap the file writes only when there is a file and enough data to pay
    // for the hand-over (about 10 us per chunk).
    stats_worker* worker = file.fd() >= 0 && reader.total_bytes() >= k_parallel_stats_bytes ? stats_worker::get() : nullptr;
    if (copy_to && reader.total_bytes() != copy_bytes) {
      res.note = "tensor size changed while read";
      return res;
    }
    const void* p;
    size_t n;
    while (reader.next(&p, &n) && n) {
      if (copy_to && n <= copy_bytes) {  // the statistics below then read the copy, hot in cache
        p = memcpy(copy_to, p, n);
        copy_to += n;
        copy_bytes -= n;
      }
      if (worker) {
        worker->start(p, n / item, v.type);
      } else {
        acc = merge_health(acc, compute_health(view_raw(p, v.type, dims{static_cast<int64_t>(n / item)})));
      }
      if (head_bytes_left) {
        const size_t take = n < head_bytes_left ? n : head_bytes_left;
        memcpy(head_dst, p, take);
        head_dst += take;
        head_bytes_left -= take;
      }
      int e = 0;
      if (file.fd() >= 0) {
        e = header.empty() ? write_all(file.fd(), p, n) : write_all2(file.fd(), header.data(), header.size(), p, n);
        header.clear();
      }
      if (worker) acc = merge_health(acc, worker->wait());  // before the reader reuses the chunk
      if (e) {
        res.io_error = e;
        return res;
      }
    }
    if (!reader.error().empty()) {
      res.note = reader.error();
      return res;
    }
    // A 0-d tensor or an empty one still gets its element count and type.
    acc.count = total;
    res.stats = acc;
    res.read_ok = true;
    if (file.fd() >= 0) {
      if (!header.empty()) {  // an empty tensor: the header is the whole file
        if (int e = write_all(file.fd(), header.data(), header.size())) {
          res.io_error = e;
          return res;
        }
      }
      if (int e = file.commit()) {
        res.io_error = e;
        return res;
      }
      res.written = true;
    }
  } catch (...) {
    res.note = "out of memory";
  }
  return res;
}

}  // namespace detail
PROBE_END_NAMESPACE
