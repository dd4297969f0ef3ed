// effect_records: definitions (see effect_records.hpp).
#pragma once
#include "effect_records.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API effect_queue& effect_queue_ref() noexcept {
  effect_queue* q = __atomic_load_n(&g_effect_queue, __ATOMIC_ACQUIRE);
  if (PROBE_LIKELY(q != nullptr)) return *q;
  static fork_safe_mutex m;
  lock_guard<fork_safe_mutex> g(m);
  if (!g_effect_queue) {
    // Never destroyed: prints may come from atexit handlers and other threads during exit.
    __atomic_store_n(&g_effect_queue, new effect_queue(), __ATOMIC_RELEASE);
    pthread_atfork(nullptr, nullptr, [] { effect_queue_after_fork(); });
  }
  return *g_effect_queue;
}

PROBE_API void effect_queue_after_fork() noexcept {
  effect_queue* fresh = new (std::nothrow) effect_queue();
  if (fresh) {
    fresh->forked_from = g_effect_queue;
    __atomic_store_n(&g_effect_queue, fresh, __ATOMIC_RELEASE);
  }
  t_effect_consumer = false;
}

PROBE_API effect_record* record_new(size_t extra) noexcept {
  effect_queue& q = effect_queue_ref();
  const uint8_t shard = static_cast<uint8_t>(thread_index() % k_effect_shards);
  void* p = nullptr;
  const bool small = sizeof(effect_record) + extra <= k_record_block;
  if (small) {
    effect_shard& s = q.shards[shard];
    lock_guard<mutex> g(s.m);
    if (s.pool) {
      pool_block* b = s.pool;
      s.pool = b->next;
      --s.pool_count;
      b->~pool_block();
      p = b;
    }
  }
  if (!p) p = malloc(small ? k_record_block : sizeof(effect_record) + extra);
  if (!p) return nullptr;
  effect_record* r = new (p) effect_record();
  r->pooled = small;
  r->shard = shard;
  return r;
}

PROBE_API void record_clear(effect_record* r) noexcept {
  if (r->task) delete r->task;
  for (owned_copy* c = r->copies; c;) {
    owned_copy* next = c->next;
    if (c->exec) c->exec->release(c->data);
    else free(c->data);
    free(c);
    c = next;
  }
  free(r->error);
  if (r->bytes) __atomic_sub_fetch(&effect_queue_ref().pending_bytes, r->bytes, __ATOMIC_RELAXED);
  r->~effect_record();
}

PROBE_API void record_fail(effect_record* r, const char* why) noexcept {
  if (r->failed) return;
  r->failed = true;
  r->error = strdup(why ? why : "");
}

PROBE_API void worker_wake(effect_queue& q) noexcept {
  lock_guard<mutex> g(q.m);
  q.wake.notify_one();
}

PROBE_API void effect_capture_done(effect_record* r) noexcept {
  effect_queue& q = effect_queue_ref();
  if (__atomic_sub_fetch(&r->pending, 1, __ATOMIC_SEQ_CST) == 0 && __atomic_load_n(&q.sleeping, __ATOMIC_SEQ_CST))
    worker_wake(q);
}

PROBE_API void wait_for_progress(effect_queue& q) noexcept {
  worker_wake(q);
  lock_guard<mutex> g(q.m);
  __atomic_add_fetch(&q.waiters, 1, __ATOMIC_SEQ_CST);
  q.progress.wait_for_ms(q.m, 10);
  __atomic_sub_fetch(&q.waiters, 1, __ATOMIC_SEQ_CST);
}

PROBE_API void reserve_bytes(effect_record* r, size_t bytes) noexcept {
  effect_queue& q = effect_queue_ref();
  while (!t_effect_consumer && !__atomic_load_n(&q.sync, __ATOMIC_ACQUIRE)) {
    const size_t used = __atomic_load_n(&q.pending_bytes, __ATOMIC_RELAXED);
    if (used == 0 || used + bytes <= q.byte_budget) break;
    wait_for_progress(q);
  }
  __atomic_add_fetch(&q.pending_bytes, bytes, __ATOMIC_RELAXED);
  r->bytes += bytes;
}

PROBE_API bool record_capture(effect_record* r, const tensor_view& given, tensor_view* out) noexcept {
  tensor gathered;  // a batch_view's samples, read here; the capture below copies them
  tensor_view v = given;
  if (given.batch) {
    std::string why;
    try {
      if (!read_tensor(given, &gathered, &why)) {
        record_fail(r, why.c_str());
        return false;
      }
    } catch (...) {
      record_fail(r, "out of memory gathering a batch_view");
      return false;
    }
    v = gathered.view();
  }
  *out = v;
  if (!v.valid() || (v.numel() > 0 && !v.data)) {
    // Formats as "<invalid tensor>" or "<... with no data>"; nothing to copy. Said once, as
    // every reader of a view says what is wrong with it.
    static int said = 0;
    try {
      log_once(&said, "probe::print / probe::callback: a tensor argument: %s", view_problem_text(v).c_str());
    } catch (...) {
    }
    return true;
  }
  owned_copy* c = static_cast<owned_copy*>(malloc(sizeof(owned_copy)));
  if (!c) {
    record_fail(r, "out of memory copying a tensor");
    return false;
  }
  reserve_bytes(r, v.nbytes());
  capture_executor& e = executor_for(v);
  void* host = nullptr;
  std::string err;
  __atomic_add_fetch(&r->pending, 1, __ATOMIC_SEQ_CST);
  const capture_status s = e.capture(v, &host, r, &err);
  if (s != capture_status::pending) __atomic_sub_fetch(&r->pending, 1, __ATOMIC_SEQ_CST);
  if (s == capture_status::failed) {
    free(c);
    record_fail(r, err.empty() ? "cannot copy a tensor" : err.c_str());
    return false;
  }
  *c = owned_copy{r->copies, host, &e};
  r->copies = c;
  *out = view_raw(host, v.type, dims(v.shape, static_cast<size_t>(v.ndim)));
  return true;
}

PROBE_API const char* record_copy_string(effect_record* r, const char* s, size_t n) noexcept {
  owned_copy* c = static_cast<owned_copy*>(malloc(sizeof(owned_copy)));
  char* p = static_cast<char*>(malloc(n + 1));
  if (!c || !p) {
    free(c);
    free(p);
    record_fail(r, "out of memory copying a string");
    return "";
  }
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  *c = owned_copy{r->copies, p, nullptr};
  r->copies = c;
  return p;
}

}  // namespace detail
PROBE_END_NAMESPACE
