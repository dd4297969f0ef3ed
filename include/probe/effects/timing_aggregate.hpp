// The timing aggregator: turns drained events into summary rows and trace events. Runs off
// the hot path, one caller at a time (timing_impl.hpp holds its lock). Implementation-only.
#pragma once
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "../util/loaded_modules.hpp"
#include "../util/string_table.hpp"
#include "device_timing_ops.hpp"
#include "../util/log.hpp"
#include "../util/ptr_list.hpp"
#include "../util/float_text.hpp"
#include "../formats/chrome_trace.hpp"
#include "timing.hpp"
#include "timing_buffer_source.hpp"
#include "timing_clock_source.hpp"
#include "timing_spool.hpp"
#include "timing_stats.hpp"
#include "timing_summary.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline bool g_timing_forked = false;  // set in a child after fork(): traces stay the parent's

PROBE_API void timing_watch_fork() noexcept;

// A timer's or metric's name, copied once and kept for the process.
struct alignas(8) interned_name {
  std::string text;
  uint32_t series = 0;  // duration row + 1 (named timers), 0 = not yet
  uint32_t metric = 0;  // metric row + 1, 0 = not yet
  uint32_t op = 0;      // op row + 1 (ops timed without trace arguments), 0 = not yet
};

// What an op event carries to the aggregator (owned by the event).
struct alignas(8) op_detail {
  std::string name, type;
  std::string args;  // JSON object members: "seq":1,"step":0,...
};

class timing_aggregator {
 public:
  // Trace options; the trace itself opens at the first event or flush.
  void set_trace(const std::string& path, int64_t max_events) {
    trace_ready_ = false;
    trace_path_ = path;
    trace_max_ = max_events;
    trace_failed_ = false;
    told_max_ = false;
    if (path != spool_path_) {  // options applied again with the same trace keep its spool
      const size_t slash = path.rfind('/');
      spool_.reset(slash == std::string::npos ? std::string() : path.substr(0, slash + 1));
      spool_path_ = path;
    }
  }
  const std::string& trace_path() const { return trace_path_; }
  bool tracing() const { return !trace_path_.empty() && !trace_failed_; }
  // Before events are drained: whether a library was unloaded since (its scopes' sites with it).
  void refresh_modules() noexcept { modules_.refresh(); }

  // e[0] and the events after it of the same scope site (a loop's scope repeats, so its
  // events come in runs): a run is added at once, its site looked up once. Returns how many of
  // the n events it consumed.
  uint32_t consume_run(const thread_buffer& b, const timing_event* e, uint32_t n) {
    if (e->kind() != event_scope) {
      consume(b, *e);
      return 1;
    }
    site_entry& s = site_for(static_cast<const scope_site*>(e->what()));
    const uint32_t k = series_[s.series].stats.add_run(e, n, e->tagged);
    if (tracing()) spool_run(s.prefix, e, k, b.tid);
    return k;
  }

  void consume(const thread_buffer& b, const timing_event& e) {
    switch (e.kind()) {
      case event_scope: {
        const auto* site = static_cast<const scope_site*>(e.what());
        site_entry& s = site_for(site);
        series_[s.series].stats.add(e.end - e.begin);
        if (tracing()) complete_event(s.prefix, e.begin, e.end, b.tid, nullptr);
        break;
      }
      case event_timer: {
        auto* n = const_cast<interned_name*>(static_cast<const interned_name*>(e.what()));
        if (!n->series) n->series = series_index('s', n->text) + 1;
        series_entry& s = series_[n->series - 1];
        s.stats.add(e.end - e.begin);
        if (tracing()) complete_event(s.timer_prefix, e.begin, e.end, b.tid, nullptr);
        break;
      }
      case event_op: {
        auto* d = const_cast<op_detail*>(static_cast<const op_detail*>(e.what()));
        series_entry& s = series_[series_index('o', d->name)];
        if (s.type.empty() && !d->type.empty()) s.type = d->type;  // for the totals by op type
        s.stats.add(e.end - e.begin);
        if (tracing()) complete_event(s.op_prefix, e.begin, e.end, b.tid, &d->args);
        delete d;
        break;
      }
      case event_op_name: {
        auto* n = const_cast<interned_name*>(static_cast<const interned_name*>(e.what()));
        if (!n->op) {
          const size_t cut = n->text.rfind('\x1f');  // "name\x1ftype" (timing_control.hpp); names may hold the byte
          n->op = series_index('o', n->text.substr(0, cut)) + 1;
          series_entry& first = series_[n->op - 1];
          if (cut != std::string::npos && first.type.empty()) first.type = n->text.substr(cut + 1);
        }
        series_entry& s = series_[n->op - 1];
        s.stats.add(e.end - e.begin);
        if (tracing()) complete_event(s.op_prefix, e.begin, e.end, b.tid, nullptr);
        break;
      }
      case event_metric: {
        auto* n = const_cast<interned_name*>(static_cast<const interned_name*>(e.what()));
        if (!n->metric) {
          auto* m = new metric_entry();
          m->name = n->text;
          append_json_chars(m->json_name, n->text);
          metrics_.push_back(m);
          n->metric = static_cast<uint32_t>(metrics_.size());
        }
        metric_entry& m = metrics_[n->metric - 1];
        double v;
        memcpy(&v, &e.end, sizeof v);
        m.stats.add(v);
        if (tracing() && fp_finite(v)) counter_event(m, e.begin, b.tid, v);  // finite only
        break;
      }
      default:
        break;
    }
  }

