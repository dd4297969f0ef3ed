// Per-thread timing buffers: thread registration, chunk hand-over, and draining them off the
// hot path. Internal header.
//
// Ownership: a thread owns its current chunk and only ever appends to it. A full chunk is
// pushed on a lock-free stack; from then on only the aggregator (one at a time, under its own
// lock) reads and frees it. The aggregator may also read the events already published in a
// thread's current chunk (count is stored with release), and remembers how far it got in
// `taken`. Threads are never forgotten: a thread that exits hands its last chunk over first,
// so none of its events is lost, and its name stays known for the trace.
#pragma once
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <new>

#include "../util/sync.hpp"
#include "../util/thread_id.hpp"
#include "timing_buffer.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct thread_buffer {
  event_chunk* current = nullptr;  // atomic: stored by the owner, loaded by the aggregator
  thread_buffer* next = nullptr;   // registry list, immutable once published
  uint32_t index = 0;              // detail::thread_index()
  long tid = 0;                    // OS thread id (what the trace shows)
  bool exited = false;             // atomic
  char name[64] = {};              // guarded by the registry mutex
};

struct buffer_registry {
  mutex m;                           // registration and thread names
  thread_buffer* threads = nullptr;  // atomic head; newest first
  event_chunk* full = nullptr;       // atomic head of the lock-free stack of full chunks
  uint32_t full_count = 0;           // atomic: chunks on that stack
  int64_t chunks_live = 0;           // atomic: allocated chunks (memory in use)
  int64_t chunks_peak = 0;           // atomic
  uint64_t dropped = 0;              // atomic: events lost to out-of-memory
  mutex spare_m;                     // recycled chunks: their pages are already mapped
  event_chunk* spare = nullptr;
  uint32_t spare_count = 0;
};
constexpr uint32_t k_spare_chunks = 128;  // up to 3 MiB kept for reuse
PROBE_API buffer_registry& registry() noexcept;

inline thread_local thread_buffer* t_buffer = nullptr;
inline thread_local bool t_exit_hook_ran = false;

// Called by the buffers when `full_count` chunks wait (timing_impl.hpp decides what to do).
PROBE_API void timing_on_backlog(uint32_t full_count) noexcept;
constexpr uint32_t k_backlog_notify = 16;  // 384 KiB of events

PROBE_API void read_thread_name(thread_buffer* b) noexcept;

PROBE_API void push_full_chunk(event_chunk* c) noexcept;

PROBE_API event_chunk* new_chunk(thread_buffer* owner) noexcept;

PROBE_API void free_chunk(event_chunk* c) noexcept;

PROBE_API void thread_exiting() noexcept;

// Runs thread_exiting when the thread ends (thread_local destructors run before the thread's
// storage goes away, and for the main thread at exit, before atexit handlers).
struct thread_exit_hook {
  bool armed = false;
  ~thread_exit_hook() {
    if (armed) thread_exiting();
  }
};

PROBE_API thread_buffer* register_thread() noexcept;

PROBE_API event_chunk* chunk_refill() noexcept;

PROBE_API void thread_exiting() noexcept;

// The aggregator's side. The caller serializes calls (timing_impl.hpp's aggregator lock).
// sink(const thread_buffer&, const timing_event* e, uint32_t n) is given the n events from e
// on, in order; it consumes e[0] and as many of the following as it likes (a run of one
// scope's events at once), and returns how many (>= 1). Every event is consumed exactly once.
template <class F>
struct each_event {  // a sink that takes one event at a time: f(thread_buffer, timing_event)
  F f;
  uint32_t operator()(const thread_buffer& b, const timing_event* e, uint32_t) {
    f(b, *e);
    return 1;
  }
};
template <class F>
each_event<F> one_at_a_time(F f) {
  return each_event<F>{f};
}

// Full chunks, oldest first; each is freed after its events are consumed.
template <class Sink>
void drain_full_chunks(Sink&& sink) {
  buffer_registry& reg = registry();
  event_chunk* list = __atomic_exchange_n(&reg.full, static_cast<event_chunk*>(nullptr), __ATOMIC_ACQUIRE);
  event_chunk* fifo = nullptr;
  uint32_t n = 0;
  while (list) {  // the stack is newest first
    event_chunk* next = list->next;
    list->next = fifo;
    fifo = list;
    list = next;
    ++n;
  }
  __atomic_sub_fetch(&reg.full_count, n, __ATOMIC_RELAXED);
  while (fifo) {
    event_chunk* next = fifo->next;
    const uint32_t count = __atomic_load_n(&fifo->count, __ATOMIC_ACQUIRE);
    for (uint32_t i = fifo->taken; i < count;) i += sink(*fifo->owner, fifo->events + i, count - i);
    free_chunk(fifo);
    fifo = next;
  }
}

// Events already published in every thread's current chunk.
template <class Sink>
void drain_current_chunks(Sink&& sink) {
  for (thread_buffer* b = __atomic_load_n(&registry().threads, __ATOMIC_ACQUIRE); b; b = b->next) {
    event_chunk* c = __atomic_load_n(&b->current, __ATOMIC_ACQUIRE);
    if (!c) continue;
    const uint32_t count = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
    for (uint32_t i = c->taken; i < count;) i += sink(*b, c->events + i, count - i);
    c->taken = count;
  }
}

// The calling thread's name may have changed since it registered.
PROBE_API void refresh_own_thread_name() noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
