// The queue behind probe::print and probe::callback: records captured on the caller's thread,
// run in order on one worker thread. Internal header.
//
// Callers push into one of several shards (by thread), so threads rarely contend for a lock.
// Each shard is a FIFO: records from one thread run in that thread's order. Ordered records
// also take a number from one global counter while their shard's lock is held, so within a
// shard their numbers grow; the consumer runs an ordered record only when its number is the
// next one, which is always at the head of some shard (everything before it in its shard
// has run or can run). A record is ready when its captures have landed (device copies may
// land later); a record that is not ready holds back its shard.
//
// The consumer role (one thread at a time) belongs to the worker thread, or to the thread
// that drains at exit, or to any caller once the exit drain has run (synchronous mode).
// The worker sleeps without a timeout only after it has been idle for a while; only then
// do callers pay for a wake-up, so a burst of prints costs the caller no system call.
#pragma once
#include <pthread.h>
#include <stdlib.h>

#include <string>

#include "../util/log.hpp"
#include "../util/background_thread.hpp"
#include "../util/sync.hpp"
#include "effect_records.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// ---- consuming ----

// Runs one record: defined with the effects (effects/print_impl.hpp). Output goes to `out`,
// which the consumer writes before it reports progress.
PROBE_API void effect_run(effect_record* r, std::string& out) noexcept;
PROBE_API void effect_output_flush(std::string& out) noexcept;

PROBE_API bool head_runnable(const effect_queue& q, const effect_record* h) noexcept;

// Takes up to `limit` runnable records, in the order they must run.
PROBE_API size_t effect_collect(effect_queue& q, effect_record** batch, size_t limit) noexcept;

// Finishes what has run: writes its output, then reports it complete (a barrier that sees it
// complete sees its output written).
PROBE_API void effect_finish(effect_queue& q) noexcept;

// Runs one batch; the caller holds the consumer role. A callback that waits for effects (a
// barrier, or exit) consumes from inside this loop: it continues the same batch, so the
// order holds, and the record it runs from is completed only when it returns.
PROBE_API size_t effect_consume_batch(effect_queue& q) noexcept;

// Runs batches on this thread as the consumer until nothing is runnable. Returns how many ran.
PROBE_API size_t effect_consume_available(effect_queue& q) noexcept;

// Whether anything can run now (the worker checks before it sleeps).
PROBE_API bool effect_any_runnable(effect_queue& q) noexcept;

PROBE_API void* effect_worker_main(void* arg) noexcept;

// Starts the worker on first use; false when it cannot run (effects then run on the caller).
PROBE_API bool effect_worker_running(effect_queue& q) noexcept;

// ---- producing ----

PROBE_API uint64_t effect_drain_here(effect_queue& q, long timeout_ms) noexcept;

// Queues a captured record (the caller's reference is dropped here). Waits for room when the
// caller's shard is full, except on the consumer thread, which never waits for itself.
PROBE_API void effect_push(effect_record* r) noexcept;

// ---- waiting ----

// Runs everything queued on this thread, waiting for device copies still in flight, until
// the queue is empty or `timeout_ms` has passed. Returns how many records were left.
PROBE_API uint64_t effect_drain_here(effect_queue& q, long timeout_ms) noexcept;

PROBE_API void effects_barrier_impl() noexcept;

// At exit: from now on callers run their effects themselves, and this thread runs what is
// queued (never waiting on the worker, which may not get to run again).
PROBE_API void effects_exit_drain() noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