  void consume_gpu(const gpu_op_timing& t) {
    series_entry& s = series_[series_index('g', t.op.name)];
    s.stats.add(static_cast<uint64_t>(t.dur_ns < 0 ? 0 : t.dur_ns));
    if (!tracing()) return;
    format_spool();  // written directly: what was spooled before it goes first
    const long tid = gpu_track(t.device, t.op.stream);
    std::string args = "\"seq\":";
    append_u64(args, t.op.seq);
    args += ",\"step\":";
    append_i64(args, t.op.step);
    args += ",\"type\":\"";
    append_json_chars(args, t.op.type);
    args += "\",\"device\":";
    append_i64(args, t.device);
    if (!write_allowed(t.begin_ns)) return;
    std::string ev = s.gpu_prefix;
    ev += "\"ts\":";
    append_us(ev, t.begin_ns);
    ev += ",\"dur\":";
    append_us(ev, t.dur_ns < 0 ? 0 : t.dur_ns);
    append_ids(ev, tid);
    ev += ",\"args\":{" + args + "}}";
    trace_.event(ev);
  }

  // Makes the trace file complete on disk: at exit (final) by closing it, otherwise as a
  // copy while it goes on streaming.
  void publish_trace(bool final_flush) {
    if (!tracing()) return;
    if (!ensure_open()) return;
    format_spool();
    if (!tracing()) return;
    const std::string trailing = metadata_events();
    std::string members = "\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"probe " PROBE_VERSION_STRING
                          "\",\"clock\":\"";
    members += clock_name();
    members += "\",\"events_left_out\":";
    append_u64(members, left_out_);
    members += "}";
    const bool ok = final_flush ? trace_.finish(trailing, members) : trace_.publish_copy(trailing, members);
    if (final_flush) trace_ready_ = false;
    if (!ok) trace_error();
  }

  // Rows for the summary table (pointers into this aggregator: use before the next consume).
  void summary_rows(ptr_list<summary_row>& rows, ptr_list<summary_metric>& metrics) {
    const double ns_per_tick = ticks_to_ns(1.0);
    for (size_t i = 0; i < series_.size(); ++i) {
      series_entry& s = series_[i];
      s.ns_per_unit = s.code == 'g' ? 1.0 : ns_per_tick;
      if (s.stats.count()) rows.push_back(&s);
    }
    for (size_t i = 0; i < metrics_.size(); ++i)
      if (metrics_[i].stats.count) metrics.push_back(&metrics_[i]);
  }

  // Forgets every statistic (names and row numbers stay assigned).
  void clear_stats() {
    for (size_t i = 0; i < series_.size(); ++i) series_[i].stats = duration_stats();
    for (size_t i = 0; i < metrics_.size(); ++i) metrics_[i].stats = metric_stats();
  }

  // Count and total (ns) of a summary row, for tests and tools; false if there is none.
  bool lookup(const char* name, char kind, uint64_t* count, double* total_ns) {
    const uint64_t row = series_by_key_[std::string(1, kind) + name];
    if (row == 0) return false;
    series_entry& s = series_[row - 1];
    *count = s.stats.count();
    *total_ns = static_cast<double>(s.stats.total()) * (kind == 'g' ? 1.0 : ticks_to_ns(1.0));
    return true;
  }

  void abandon_trace() {
    trace_ready_ = false;
    trace_.abandon();
    spool_.discard();
  }

 private:
  struct series_entry : summary_row {
    char code;  // 's' scope or timer, 'o' op, 'g' device op
    std::string timer_prefix, op_prefix, gpu_prefix;  // trace event openings by source
  };
  struct site_entry {
    const scope_site* site;
    uint32_t series;
    std::string prefix;
  };
  struct device_track {
    int device;
    void* stream;
  };
  static long track_tid(size_t i) { return 2000000000L + static_cast<long>(i); }
  struct metric_entry : summary_metric {
    std::string json_name;
  };

