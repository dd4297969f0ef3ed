// Timing at run time: options, op timing, metrics, the background drain, flush and exit.
// Implementation-only header.
//
// Events are drained from the per-thread buffers (a) by a background thread once
// k_backlog_notify full chunks wait, (b) by the recording thread itself if the backlog
// reaches k_backlog_block chunks (the background thread cannot keep up: memory stays bounded
// instead), and (c) at probe::flush(), write_timing_summary and exit.
#pragma once
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "../util/string_table.hpp"
#include "../backends/gpu_op_timing.hpp"
#include "../core/context_impl.hpp"
#include "../core/options.hpp"
#include "../util/log.hpp"
#include "../util/round_trip_double.hpp"
#include "../util/sync.hpp"
#include "timing.hpp"
#include "timing_aggregate.hpp"
#include "timing_buffer_impl.hpp"
#include "timing_clock_impl.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

constexpr uint32_t k_backlog_block = 256;  // 6 MiB of waiting events

struct timing_state {
  mutex agg_m;  // one aggregator at a time
  timing_aggregator agg;
  bool ever_on = false;       // atomic
  bool summary_at_exit = false;
  bool finished = false;      // the exit flush ran
  uint64_t start_ticks = 0;   // when timing first turned on: the summary's wall time

  mutex names_m;
  string_table names;  // interned_name*

  mutex writer_m;  // the background drain thread (detached: it may still wait at exit)
  condvar writer_cv;
  bool writer_started = false, writer_wake = false, writer_stop = false;
};
PROBE_FUNC timing_state& timing() noexcept {
  static timing_state* s = new timing_state();  // never destroyed: used at exit
  return *s;
}

PROBE_FUNC const interned_name* intern_name(const char* text) {
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

// Every event recorded so far (and every device timing resolved so far) into the aggregator.
// The caller holds agg_m.
PROBE_FUNC void drain_all_locked(timing_state& s, bool final_flush) {
  auto sink = [&](const thread_buffer& b, const timing_event& e) { s.agg.consume(b, e); };
  drain_full_chunks(sink);
  drain_current_chunks(sink);
  if (device_timing* d = installed_device_timing())
    d->collect(final_flush, [](void* agg, const gpu_op_timing& t) { static_cast<timing_aggregator*>(agg)->consume_gpu(t); },
               &s.agg);
}

PROBE_FUNC void* timing_writer_main(void*) {
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
      drain_full_chunks([&](const thread_buffer& b, const timing_event& e) { s.agg.consume(b, e); });
    } catch (...) {
    }
  }
}

