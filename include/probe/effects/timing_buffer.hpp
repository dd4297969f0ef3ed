// Per-thread timing event buffers: the recording fast path. Light header.
//
// Each thread writes into its own chunk of fixed-size events with no lock and no atomic
// read-modify-write: the owner stores the event, then publishes the new count with a release
// store that a reader on another thread pairs with an acquire load. A full chunk goes to a
// lock-free list that the aggregator drains off the hot path (timing_buffer_impl.hpp).
#pragma once
#include <stdint.h>

#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum event_kind : uint32_t {
  event_scope = 1,   // what: const scope_site*
  event_timer = 2,   // what: const interned_name* (a named probe::timer)
  event_op = 3,      // what: op_detail* (owned by the event; freed once aggregated)
  event_metric = 4,  // what: const interned_name*; end holds the value's bits
  event_op_name = 5, // what: const interned_name* (an op timed for the summary only: no trace args)
};

// 24 bytes: the memory one recorded event costs. The kind rides in the low bits of the
// pointer (everything events point to is 8-byte aligned).
struct timing_event {
  uint64_t begin;  // ticks
  uint64_t end;    // ticks (a metric's value for event_metric)
  uintptr_t tagged;
  uint32_t kind() const noexcept { return static_cast<uint32_t>(tagged & 7u); }
  const void* what() const noexcept { return reinterpret_cast<const void*>(tagged & ~static_cast<uintptr_t>(7)); }
};

struct thread_buffer;  // timing_buffer_impl.hpp

constexpr uint32_t k_chunk_events = 1024;  // 24 KiB of events per chunk

struct event_chunk {
  uint32_t count;  // events written; stored by the owner thread only (release)
  uint32_t limit;  // capacity: k_chunk_events, 0 for the placeholder
  uint32_t taken;  // events the aggregator already consumed; touched by it only
  uint32_t pad;
  thread_buffer* owner;
  event_chunk* next;  // in the list of full chunks
  timing_event events[k_chunk_events];
};

#if !defined(PROBE_DISABLE)
// A zero-capacity placeholder (all zero bytes, so it costs no file space): a thread's first
// event takes the slow path, which registers the thread.
inline event_chunk g_no_chunk{};
inline thread_local event_chunk* t_chunk = &g_no_chunk;

// Hands the full chunk over and returns a fresh one (nullptr: drop this event).
PROBE_API event_chunk* chunk_refill() noexcept;

// False when the event was dropped (out of memory).
PROBE_ALWAYS_INLINE bool record_event(uint64_t begin, uint64_t end, const void* what,
                                      uint32_t kind) noexcept {
  event_chunk* c = t_chunk;
  uint32_t n = __atomic_load_n(&c->count, __ATOMIC_RELAXED);
  if (PROBE_UNLIKELY(n == c->limit)) {
    c = chunk_refill();
    if (!c) return false;
    n = 0;
  }
  timing_event& e = c->events[n];
  e.begin = begin;
  e.end = end;
  e.tagged = reinterpret_cast<uintptr_t>(what) | kind;
  __atomic_store_n(&c->count, n + 1, __ATOMIC_RELEASE);
  return true;
}
#endif  // !PROBE_DISABLE

}  // namespace detail
PROBE_END_NAMESPACE