  uint32_t series_index(char kind, const std::string& name) {
    std::string key(1, kind);
    key += name;
    uint64_t& row = series_by_key_[key];  // row + 1; 0 = new
    if (row != 0) return static_cast<uint32_t>(row - 1);
    auto* s = new series_entry();
    s->name = name;
    s->code = kind;
    s->kind = kind == 'o' ? "op" : kind == 'g' ? "gpu op" : "scope";
    std::string esc;
    append_json_chars(esc, name);
    s->timer_prefix = "{\"name\":\"" + esc + "\",\"cat\":\"timer\",\"ph\":\"X\",";
    s->op_prefix = "{\"name\":\"" + esc + "\",\"cat\":\"op\",\"ph\":\"X\",";
    s->gpu_prefix = "{\"name\":\"" + esc + "\",\"cat\":\"gpu\",\"ph\":\"X\",";
    series_.push_back(s);
    row = series_.size();
    return static_cast<uint32_t>(row - 1);
  }

  site_entry& site_for(const scope_site* site) {
    // A scope of a library the program dlclose()d before its events were drained: its site is
    // unmapped, so it is counted under one name and never read.
    if (PROBE_UNLIKELY(modules_.any_unloaded()) && !modules_.contains(site)) return unloaded_site();
    // An id probe did not give (a C site not zero-initialised) is not trusted: the site is
    // registered again.
    if (site->id && site->id <= sites_.size() && sites_[site->id - 1].site == site) return sites_[site->id - 1];
    auto* e = new site_entry();
    e->site = site;
    e->series = series_index('s', site->name);
    const char* file = site->file ? site->file : "";
    const char* base = strrchr(file, '/');
    base = base ? base + 1 : file;
    e->prefix = "{\"name\":\"";
    append_json_chars(e->prefix, site->name);
    e->prefix += "\",\"cat\":\"scope\",\"ph\":\"X\",\"args\":{\"src\":\"";
    append_json_chars(e->prefix, base);
    e->prefix += ':';
    append_i64(e->prefix, site->line);
    e->prefix += "\",\"func\":\"";
    append_json_chars(e->prefix, site->function);
    e->prefix += "\"},";
    sites_.push_back(e);
    site->id = static_cast<uint32_t>(sites_.size());
    return sites_.back();
  }

  site_entry& unloaded_site() {
    if (!unloaded_) {
      static const char name[] = "(a scope of an unloaded library)";
      unloaded_ = new site_entry();
      unloaded_->site = nullptr;
      unloaded_->series = series_index('s', name);
      unloaded_->prefix = std::string("{\"name\":\"") + name + "\",\"cat\":\"scope\",\"ph\":\"X\",";
    }
    return *unloaded_;
  }

  void append_ids(std::string& ev, long tid) {
    ev += ",\"pid\":";
    append_i64(ev, pid_);
    ev += ",\"tid\":";
    append_i64(ev, tid);
  }

  bool ensure_open() {
    if (__atomic_load_n(&g_timing_forked, __ATOMIC_RELAXED)) {
      trace_.detach();  // a forked child: the trace file is the parent's; the child writes none
      spool_.detach();
      trace_failed_ = true;
      trace_ready_ = false;
      return false;
    }
    if (trace_ready_) return true;  // open on trace_path_ since the last check (every event asks)
    if (trace_.is_open() && trace_.path() == trace_path_) return trace_ready_ = true;
    if (trace_.is_open()) trace_.abandon();
    spool_.discard();
    pid_ = static_cast<long>(getpid());
    ids_.clear();
    left_out_ = 0;
    if (!trace_.open(trace_path_)) {
      trace_error();
      return false;
    }
    return trace_ready_ = true;
  }

  void trace_error() {
    trace_ready_ = false;
    log("timing trace: %s; no trace will be written (the summary still works)", trace_.error().c_str());
    trace_failed_ = true;
    trace_.abandon();
    spool_.discard();
  }

