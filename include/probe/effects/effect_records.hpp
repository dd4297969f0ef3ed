// The records behind probe::print and probe::callback, the queue's state, and what the
// caller's side does with them: allocation from per-shard pools, captures (tensor copies
// through the executors, strings), the byte budget. Internal header; the queue's
// operations are in effect_queue_impl.hpp.
#pragma once
#include <new>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include "../core/context.hpp"
#include "../core/format.hpp"
#include "../util/log.hpp"
#include "../util/sync.hpp"
#include "../util/thread_id.hpp"
#include "capture.hpp"
#include "print.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Memory a record owns: captured tensors (freed by their executor), copied strings (free).
struct owned_copy {
  owned_copy* next;
  void* data;
  capture_executor* exec;  // nullptr: malloc'd
};

struct effect_record {
  effect_record* next = nullptr;
  uint64_t seq = 0;      // ordered records: place in the global order
  int pending = 1;       // copies in flight, plus one held by the submitter until queued (atomic)
  bool ordered = false;
  bool is_callback = false;
  bool failed = false;   // a capture failed: `error` says why
  bool pooled = false;   // a block of the shard's pool (else malloc'd)
  uint8_t shard = 0;     // where it is queued (and, pooled, whose pool it returns to)
  size_t bytes = 0;      // captured tensor bytes, counted against the queue's budget
  // print
  const char* fmt = nullptr;
  size_t fmt_len = 0;
  format_arg* args = nullptr;
  int nargs = 0;
  // callback
  callback_task* task = nullptr;
  owned_copy* copies = nullptr;
  char* error = nullptr;  // malloc'd
};

// Records up to this size (with their arguments, format and strings) come from per-shard
// pools: a print then costs no malloc/free pair across threads, which is what dominates
// otherwise (the worker frees what the callers allocate).
constexpr size_t k_record_block = 1024;
constexpr uint32_t k_pool_max = 512;  // free blocks kept per shard

constexpr int k_effect_shards = 16;

// A free record block in a shard's pool.
struct pool_block {
  pool_block* next;
};

struct alignas(64) effect_shard {
  mutex m;
  effect_record* head = nullptr;  // also read without the lock as a hint
  effect_record* tail = nullptr;
  uint32_t count = 0;
  uint64_t pushed = 0;     // under m
  uint64_t completed = 0;  // atomic; advanced by the consumer after a record has run
  pool_block* pool = nullptr;  // free blocks of k_record_block bytes, under m
  uint32_t pool_count = 0;
};

// What the consumer role holds between records.
struct consumer_state {
  static constexpr size_t k_batch = 256;
  effect_record* batch[k_batch];  // taken from the shards, in run order
  size_t n = 0, next = 0;
  effect_record* done[k_batch];   // ran, not yet reported complete
  size_t done_n = 0;
  std::string out;                // output not yet written
  // Records that ran inside another record's callback (a barrier or exit there consumes):
  // reported complete only when the outer one is, so that per shard, "n complete" always
  // means "the first n complete" (what a barrier relies on).
  int depth = 0;
  uint64_t deferred[k_effect_shards] = {};
  uint64_t deferred_total = 0;
};

struct effect_queue {
  effect_shard shards[k_effect_shards];
  uint64_t last_seq = 0;       // atomic: the last ordered number given out
  uint64_t next_emit = 1;      // atomic (consumer writes): the ordered number that runs next
  uint64_t total_pushed = 0;   // atomic
  uint64_t total_completed = 0;  // atomic
  uint64_t pushed_by_callbacks = 0;  // atomic: records queued from inside a callback
  size_t pending_bytes = 0;    // atomic
  uint32_t shard_capacity = 4096;
  size_t byte_budget = size_t(256) << 20;

  mutex m;             // guards the two condition variables
  condvar wake;        // the worker waits here
  condvar progress;    // barriers and callers waiting for room wait here
  int sleeping = 0;    // atomic: the worker waits without a timeout and needs a wake-up
  int waiters = 0;     // atomic: threads waiting on `progress`

  recursive_mutex consumer;  // the consumer role
  consumer_state cs;         // the consumer role's batch and output
  int start_rr = 0;          // consumer: the shard a batch starts from (fairness)
  int64_t last_work_ns = 0;  // worker: when it last ran something

  mutex start_m;
  int worker_state = 0;  // atomic: 0 not started, 1 running, 2 could not start
  thread worker;
  int sync = 0;          // atomic: set by the exit drain; callers then run effects themselves
  // In a forked child: the parent's queue, whose records the child never runs but keeps
  // reachable (they are the parent's to free, in the parent).
  effect_queue* forked_from = nullptr;
};

inline effect_queue* g_effect_queue = nullptr;
inline thread_local bool t_effect_consumer = false;

PROBE_API void effect_queue_after_fork() noexcept;

PROBE_API effect_queue& effect_queue_ref() noexcept;

// A forked child starts with an empty queue and no worker: what was pending is the parent's
// to print (the parent still has it), and the locks may have been held by other threads.
PROBE_API void effect_queue_after_fork() noexcept;

// ---- records ----

PROBE_API effect_record* record_new(size_t extra) noexcept;

// Releases what the record owns and ends its life; the block itself is the caller's to
// return (to the pool, in batches, or to free()).
PROBE_API void record_clear(effect_record* r) noexcept;

PROBE_API void record_fail(effect_record* r, const char* why) noexcept;

PROBE_API void worker_wake(effect_queue& q) noexcept;

PROBE_API void effect_capture_done(effect_record* r) noexcept;

// Waits (bounded) for the consumer to make progress; for callers that found no room.
PROBE_API void wait_for_progress(effect_queue& q) noexcept;

// Room for `bytes` more captured bytes: the caller waits while the budget is exceeded (a
// record larger than the whole budget still goes through once the queue is empty).
PROBE_API void reserve_bytes(effect_record* r, size_t bytes) noexcept;

// Copies v into memory the record owns; *out views the copy (host, contiguous). Device copies
// may still be in flight when this returns: the record is not ready until they land.
PROBE_API bool record_capture(effect_record* r, const tensor_view& v, tensor_view* out) noexcept;

PROBE_API const char* record_copy_string(effect_record* r, const char* s, size_t n) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
