// timing: definitions (see timing_control.hpp).
#pragma once
#include <unistd.h>

#include "../util/immortal.hpp"
#include "../util/background_thread.hpp"
#include "timing_control.hpp"
#include "timing_ranks_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API timing_state& timing() noexcept {
  static immortal<timing_state> s;  // never destroyed: used at exit
  return s.get();
}

PROBE_API const interned_name* intern_name(const char* text) {
  timing_state& s = timing();
  lock_guard<mutex> g(s.names_m);
  const std::string key = text ? text : "";
  uint64_t& slot = s.names[key];
  if (slot) return reinterpret_cast<const interned_name*>(static_cast<uintptr_t>(slot));
  auto* n = new interned_name();
  n->text = key;
  slot = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(n));
  return n;
}

PROBE_API void drain_all_locked(timing_state& s, bool final_flush) {
  auto sink = [&](const thread_buffer& b, const timing_event* e, uint32_t n) { return s.agg.consume_run(b, e, n); };
  s.agg.refresh_modules();
  drain_full_chunks(sink);
  drain_current_chunks(sink);
  if (device_timing* d = installed_device_timing())
    d->collect(final_flush, [](void* agg, const gpu_op_timing& t) { static_cast<timing_aggregator*>(agg)->consume_gpu(t); },
               &s.agg);
}

PROBE_API void* timing_writer_main(void*) {
  become_background_thread("probe-timing");
  timing_state& s = timing();
  for (;;) {
    {
      lock_guard<mutex> g(s.writer_m);
      while (!s.writer_wake && !s.writer_stop) s.writer_cv.wait(s.writer_m);
      if (s.writer_stop) return nullptr;
      s.writer_wake = false;
    }
    try {
      lock_guard<mutex> g(s.agg_m);
      if (s.finished) return nullptr;
      s.agg.refresh_modules();
      drain_full_chunks([&](const thread_buffer& b, const timing_event* e, uint32_t n) { return s.agg.consume_run(b, e, n); });
    } catch (...) {
    }
  }
}

PROBE_API void timing_on_backlog(uint32_t full_count) noexcept {
  timing_state& s = timing();
  if (full_count >= k_backlog_block) {
    // The writer falls behind: this thread drains, so memory stays bounded. After the exit
    // flush (static destructors still timing scopes) the events only get freed.
    try {
      lock_guard<mutex> g(s.agg_m);
      if (s.finished)
        drain_full_chunks(one_at_a_time([](const thread_buffer&, const timing_event& e) {
          if (e.kind() == event_op) delete static_cast<const op_detail*>(e.what());
        }));
      else {
        s.agg.refresh_modules();
        drain_full_chunks([&](const thread_buffer& b, const timing_event* e, uint32_t n) { return s.agg.consume_run(b, e, n); });
      }
    } catch (...) {
    }
    return;
  }
  if (full_count % k_backlog_notify != 0) return;
  lock_guard<mutex> g(s.writer_m);
  if (s.writer_stop) return;
  if (!s.writer_started) {
    pthread_t t;
    if (pthread_create(&t, nullptr, &timing_writer_main, nullptr) != 0) return;  // drained at flush
    pthread_detach(t);
    s.writer_started = true;
  }
  s.writer_wake = true;
  s.writer_cv.notify_one();
}

PROBE_API op_timer& op_timing_listener() noexcept {
  static immortal<op_timer> l;
  return l.get();
}

PROBE_API std::string absolute_path(const char* path) {
  if (!path || !*path || path[0] == '/') return path ? path : "";
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return path;
  return std::string(cwd) + "/" + path;
}

PROBE_API int timing_apply_options(const options& o, op_listener** list, int n, int capacity) noexcept {
  timing_state& s = timing();
  try {
    // Asked for even with timing off: a probe::timer reads the clock too.
    clock_request(o.timing_clock);
    if (o.timing) clock_init();
    lock_guard<mutex> g(s.agg_m);
    s.summary_at_exit = o.timing_summary;
    if (o.timing && !s.ever_on) {
      timing_watch_fork();
      s.start_ticks = clock_now();
      __atomic_store_n(&s.ever_on, true, __ATOMIC_RELEASE);
    }
    const std::string path = rank_trace_part(absolute_path(o.trace_to));  // under MPI: this rank's part
    if (path != s.agg.trace_path()) {
      // The old trace gets everything recorded up to now, then is completed.
      if (s.agg.tracing()) {
        drain_all_locked(s, false);
        s.agg.publish_trace(true);
      }
      s.agg.set_trace(path, o.trace_max_events);
    } else {
      s.agg.set_trace(path, o.trace_max_events);
    }
    __atomic_store_n(&s.trace_ops, !path.empty(), __ATOMIC_RELAXED);
  } catch (...) {
    log("timing: out of memory while applying options");
  }
  if (o.timing && n < capacity) {
    list[n++] = &op_timing_listener();
    device_timing* d = installed_device_timing();
    op_listener* device_listener = d && n < capacity ? d->listener() : nullptr;
    if (device_listener) list[n++] = device_listener;
  }
  return n;
}

