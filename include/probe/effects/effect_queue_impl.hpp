// effect_queue: definitions (see effect_queue.hpp).
#pragma once
#include "effect_queue.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API bool head_runnable(const effect_queue& q, const effect_record* h) noexcept {
  if (__atomic_load_n(&h->pending, __ATOMIC_SEQ_CST) != 0) return false;
  return !h->ordered || h->seq == __atomic_load_n(&q.next_emit, __ATOMIC_RELAXED);
}

PROBE_API size_t effect_collect(effect_queue& q, effect_record** batch, size_t limit) noexcept {
  size_t n = 0;
  for (bool more = true; more && n < limit;) {
    more = false;
    for (int k = 0; k < k_effect_shards && n < limit; ++k) {
      const int i = (q.start_rr + k) % k_effect_shards;
      effect_shard& s = q.shards[i];
      if (!__atomic_load_n(&s.head, __ATOMIC_ACQUIRE)) continue;
      lock_guard<mutex> g(s.m);
      while (n < limit && s.head && head_runnable(q, s.head)) {
        effect_record* r = s.head;
        if (r->ordered) __atomic_store_n(&q.next_emit, r->seq + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&s.head, r->next, __ATOMIC_RELEASE);
        if (!s.head) s.tail = nullptr;
        --s.count;
        batch[n++] = r;
        more = true;
      }
    }
  }
  q.start_rr = (q.start_rr + 1) % k_effect_shards;
  return n;
}

PROBE_API void effect_finish(effect_queue& q) noexcept {
  consumer_state& c = q.cs;
  effect_output_flush(c.out);
  const size_t n = c.done_n;
  // Pooled blocks go back to their shard's pool, one lock per shard and batch.
  pool_block* back[k_effect_shards] = {};
  for (size_t i = 0; i < n; ++i) {
    effect_record* r = c.done[i];
    const int shard = r->shard;
    const bool pooled = r->pooled;
    record_clear(r);
    if (pooled) back[shard] = new (static_cast<void*>(r)) pool_block{back[shard]};
    else free(static_cast<void*>(r));
    ++c.deferred[shard];
  }
  c.deferred_total += n;
  for (int k = 0; k < k_effect_shards; ++k) {
    if (!back[k]) continue;
    effect_shard& s = q.shards[k];
    lock_guard<mutex> g(s.m);
    while (back[k]) {
      pool_block* b = back[k];
      back[k] = b->next;
      if (s.pool_count < k_pool_max) {
        b->next = s.pool;
        s.pool = b;
        ++s.pool_count;
      } else {
        free(static_cast<void*>(b));
      }
    }
  }
  c.done_n = 0;
  if (c.depth > 0 || c.deferred_total == 0) return;
  for (int k = 0; k < k_effect_shards; ++k) {
    if (c.deferred[k]) __atomic_add_fetch(&q.shards[k].completed, c.deferred[k], __ATOMIC_RELEASE);
    c.deferred[k] = 0;
  }
  __atomic_add_fetch(&q.total_completed, c.deferred_total, __ATOMIC_SEQ_CST);
  c.deferred_total = 0;
  if (__atomic_load_n(&q.waiters, __ATOMIC_SEQ_CST)) {
    lock_guard<mutex> g(q.m);
    q.progress.notify_all();
  }
}

PROBE_API size_t effect_consume_batch(effect_queue& q) noexcept {
  consumer_state& c = q.cs;
  if (c.next == c.n) {
    c.n = effect_collect(q, c.batch, consumer_state::k_batch);
    c.next = 0;
    if (c.n == 0) return 0;
  }
  size_t ran = 0;
  while (c.next < c.n) {
    effect_record* r = c.batch[c.next++];
    ++c.depth;
    effect_run(r, c.out);
    --c.depth;
    c.done[c.done_n++] = r;
    ++ran;
  }
  effect_finish(q);
  return ran;
}

PROBE_API size_t effect_consume_available(effect_queue& q) noexcept {
  lock_guard<recursive_mutex> g(q.consumer);
  const bool was = t_effect_consumer;
  t_effect_consumer = true;
  size_t total = 0;
  while (size_t n = effect_consume_batch(q)) total += n;
  t_effect_consumer = was;
  return total;
}

PROBE_API bool effect_any_runnable(effect_queue& q) noexcept {
  for (effect_shard& s : q.shards) {
    lock_guard<mutex> g(s.m);
    if (s.head && head_runnable(q, s.head)) return true;
  }
  return false;
}

PROBE_API void* effect_worker_main(void* arg) noexcept {
  effect_queue& q = *static_cast<effect_queue*>(arg);
  become_background_thread("probe-effects");
  constexpr int64_t k_idle_ns = 20 * 1000000;  // busy for this long after the last work
  for (;;) {
    if (effect_consume_available(q)) {
      q.last_work_ns = mono_ns();
      continue;
    }
    lock_guard<mutex> g(q.m);
    if (mono_ns() - q.last_work_ns > k_idle_ns) {
      __atomic_store_n(&q.sleeping, 1, __ATOMIC_SEQ_CST);
      if (!effect_any_runnable(q)) q.wake.wait(q.m);
      __atomic_store_n(&q.sleeping, 0, __ATOMIC_SEQ_CST);
    } else {
      q.wake.wait_for_ms(q.m, 1);
    }
  }
  return nullptr;
}

