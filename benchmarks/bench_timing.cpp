// Timing costs, as ratios against baselines measured in the same run:
//   PROBE_SCOPE, timing on   vs two raw reads of the chosen clock  (target <= 1.15x)
//   the same sustained: 2M scopes and their aggregation            (target <= 1.15x)
//   the same with a Chrome trace written                           (target <= 1.6x)
//   and what making the trace's JSON costs when it is published, per event
//   PROBE_SCOPE, timing off  vs an empty loop                      (target <= +1 ns)
// and the memory a long run needs: bytes per recorded event, and the peak of the event
// buffers over a 10M-event run (bounded, however many events).
#include <probe/probe.hpp>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

// Two reads of the clock probe chose, with nothing of probe around them.
PROBE_ALWAYS_INLINE uint64_t two_clock_reads() {
#if defined(__x86_64__)
  if (probe::detail::g_clock_kind == probe::detail::clock_tsc) {
    const uint64_t a = __builtin_ia32_rdtsc();
    const uint64_t b = __builtin_ia32_rdtsc();
    return b - a;
  }
#endif
  timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return static_cast<uint64_t>(t1.tv_nsec - t0.tv_nsec);
}

PROBE_NOINLINE void scoped_function(long i) {
  PROBE_SCOPE("bench_function");
  bench::do_not_optimize(i);
}
PROBE_NOINLINE void empty_function(long i) { bench::do_not_optimize(i); }

// A loop whose body is only PROBE_SCOPE, against the same loop without it, interleaved.
std::pair<bench::result, bench::result> loop_pair(int samples, long n) {
  std::vector<double> va, vb;
  for (int s = 0; s < samples; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
      PROBE_SCOPE("bench_scope");
      bench::do_not_optimize(i);
    }
    auto t1 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) bench::do_not_optimize(i);
    auto t2 = std::chrono::steady_clock::now();
    va.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
    vb.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / static_cast<double>(n));
  }
  return {bench::summarize(va), bench::summarize(vb)};
}

// The recording thread's own cost: batches small enough that no drain starts while they
// run (12 chunks; the background drain wakes at 16), drained between samples.
std::pair<bench::result, bench::result> hot_path_pair(int samples) {
  const long batch = 12 * probe::detail::k_chunk_events;
  std::vector<double> va, vb;
  for (int s = 0; s < samples; ++s) {
    probe::detail::timing_reset();
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < batch; ++i) {
      PROBE_SCOPE("bench_scope");
      bench::do_not_optimize(i);
    }
    auto t1 = std::chrono::steady_clock::now();
    for (long i = 0; i < batch; ++i) bench::do_not_optimize(two_clock_reads());
    auto t2 = std::chrono::steady_clock::now();
    va.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(batch));
    vb.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / static_cast<double>(batch));
  }
  return {bench::summarize(va), bench::summarize(vb)};
}

double process_cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// Sustained: n scopes in a loop, then whatever the background drain has not aggregated yet
// (and, with a trace, spooled) is drained before the clock stops, so every event's whole cost
// is in the row; against n pairs of raw clock reads, sample by sample. Also the CPU time of
// the whole process (every thread, the background drain's included) per scope, which a
// machine shared with other jobs disturbs less than wall time: *cpu gets that pair.
std::pair<bench::result, bench::result> sustained_pair(int samples, long n,
                                                       std::pair<bench::result, bench::result>* cpu) {
  std::vector<double> va, vb, ca, cb;
  for (int s = 0; s < samples; ++s) {
    probe::detail::timing_reset();
    uint64_t count = 0;
    double total = 0;
    const double c0 = process_cpu_ns();
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
      PROBE_SCOPE("bench_sustained");
      bench::do_not_optimize(i);
    }
    probe::detail::timing_lookup("bench_sustained", 's', &count, &total);  // drains every event
    auto t1 = std::chrono::steady_clock::now();
    const double c1 = process_cpu_ns();
    for (long i = 0; i < n; ++i) bench::do_not_optimize(two_clock_reads());
    auto t2 = std::chrono::steady_clock::now();
    const double c2 = process_cpu_ns();
    ca.push_back((c1 - c0) / static_cast<double>(n));
    cb.push_back((c2 - c1) / static_cast<double>(n));
    if (count != static_cast<uint64_t>(n)) std::printf("sustained: the summary counted %llu of %ld scopes\n",
                                                       static_cast<unsigned long long>(count), n);
    va.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
    vb.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / static_cast<double>(n));
  }
  *cpu = {bench::summarize(ca), bench::summarize(cb)};
  return {bench::summarize(va), bench::summarize(vb)};
}

long rss_kib(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, field, std::strlen(field)) == 0) kib = std::atol(line + std::strlen(field));
  std::fclose(f);
  return kib;
}