PROBE_API void timing_flush(bool at_exit) noexcept {
  timing_state& s = timing();
  if (!__atomic_load_n(&s.ever_on, __ATOMIC_ACQUIRE)) return;
  try {
    refresh_own_thread_name();
    bool summary = false;
    {
      lock_guard<mutex> g(s.agg_m);
      if (s.finished) return;
      drain_all_locked(s, at_exit);
      s.agg.publish_trace(at_exit);
      if (at_exit) {
        s.finished = true;
        summary = s.summary_at_exit;
      }
    }
    if (at_exit) {
      lock_guard<mutex> g(s.writer_m);
      s.writer_stop = true;
      s.writer_cv.notify_all();
    }
    if (at_exit) rank_trace_finish();  // under MPI: the last rank merges the parts
    if (summary) {
      fflush(stdout);
      write_timing_summary(stderr);
    }
  } catch (...) {
  }
}

PROBE_API void timer_record(const char* name, const void** interned, uint64_t begin, uint64_t end) noexcept {
  try {
    if (!*interned) *interned = intern_name(name);
    record_event(begin, end, *interned, event_timer);
  } catch (...) {
  }
}

PROBE_API void timer_end(const char* name, const void** interned, uint64_t begin) noexcept {
  const uint64_t end = clock_now();
  if (gate_on(gate_timing)) timer_record(name, interned, begin, end);
}

PROBE_API void timing_reset() noexcept {
  timing_state& s = timing();
  try {
    lock_guard<mutex> g(s.agg_m);
    auto discard = one_at_a_time([](const thread_buffer&, const timing_event& e) {
      if (e.kind() == event_op) delete static_cast<const op_detail*>(e.what());
    });
    drain_full_chunks(discard);
    drain_current_chunks(discard);
    if (device_timing* d = installed_device_timing()) d->collect(false, [](void*, const gpu_op_timing&) {}, nullptr);
    s.agg.clear_stats();
    s.start_ticks = clock_now();
  } catch (...) {
  }
}

PROBE_API bool timing_lookup(const char* name, char kind, uint64_t* count, double* total_ns) noexcept {
  timing_state& s = timing();
  try {
    lock_guard<mutex> g(s.agg_m);
    drain_all_locked(s, false);
    return s.agg.lookup(name, kind, count, total_ns);
  } catch (...) {
    return false;
  }
}

PROBE_API unsigned char scope_enter_slow(const scope_site* site, uint64_t* begin) noexcept {
  return scope_enter(site, begin) ? k_scope_timed_slow : 0;
}

PROBE_API void scope_leave_slow(const scope_site* site, uint64_t begin) noexcept { scope_leave(site, begin); }

PROBE_API void scope_unlink(const scope_link* link) noexcept {
  for (const scope_link* l = t_scope; l; l = l->parent)
    if (l->parent == link) {
      const_cast<scope_link*>(l)->parent = link->parent;
      return;
    }
}

}  // namespace detail

PROBE_API void metric(const char* name, double value) noexcept {
  try {
    std::string line;
    // Under MPI every rank prints its own line: "[rank 3] MLUPS: 577.3" tells them apart
    // (docs/mpi.md: probe regress --pattern picks one rank).
    static const detail::rank_info ri = detail::detect_rank();
    if (ri.rank >= 0 && ri.world > 1) line = "[rank " + std::to_string(ri.rank) + "] ";
    for (const char* p = name ? name : ""; *p; ++p) {
      const unsigned char c = static_cast<unsigned char>(*p);
      line += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
    }
    char num[40];
    detail::write_compact(num, value);
    line += ": ";
    line += num;
    line += '\n';
    fwrite(line.data(), 1, line.size(), stdout);
    fflush(stdout);
    if (detail::gate_on(detail::gate_timing)) {
      uint64_t bits;
      memcpy(&bits, &value, sizeof bits);
      detail::record_event(detail::clock_now(), bits, detail::intern_name(name), detail::event_metric);
    }
  } catch (...) {
  }
}

PROBE_API void write_timing_summary(FILE* out) noexcept {
  if (!out) return;
  detail::timing_state& s = detail::timing();
  try {
    detail::lock_guard<detail::mutex> g(s.agg_m);
    detail::drain_all_locked(s, false);
    detail::ptr_list<detail::summary_row> rows;
    detail::ptr_list<detail::summary_metric> metrics;
    s.agg.summary_rows(rows, metrics);
    const bool ever = __atomic_load_n(&s.ever_on, __ATOMIC_ACQUIRE);
    const double wall = ever ? detail::ticks_to_ns(static_cast<double>(detail::clock_now() - s.start_ticks)) : 0;
    if (!ever) {
      char rank[32] = "";
      probe_metric_rank_prefix(rank, sizeof rank);
      fprintf(out, "%sprobe timing summary: timing is off (--probe_timing turns it on)\n", rank);
    }
    if (ever || !rows.empty() || !metrics.empty())
      detail::write_summary_table(out, rows, metrics, wall, detail::clock_name(), ever ? detail::clock_frequency() : 0,
                                  static_cast<size_t>(options_ref().timing_summary_rows),
                                  __atomic_load_n(&detail::g_timing_forked, __ATOMIC_RELAXED) ? static_cast<long>(getpid()) : 0);
  } catch (...) {
  }
}

PROBE_END_NAMESPACE
