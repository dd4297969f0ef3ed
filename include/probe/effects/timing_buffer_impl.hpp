// timing_buffer: definitions (see timing_buffer_source.hpp).
#pragma once
#include "../util/immortal.hpp"
#include "timing_buffer_source.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API buffer_registry& registry() noexcept {
  static immortal<buffer_registry> r;  // never destroyed: threads outlive main
  return r.get();
}

PROBE_API void read_thread_name(thread_buffer* b) noexcept {
  char name[64] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof name) != 0) name[0] = '\0';
  buffer_registry& reg = registry();
  lock_guard<mutex> g(reg.m);
  memcpy(b->name, name, sizeof name);
}

PROBE_API void push_full_chunk(event_chunk* c) noexcept {
  buffer_registry& reg = registry();
  event_chunk* head = __atomic_load_n(&reg.full, __ATOMIC_RELAXED);
  do {
    c->next = head;
  } while (!__atomic_compare_exchange_n(&reg.full, &head, c, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  const uint32_t n = __atomic_add_fetch(&reg.full_count, 1, __ATOMIC_RELAXED);
  if (n >= k_backlog_notify) timing_on_backlog(n);
}

PROBE_API event_chunk* new_chunk(thread_buffer* owner) noexcept {
  buffer_registry& reg = registry();
  event_chunk* c = nullptr;
  {
    lock_guard<mutex> g(reg.spare_m);
    if ((c = reg.spare) != nullptr) {
      reg.spare = c->next;
      --reg.spare_count;
    }
  }
  if (!c) c = static_cast<event_chunk*>(malloc(sizeof(event_chunk)));
  if (!c) return nullptr;
  c->count = 0;
  c->limit = k_chunk_events;
  c->taken = 0;
  c->pad = 0;
  c->owner = owner;
  c->next = nullptr;
  const int64_t live = __atomic_add_fetch(&reg.chunks_live, 1, __ATOMIC_RELAXED);
  int64_t peak = __atomic_load_n(&reg.chunks_peak, __ATOMIC_RELAXED);
  while (live > peak &&
         !__atomic_compare_exchange_n(&reg.chunks_peak, &peak, live, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return c;
}

PROBE_API void free_chunk(event_chunk* c) noexcept {
  buffer_registry& reg = registry();
  __atomic_sub_fetch(&reg.chunks_live, 1, __ATOMIC_RELAXED);
  {
    lock_guard<mutex> g(reg.spare_m);
    if (reg.spare_count < k_spare_chunks) {
      c->next = reg.spare;
      reg.spare = c;
      ++reg.spare_count;
      return;
    }
  }
  free(c);
}

PROBE_API thread_buffer* register_thread() noexcept {
  auto* b = new (std::nothrow) thread_buffer();
  if (!b) return nullptr;
  b->index = thread_index();
  b->tid = os_thread_id();
  read_thread_name(b);
  buffer_registry& reg = registry();
  {
    lock_guard<mutex> g(reg.m);
    b->next = reg.threads;
    __atomic_store_n(&reg.threads, b, __ATOMIC_RELEASE);
  }
  t_buffer = b;
  // A thread that records again while its thread_local objects are being destroyed gets a
  // buffer without a hook: the aggregator still reads its current chunk at every drain.
  if (!t_exit_hook_ran) {
    static thread_local thread_exit_hook hook;
    hook.armed = true;
  }
  return b;
}

PROBE_API event_chunk* chunk_refill() noexcept {
  thread_buffer* b = t_buffer;
  if (!b && !(b = register_thread())) {
    __atomic_add_fetch(&registry().dropped, 1, __ATOMIC_RELAXED);
    return nullptr;
  }
  event_chunk* old = t_chunk;
  event_chunk* c = new_chunk(b);
  if (!c) {
    __atomic_add_fetch(&registry().dropped, 1, __ATOMIC_RELAXED);
    return nullptr;
  }
  // Publish the new chunk before handing the old one over: once the aggregator can see the
  // old chunk on the full stack, no thread_buffer points at it any more.
  __atomic_store_n(&b->current, c, __ATOMIC_RELEASE);
  t_chunk = c;
  if (old != &g_no_chunk && old->owner == b) push_full_chunk(old);
  return c;
}

PROBE_API void thread_exiting() noexcept {
  t_exit_hook_ran = true;
  thread_buffer* b = t_buffer;
  if (!b) return;
  read_thread_name(b);
  event_chunk* c = t_chunk;
  t_chunk = &g_no_chunk;
  t_buffer = nullptr;
  __atomic_store_n(&b->current, static_cast<event_chunk*>(nullptr), __ATOMIC_RELEASE);
  __atomic_store_n(&b->exited, true, __ATOMIC_RELEASE);
  if (c != &g_no_chunk) push_full_chunk(c);
}

PROBE_API void refresh_own_thread_name() noexcept {
  if (t_buffer) read_thread_name(t_buffer);
}

}  // namespace detail
PROBE_END_NAMESPACE