  // Whether one more event fits under --probe_trace_max_events; notes the cut once.
  bool write_allowed(int64_t ts_ns) { return write_allowed_at(ts_ns, false); }
  // `at` is in ticks when `ticks` (a spooled event: converted only if the cut is noted).
  bool write_allowed_at(int64_t at, bool ticks) {
    if (!ensure_open()) return false;
    if (trace_max_ <= 0 || trace_.events() + spool_.count() < static_cast<uint64_t>(trace_max_)) return true;
    ++left_out_;
    if (!told_max_) {
      format_spool();  // the note follows every event kept
      const int64_t ts_ns = ticks ? monotonic_of(static_cast<uint64_t>(at)) : at;
      told_max_ = true;
      log("timing trace reached --probe_trace_max_events=%lld: later events are left out of %s "
          "(the summary still counts them)", static_cast<long long>(trace_max_), trace_path_.c_str());
      std::string ev = "{\"name\":\"probe: trace truncated at --probe_trace_max_events\",\"ph\":\"i\",\"s\":\"g\",\"ts\":";
      append_us(ev, ts_ns);
      append_ids(ev, 0);
      ev += "}";
      trace_.event(ev);  // one past the limit, so readers see where and why it stops
    }
    return false;
  }

  // A run of one scope's events into the spool: 32 bytes each, no text (timing_spool.hpp).
  void spool_run(const std::string& prefix, const timing_event* e, uint32_t k, long tid) {
    if (!ensure_open()) return;
    uint32_t fit = k;  // under --probe_trace_max_events
    if (trace_max_ > 0) {
      const uint64_t have = trace_.events() + spool_.count();
      const uint64_t room = have < static_cast<uint64_t>(trace_max_) ? static_cast<uint64_t>(trace_max_) - have : 0;
      if (room < k) fit = static_cast<uint32_t>(room);
    }
    for (uint32_t i = 0; i < fit;) {
      i += spool_.append_run(e + i, fit - i, &prefix, tid);
      if (i < fit) {
        format_spool();  // no room and nowhere to spill: the block becomes JSON now
        if (!tracing() || !spool_.empty()) return;
      }
    }
    for (uint32_t i = fit; i < k; ++i) write_allowed_at(static_cast<int64_t>(e[i].begin), true);  // left out
  }
  // An event with an op's arguments (JSON members), spooled with them.
  void complete_event(const std::string& prefix, uint64_t begin, uint64_t end, long tid,
                      const std::string* args) {
    if (!write_allowed_at(static_cast<int64_t>(begin), true)) return;
    const char* a = args ? args->data() : nullptr;
    const size_t n = args ? args->size() : 0;
    if (!spool_.append(begin, end, &prefix, tid, a, n)) {
      format_spool();
      if (tracing()) spool_.append(begin, end, &prefix, tid, a, n);
    }
  }
  // The spooled events as JSON, in the order they were spooled.
  void format_spool() {
    if (spool_.empty() || !trace_.is_open()) return;
    const int e = spool_.drain([&](const spool_record& r, const char* args, size_t args_len) {
      format_event(*r.prefix, r.begin, r.end, r.tid, args, args_len);
    });
    if (e) log("timing trace: cannot read back its spool (%s); events recorded before are missing", strerror(e));
  }
  // The event's text is made in one buffer and appended at once: a trace of a loop's scopes
  // writes millions of these (ctest scope_cost).
  void format_event(const std::string& prefix, uint64_t begin, uint64_t end, long tid, const char* args,
                    size_t args_len) {
    const int64_t b = monotonic_of(begin);
    const int64_t e = monotonic_of(end);
    const std::string& ids = ids_for(tid);
    std::string& ev = trace_.begin_event();  // written in place: this runs for every event
    char text[512];
    // The numbers' part: 5 + 25 + 7 + 25 characters at most, then the ids and '}'.
    if (args || prefix.size() + ids.size() + 64 > sizeof text) {
      ev += prefix;
      char* p = put_event_times(text, b, e - b);
      ev.append(text, static_cast<size_t>(p - text));
      ev += ids;
      if (args) {
        ev.append(",\"args\":{", 9);
        ev.append(args, args_len);
        ev += '}';
      }
      ev += '}';
    } else {
      memcpy(text, prefix.data(), prefix.size());
      char* p = put_event_times(text + prefix.size(), b, e - b);
      memcpy(p, ids.data(), ids.size());
      p += ids.size();
      *p++ = '}';
      ev.append(text, static_cast<size_t>(p - text));
    }
    trace_.end_event();
  }
  static char* put_event_times(char* p, int64_t ts, int64_t dur) {
    memcpy(p, "\"ts\":", 5);
    p = put_us(p + 5, ts);
    memcpy(p, ",\"dur\":", 7);
    return put_us(p + 7, dur);
  }