PROBE_FUNC_DEF void timing_on_backlog(uint32_t full_count) noexcept {
  timing_state& s = timing();
  if (full_count >= k_backlog_block) {
    // The writer falls behind: this thread drains, so memory stays bounded. After the exit
    // flush (static destructors still timing scopes) the events only get freed.
    try {
      lock_guard<mutex> g(s.agg_m);
      if (s.finished)
        drain_full_chunks([](const thread_buffer&, const timing_event& e) {
          if (e.kind() == event_op) delete static_cast<const op_detail*>(e.what());
        });
      else
        drain_full_chunks([&](const thread_buffer& b, const timing_event& e) { s.agg.consume(b, e); });
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

// Times every probe::op (NVTX range too, when a backend installed range hooks).
template <int = 0>
class basic_op_timer final : public op_listener {
 public:
  void on_begin(op_record& r, uint64_t& state) noexcept override {
    const range_hooks* h = __atomic_load_n(&g_range_hooks, __ATOMIC_ACQUIRE);
    if (h) h->push(r.name.c_str());
    state = clock_now() | k_pushed_bit(h != nullptr);
  }

  void on_end(op_record& r, uint64_t& state) noexcept override {
    const uint64_t end = clock_now();
    const uint64_t v = state;
    if (v == 0) return;  // began before op timing was on
    if (v & k_range_bit) {
      const range_hooks* h = __atomic_load_n(&g_range_hooks, __ATOMIC_ACQUIRE);
      if (h) h->pop();
    }
    op_detail* d = nullptr;
    try {
      d = new op_detail();
      d->name = r.name;
      describe(r, d->args);
    } catch (...) {
      delete d;
      return;
    }
    if (!record_event(v & ~k_range_bit, end, d, event_op)) delete d;
  }

  // "seq":12,"step":0,"type":"Conv","inputs":{"x":"float32[2,2]"},"outputs":{...}
  static void describe(const op_record& r, std::string& out) {
    out += "\"seq\":";
    append_u64(out, r.seq);
    out += ",\"step\":";
    append_i64(out, r.step);
    if (!r.type.empty()) {
      out += ",\"type\":\"";
      json_escape_append(out, r.type.c_str());
      out += '"';
    }
    for (int which = 0; which < 2; ++which) {
      bool any = false;
      for (const recorded_tensor& t : r.tensors) {
        if (static_cast<int>(t.which) != which) continue;
        out += any ? "," : which == 0 ? ",\"inputs\":{" : ",\"outputs\":{";
        any = true;
        out += '"';
        json_escape_append(out, t.slot.c_str());
        out += "\":\"";
        out += t.view.valid() ? dtype_name(t.view.type) : "invalid";
        out += '[';
        for (int i = 0; i < t.view.ndim; ++i) {
          if (i) out += ',';
          append_i64(out, t.view.shape[i]);
        }
        out += ']';
        if (!t.view.where.is_host()) out += " cuda:" + std::to_string(t.view.where.index);
        out += '"';
      }
      if (any) out += '}';
    }
  }

 private:
  // Readings are far below 2^63: the top bit remembers that a range was pushed.
  static constexpr uint64_t k_range_bit = 1ull << 63;
  static constexpr uint64_t k_pushed_bit(bool pushed) { return pushed ? k_range_bit : 0; }
};
using op_timer = basic_op_timer<>;

PROBE_FUNC op_timer& op_timing_listener() noexcept {
  static op_timer* l = new op_timer();
  return *l;
}

// A relative trace path is taken from the working directory at the time the flag is read.
PROBE_FUNC std::string absolute_path(const char* path) {
  if (!path || !*path || path[0] == '/') return path ? path : "";
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return path;
  return std::string(cwd) + "/" + path;
}

// Called by the wiring with every new set of options; appends the timing listeners to
// `list` from index n and returns the new count.
PROBE_FUNC int timing_apply_options(const options& o, op_listener** list, int n, int capacity) noexcept {
  timing_state& s = timing();
  __atomic_store_n(&g_chunk_refill, &PROBE_DEFERRED(chunk_refill), __ATOMIC_RELEASE);
  try {
    if (o.timing) {
      clock_request(o.timing_clock);
      clock_init();
    }
    lock_guard<mutex> g(s.agg_m);
    s.summary_at_exit = o.timing_summary;
    if (o.timing && !s.ever_on) {
      timing_watch_fork();
      s.start_ticks = clock_now();
      __atomic_store_n(&s.ever_on, true, __ATOMIC_RELEASE);
    }
    const std::string path = absolute_path(o.trace_to);
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

// Drains everything and makes the trace complete on disk; at exit also prints the summary
// (--probe_timing_summary) and closes the trace for good.
PROBE_FUNC void timing_flush(bool at_exit) noexcept {
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
    if (summary) {
      fflush(stdout);
      write_timing_summary(stderr);
    }
  } catch (...) {
  }
}

PROBE_FUNC_DEF void timer_record(const char* name, const void** interned, uint64_t begin, uint64_t end) noexcept {
  try {
    if (!*interned) *interned = intern_name(name);
    record_event(begin, end, *interned, event_timer);
  } catch (...) {
  }
}

PROBE_FUNC_DEF void timer_end(const char* name, const void** interned, uint64_t begin) noexcept {
  const uint64_t end = clock_now();
  if (gate_on(gate_timing)) timer_record(name, interned, begin, end);
}

// Test support: forgets every statistic and every event not yet aggregated (they do not
// reach the trace either).
PROBE_FUNC void timing_reset() noexcept {
  timing_state& s = timing();
  try {
    lock_guard<mutex> g(s.agg_m);
    auto discard = [](const thread_buffer&, const timing_event& e) {
      if (e.kind() == event_op) delete static_cast<const op_detail*>(e.what());
    };
    drain_full_chunks(discard);
    drain_current_chunks(discard);
    if (device_timing* d = installed_device_timing()) d->collect(false, [](void*, const gpu_op_timing&) {}, nullptr);
    s.agg.clear_stats();
    s.start_ticks = clock_now();
  } catch (...) {
  }
}

// Count and total nanoseconds of a summary row ('s' scopes and timers, 'o' ops, 'g' device
// ops) after draining; false when there is no such row.
PROBE_FUNC bool timing_lookup(const char* name, char kind, uint64_t* count, double* total_ns) noexcept {
  timing_state& s = timing();
  try {
    lock_guard<mutex> g(s.agg_m);
    drain_all_locked(s, false);
    return s.agg.lookup(name, kind, count, total_ns);
  } catch (...) {
    return false;
  }
}

}  // namespace detail

PROBE_FUNC_DEF void metric(const char* name, double value) noexcept {
  try {
    std::string line;
    for (const char* p = name ? name : ""; *p; ++p) {
      const unsigned char c = static_cast<unsigned char>(*p);
      line += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
    }
    char num[40];
    detail::format_double_round_trip(value, num, sizeof num);
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

PROBE_FUNC_DEF void write_timing_summary(FILE* out) noexcept {
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
    if (!ever) fputs("probe timing summary: timing is off (--probe_timing turns it on)\n", out);
    if (ever || !rows.empty() || !metrics.empty())
      detail::write_summary_table(out, rows, metrics, wall, detail::clock_name(), ever ? detail::clock_frequency() : 0);
  } catch (...) {
  }
}

PROBE_END_NAMESPACE