void memory_run(const char* flags, long events, const char* label) {
  probe::set_flags(flags);
  probe::detail::timing_reset();
  auto& reg = probe::detail::registry();
  __atomic_store_n(&reg.chunks_peak, __atomic_load_n(&reg.chunks_live, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  const long hwm0 = rss_kib("VmHWM:");
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < events; ++i) scoped_function(i);
  probe::flush();
  auto t1 = std::chrono::steady_clock::now();
  const double peak_mib = static_cast<double>(__atomic_load_n(&reg.chunks_peak, __ATOMIC_RELAXED)) *
                          sizeof(probe::detail::event_chunk) / 1048576.0;
  uint64_t count = 0;
  double total = 0;
  probe::detail::timing_lookup("bench_function", 's', &count, &total);
  std::printf("%-34s %ld events (summary counted %llu) in %.2f s: event buffers peak %.1f MiB, "
              "peak RSS grew %ld KiB\n",
              label, events, static_cast<unsigned long long>(count),
              std::chrono::duration<double>(t1 - t0).count(), peak_mib, rss_kib("VmHWM:") - hwm0);
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const long iters = 2000000;
  const std::string trace = "/tmp/probe_bench_timing_" + std::to_string(static_cast<long>(getpid())) + ".json";

  std::printf("== memory\n");
  std::printf("per recorded event: %zu bytes (chunks of %u events, %zu bytes)\n",
              sizeof(probe::detail::timing_event), probe::detail::k_chunk_events,
              sizeof(probe::detail::event_chunk));
  const long events = bench::quick() ? 200000 : 10000000;
  memory_run("--probe_timing", events, "summary only:");
  memory_run(("--probe_trace_to=" + trace + " --probe_trace_max_events=100000").c_str(), events,
             "trace, --probe_trace_max_events=100k:");

  std::printf("== timing off\n");
  probe::set_flags("");
  auto off = loop_pair(bench::quick() ? 3 : 21, iters * 10);
  bench::print_row("PROBE_SCOPE in a loop body, timing off", off.first);
  bench::print_row("empty loop body", off.second);
  std::printf("%-48s %+.3f ns (target <= +1 ns)\n", "timing off, over the empty loop",
              off.first.median - off.second.median);
  auto off_fn = bench::time_pair_ns([] { static long i = 0; scoped_function(++i); },
                                    [] { static long i = 0; empty_function(++i); }, iters);
  bench::print_row("PROBE_SCOPE alone in a non-inlined function", off_fn.first);
  bench::print_row("the same function without it", off_fn.second);
  std::printf("%-48s %+.3f ns (its prologue included)\n", "timing off, function over function",
              off_fn.first.median - off_fn.second.median);

  std::printf("== timing on\n");
  probe::set_flags("--probe_timing");
  auto hot = hot_path_pair(bench::quick() ? 5 : 201);
  std::printf("clock: %s, %.3f GHz\n", probe::detail::clock_name(), probe::detail::clock_frequency() / 1e9);
  bench::print_row("PROBE_SCOPE in a loop body, timing on", hot.first);
  bench::print_row("two raw clock reads", hot.second);
  bench::print_ratio("timing on / two clock reads (target <= 1.15)", hot.first, hot.second);

  // With breakpoints on (the default 'auto') and ops recorded, scopes also link themselves
  // into the thread's chain for breakpoint frames; --probe_breakpoint=off leaves them out.
  probe::set_flags("--probe_timing --probe_breakpoint=off");
  auto unlinked = hot_path_pair(bench::quick() ? 5 : 201);
  bench::print_row("PROBE_SCOPE, timing on, breakpoints off", unlinked.first);
  bench::print_ratio("timing on, scopes linked / not linked", hot.first, unlinked.first);
  probe::set_flags("--probe_breakpoint=prompt");
  auto linked_only = loop_pair(bench::quick() ? 3 : 21, iters * 10);
  bench::print_row("PROBE_SCOPE, linked only (timing off)", linked_only.first);
  std::printf("%-48s %+.3f ns\n", "linked only, over the empty loop", linked_only.first.median - linked_only.second.median);
  probe::set_flags("--probe_timing");

  // Sustained: 2M scopes per sample, drained by the background thread meanwhile and the rest
  // at the end of the sample. On a busy machine that thread competes with the recording one,
  // so this includes its CPU.
  const long sustained_n = bench::quick() ? 100000 : iters;
  std::pair<bench::result, bench::result> sustained_cpu, traced_cpu;
  auto sustained = sustained_pair(bench::quick() ? 3 : 11, sustained_n, &sustained_cpu);
  bench::print_row("sustained 2M, summary (aggregation included)", sustained.first);
  bench::print_row("two raw clock reads", sustained.second);
  bench::print_ratio("sustained / two clock reads (target <= 1.15)", sustained.first, sustained.second);
  bench::print_row("  the same, process CPU time", sustained_cpu.first);
  bench::print_row("  two raw clock reads, process CPU time", sustained_cpu.second);
  bench::print_ratio("  sustained / two clock reads, CPU time", sustained_cpu.first, sustained_cpu.second);

  // 200k events per sample (30 MB of JSON each), so the trace file stays a few hundred MB.
  // While the program runs, a traced event is spooled (32 bytes, spilled to disk in blocks);
  // its JSON is made when the trace is published: timed apart below, per event.
  probe::set_flags(("--probe_trace_to=" + trace).c_str());
  const int traced_samples = bench::quick() ? 3 : 7;
  auto traced = sustained_pair(traced_samples, sustained_n / 10, &traced_cpu);
  bench::print_row("sustained 200k, trace written (spooled)", traced.first);
  bench::print_row("two raw clock reads", traced.second);
  bench::print_ratio("trace / two clock reads (target <= 1.6)", traced.first, traced.second);
  bench::print_row("  the same, process CPU time", traced_cpu.first);
  bench::print_row("  two raw clock reads, process CPU time", traced_cpu.second);
  bench::print_ratio("  trace / two clock reads, CPU time", traced_cpu.first, traced_cpu.second);
  const auto p0 = std::chrono::steady_clock::now();
  probe::set_flags("");  // publishes the trace: every spooled event becomes JSON
  const auto p1 = std::chrono::steady_clock::now();
  const double spooled = static_cast<double>(traced_samples) * static_cast<double>(sustained_n / 10);
  std::printf("%-48s %.1f ns per event (%.0f events; at exit or probe::flush, not while recording)\n",
              "trace published: JSON made and written", std::chrono::duration<double, std::nano>(p1 - p0).count() / spooled,
              spooled);
  std::remove(trace.c_str());
  return 0;
}