PROBE_API bool effect_worker_running(effect_queue& q) noexcept {
  const int state = __atomic_load_n(&q.worker_state, __ATOMIC_ACQUIRE);
  if (PROBE_LIKELY(state == 1)) return true;
  if (state == 2) return false;
  lock_guard<mutex> g(q.start_m);
  if (q.worker_state == 0) {
    q.last_work_ns = mono_ns();
    const bool ok = q.worker.start(&effect_worker_main, &q);
    if (!ok) log("cannot start the print/callback worker thread; effects run on the calling thread");
    __atomic_store_n(&q.worker_state, ok ? 1 : 2, __ATOMIC_RELEASE);
  }
  return q.worker_state == 1;
}

PROBE_API void effect_push(effect_record* r) noexcept {
  effect_queue& q = effect_queue_ref();
  const bool sync = __atomic_load_n(&q.sync, __ATOMIC_ACQUIRE) || !effect_worker_running(q);
  effect_shard& s = q.shards[thread_index() % k_effect_shards];
  bool ready;
  for (;;) {
    s.m.lock();
    if (s.count < q.shard_capacity || t_effect_consumer || sync) break;
    s.m.unlock();
    wait_for_progress(q);
  }
  if (r->ordered) r->seq = __atomic_add_fetch(&q.last_seq, 1, __ATOMIC_RELAXED);
  if (s.tail) s.tail->next = r;
  else __atomic_store_n(&s.head, r, __ATOMIC_RELEASE);
  s.tail = r;
  ++s.count;
  ++s.pushed;
  __atomic_add_fetch(&q.total_pushed, 1, __ATOMIC_SEQ_CST);
  if (t_effect_consumer) __atomic_add_fetch(&q.pushed_by_callbacks, 1, __ATOMIC_SEQ_CST);
  ready = __atomic_sub_fetch(&r->pending, 1, __ATOMIC_SEQ_CST) == 0;
  s.m.unlock();
  if (sync) {
    if (!t_effect_consumer) effect_drain_here(q, 10000);
    return;
  }
  if (ready && __atomic_load_n(&q.sleeping, __ATOMIC_SEQ_CST)) worker_wake(q);
}

PROBE_API uint64_t effect_drain_here(effect_queue& q, long timeout_ms) noexcept {
  const int64_t deadline = mono_ns() + int64_t(timeout_ms) * 1000000;
  for (;;) {
    effect_consume_available(q);
    const uint64_t left = __atomic_load_n(&q.total_pushed, __ATOMIC_SEQ_CST) -
                          __atomic_load_n(&q.total_completed, __ATOMIC_SEQ_CST);
    if (left == 0 || t_effect_consumer || mono_ns() > deadline) return left;
    lock_guard<mutex> g(q.m);
    q.progress.wait_for_ms(q.m, 1);
  }
}

PROBE_API void effects_barrier_impl() noexcept {
  effect_queue& q = effect_queue_ref();
  if (__atomic_load_n(&q.total_pushed, __ATOMIC_SEQ_CST) == __atomic_load_n(&q.total_completed, __ATOMIC_SEQ_CST))
    return;
  if (t_effect_consumer) {
    effect_consume_available(q);  // a callback cannot wait for itself: run what is queued
    return;
  }
  if (__atomic_load_n(&q.sync, __ATOMIC_ACQUIRE) || !effect_worker_running(q)) {
    effect_drain_here(q, 1L << 30);
    return;
  }
  // What callbacks queue while they run belongs to them: when some did so during the wait,
  // wait again for what is queued now.
  for (;;) {
    const uint64_t from_callbacks = __atomic_load_n(&q.pushed_by_callbacks, __ATOMIC_SEQ_CST);
    uint64_t target[k_effect_shards];
    for (int i = 0; i < k_effect_shards; ++i) {
      lock_guard<mutex> g(q.shards[i].m);
      target[i] = q.shards[i].pushed;
    }
    worker_wake(q);
    {
      lock_guard<mutex> g(q.m);
      __atomic_add_fetch(&q.waiters, 1, __ATOMIC_SEQ_CST);
      for (int i = 0; i < k_effect_shards; ++i)
        while (__atomic_load_n(&q.shards[i].completed, __ATOMIC_ACQUIRE) < target[i]) q.progress.wait_for_ms(q.m, 50);
      __atomic_sub_fetch(&q.waiters, 1, __ATOMIC_SEQ_CST);
    }
    if (__atomic_load_n(&q.pushed_by_callbacks, __ATOMIC_SEQ_CST) == from_callbacks) return;
  }
}

PROBE_API void effects_exit_drain() noexcept {
  effect_queue* q = __atomic_load_n(&g_effect_queue, __ATOMIC_ACQUIRE);
  if (!q) return;
  __atomic_store_n(&q->sync, 1, __ATOMIC_RELEASE);
  const uint64_t left = effect_drain_here(*q, 10000);
  if (left && !t_effect_consumer)
    log("%llu pending prints/callbacks were still waiting for device copies at exit and are lost",
        static_cast<unsigned long long>(left));
}

}  // namespace detail
PROBE_END_NAMESPACE