  // ticks_to_monotonic_ns with the clock's origin and scale read once: they are fixed for the
  // process once the scale is (ticks_to_ns fixes it).
  int64_t monotonic_of(uint64_t ticks) {
    if (!clock_cached_) {
      ticks_to_ns(1.0);
      const clock_state& c = clock_globals();
      origin_ticks_ = c.origin_ticks;
      origin_ns_ = c.origin_ns;
      ns_per_tick_ = c.ns_per_tick;
      clock_cached_ = true;
    }
    const double ns = static_cast<double>(static_cast<int64_t>(ticks - origin_ticks_)) * ns_per_tick_;
    return origin_ns_ + static_cast<int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5);
  }

  // ',"pid":P,"tid":T' for the thread of the last event (events come a chunk at a time).
  const std::string& ids_for(long tid) {
    if (tid != ids_tid_ || ids_.empty()) {
      ids_.clear();
      append_ids(ids_, tid);
      ids_tid_ = tid;
    }
    return ids_;
  }

  void counter_event(const metric_entry& m, uint64_t at, long tid, double v) {
    const int64_t t = ticks_to_monotonic_ns(at);
    if (!write_allowed(t)) return;
    format_spool();
    char num[40];
    write_compact(num, v);
    std::string ev = "{\"name\":\"" + m.json_name + "\",\"ph\":\"C\",\"ts\":";
    append_us(ev, t);
    append_ids(ev, tid);
    ev += ",\"args\":{\"value\":";
    ev += num;
    ev += "}}";
    trace_.event(ev);
  }

  long gpu_track(int device, void* stream) {
    for (size_t i = 0; i < gpu_tracks_.size(); ++i)
      if (gpu_tracks_[i].device == device && gpu_tracks_[i].stream == stream) return track_tid(i);
    gpu_tracks_.push_back(new device_track{device, stream});
    return track_tid(gpu_tracks_.size() - 1);
  }

  // Thread and process names (metadata events), written when the trace is completed.
  std::string metadata_events() {
    std::string out;
    auto add = [&](const char* what, long tid, const std::string& name) {
      if (!out.empty()) out += ",\n";
      out += "{\"name\":\"";
      out += what;
      out += "\",\"ph\":\"M\",\"pid\":";
      append_i64(out, pid_);
      out += ",\"tid\":";
      append_i64(out, tid);
      out += ",\"args\":{\"name\":\"";
      append_json_chars(out, name);
      out += "\"}}";
    };
    char comm[64] = {};
    FILE* f = fopen("/proc/self/comm", "r");
    if (f) {
      if (!fgets(comm, sizeof comm, f)) comm[0] = '\0';
      fclose(f);
      comm[strcspn(comm, "\n")] = '\0';
    }
    add("process_name", 0, comm[0] ? comm : "probe");
    buffer_registry& reg = registry();
    lock_guard<mutex> g(reg.m);
    // The main thread's name is the process's (/proc/self/comm): it was renamed when that
    // differs from the program's own name (15 bytes, as the kernel keeps it).
    std::string program = comm;
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    program = std::string(program_invocation_short_name).substr(0, 15);
#endif
    for (thread_buffer* b = reg.threads; b; b = b->next) {
      // Threads inherit the process name until they set their own: show something better.
      std::string name = b->name;
      if (b->tid == pid_) {
        if (name.empty() || name == program) name = "main";
      } else if (name.empty() || name == comm || name == program) {  // inherited, before or after a rename
        name = "thread " + std::to_string(b->index);
      }
      add("thread_name", b->tid, name);
    }
    for (size_t i = 0; i < gpu_tracks_.size(); ++i) {
      char name[96];
      snprintf(name, sizeof name, "GPU %d stream %p", gpu_tracks_[i].device, gpu_tracks_[i].stream);
      add("thread_name", track_tid(i), name);
    }
    return out;
  }

  // Owned, never freed (the aggregator lives as long as the process).
  ptr_list<series_entry> series_;
  string_table series_by_key_;  // kind + name -> row + 1
  ptr_list<site_entry> sites_;
  site_entry* unloaded_ = nullptr;  // never freed, as sites_' entries
  loaded_modules modules_;
  ptr_list<metric_entry> metrics_;
  ptr_list<device_track> gpu_tracks_;  // one trace track per device stream
  chrome_trace_writer trace_;
  trace_spool spool_;  // complete events not made JSON yet
  std::string trace_path_, spool_path_;
  int64_t trace_max_ = 0;
  uint64_t left_out_ = 0;
  long pid_ = static_cast<long>(getpid());
  std::string ids_;
  long ids_tid_ = 0;
  bool trace_failed_ = false, told_max_ = false;
  bool trace_ready_ = false;  // trace_ is open on trace_path_ (ensure_open's answer, cached)
  bool clock_cached_ = false;
  uint64_t origin_ticks_ = 0;
  int64_t origin_ns_ = 0;
  double ns_per_tick_ = 1.0;
};

}  // namespace detail
PROBE_END_NAMESPACE
