// Timing at run time: options, op timing, metrics, the background drain, flush and exit.
// Internal header.
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
#include "device_timing_ops.hpp"
#include "../core/context.hpp"
#include "../core/options.hpp"
#include "../util/log.hpp"
#include "../util/float_text.hpp"
#include "../util/sync.hpp"
#include "timing.hpp"
#include "timing_aggregate.hpp"
#include "timing_buffer_source.hpp"
#include "timing_clock_source.hpp"

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
  bool trace_ops = false;  // atomic: a trace is written, so op events carry their arguments

  mutex writer_m;  // the background drain thread (detached: it may still wait at exit)
  condvar writer_cv;
  bool writer_started = false, writer_wake = false, writer_stop = false;
};
PROBE_API timing_state& timing() noexcept;

PROBE_API const interned_name* intern_name(const char* text);

// Every event recorded so far (and every device timing resolved so far) into the aggregator.
// The caller holds agg_m.
PROBE_API void drain_all_locked(timing_state& s, bool final_flush);

PROBE_API void* timing_writer_main(void*);

PROBE_API void timing_on_backlog(uint32_t full_count) noexcept;

// Times every probe::op (NVTX range too, when a backend installed range hooks).
class op_timer final : public op_listener {
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
    if (!__atomic_load_n(&timing().trace_ops, __ATOMIC_RELAXED)) {
      // The summary needs only the name: an interned pointer, no allocation.
      if (const interned_name* n = op_name(r.name, r.type)) record_event(v & ~k_range_bit, end, n, event_op_name);
      return;
    }
    op_detail* d = nullptr;
    try {
      d = new op_detail();
      d->name = r.name;
      d->type = r.type;
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
      append_json_chars(out, r.type);
      out += '"';
    }
    for (int which = 0; which < 2; ++which) {
      bool any = false;
      for (const recorded_tensor& t : r.tensors) {
        if (static_cast<int>(t.which) != which) continue;
        out += any ? "," : which == 0 ? ",\"inputs\":{" : ",\"outputs\":{";
        any = true;
        out += '"';
        append_json_chars(out, t.slot);
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
  // The interned name of an op, from a small per-thread cache (ops repeat a few names); the
  // process-wide table and its lock only on a miss. nullptr when out of memory.
  // Interned as "name\x1ftype": the summary's totals by op type need the type.
  static const interned_name* op_name(const std::string& name, const std::string& type) noexcept {
    static constexpr size_t k_ways = 64;
    static thread_local const interned_name* cache[k_ways] = {};
    size_t h = name.size();
    for (size_t i = 0; i < name.size() && i < 8; ++i) h = h * 31 + static_cast<unsigned char>(name[name.size() - 1 - i]);
    const interned_name*& slot = cache[h % k_ways];
    if (slot && slot->text.size() == name.size() + 1 + type.size() &&
        memcmp(slot->text.data(), name.data(), name.size()) == 0 &&
        memcmp(slot->text.data() + name.size() + 1, type.data(), type.size()) == 0)
      return slot;
    try {
      std::string key = name;
      key += '\x1f';
      key += type;
      slot = intern_name(key.c_str());
    } catch (...) {
      return nullptr;
    }
    return slot;
  }

  // Readings are far below 2^63: the top bit remembers that a range was pushed.
  static constexpr uint64_t k_range_bit = 1ull << 63;
  static constexpr uint64_t k_pushed_bit(bool pushed) { return pushed ? k_range_bit : 0; }
};

PROBE_API op_timer& op_timing_listener() noexcept;

// A relative trace path is taken from the working directory at the time the flag is read.
PROBE_API std::string absolute_path(const char* path);

// Called by the wiring with every new set of options; appends the timing listeners to
// `list` from index n and returns the new count.
PROBE_API int timing_apply_options(const options& o, op_listener** list, int n, int capacity) noexcept;

// Drains everything and makes the trace complete on disk; at exit also prints the summary
// (--probe_timing_summary) and closes the trace for good.
PROBE_API void timing_flush(bool at_exit) noexcept;

PROBE_API void timer_record(const char* name, const void** interned, uint64_t begin, uint64_t end) noexcept;

PROBE_API void timer_end(const char* name, const void** interned, uint64_t begin) noexcept;

// Test support: forgets every statistic and every event not yet aggregated (they do not
// reach the trace either).
PROBE_API void timing_reset() noexcept;

// Count and total nanoseconds of a summary row ('s' scopes and timers, 'o' ops, 'g' device
// ops) after draining; false when there is no such row.
PROBE_API bool timing_lookup(const char* name, char kind, uint64_t* count, double* total_ns) noexcept;

}  // namespace detail

PROBE_API void metric(const char* name, double value) noexcept;

PROBE_API void write_timing_summary(FILE* out) noexcept;

PROBE_END_NAMESPACE
