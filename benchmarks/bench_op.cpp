// Op costs, as ratios against baselines measured in the same run:
//   probe::op with an input and an output, --probe_timing   vs a timed PROBE_SCOPE  (target <= 2x)
//   the same op, --probe_dump_stats_only: per small tensor, manifest line included (target <= 2 us)
//   the content hash (util/hash.hpp)                        vs memcpy of the same bytes (GB/s)
#include <probe/probe.hpp>
#include <probe/util/hash.hpp>

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

float g_x[64], g_y[64];

// Marked as docs/dump.md advises: views are built only when some effect reads them.
PROBE_NOINLINE void marked_op(long i) {
  probe::op op("bench_op", "Bench");
  if (op.records_tensors()) op.input("x", probe::view(g_x, {64}));
  g_y[i & 63] = g_x[i & 63] + 1.f;
  if (op.records_tensors()) op.output("y", probe::view(g_y, {64}));
}

PROBE_NOINLINE void scoped(long i) {
  PROBE_SCOPE("bench_scope");
  g_y[i & 63] = g_x[i & 63] + 1.f;
}

double thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

PROBE_NOINLINE void plain(long i) { g_y[i & 63] = g_x[i & 63] + 1.f; }

// 64 KiB in, 64 KiB out: what breakpoint frames copy per op while a stop can read them.
std::vector<float> g_big_x(16384, 1.f), g_big_y(16384);
PROBE_NOINLINE void marked_big_op(long i) {
  probe::op op("bench_big_op", "Bench");
  if (op.records_tensors()) op.input("x", g_big_x);
  g_big_y[static_cast<size_t>(i) & 16383] = g_big_x[static_cast<size_t>(i) & 16383] + 1.f;
  if (op.records_tensors()) op.output("y", g_big_y);
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const long iters = 200000;

  std::printf("== op timing (--probe_timing, summary only)\n");
  probe::set_flags("--probe_timing");
  probe::detail::timing_reset();
  auto t = bench::time_pair_ns([] { static long i = 0; marked_op(++i); }, [] { static long i = 0; scoped(++i); },
                               iters);
  bench::print_pair("probe::op, 1 input + 1 output", t, "PROBE_SCOPE, same body");
  std::printf("%-48s ratio %.3f (target <= 2)\n", "op / scope", t.first.median / t.second.median);

  std::printf("== stats-only dump (--probe_dump_stats_only), 64-float tensors\n");
  const std::string dir = "/tmp/probe_bench_op_" + std::to_string(static_cast<long>(getpid()));
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_stats_only").c_str());
  auto d = bench::time_pair_ns([] { static long i = 0; marked_op(++i); }, [] { static long i = 0; plain(++i); },
                               iters / 10, 11);
  bench::print_row("probe::op, 1 input + 1 output, dumped", d.first);
  bench::print_row("the same body unmarked", d.second);
  std::printf("%-48s %.3f us (target <= 2 us)\n", "per tensor (2 per op)", (d.first.median - d.second.median) / 2000.0);
  // The op thread's own CPU time: on a busy machine wall time also counts waiting for a core.
  const long cpu_ops = bench::quick() ? 2000 : 200000;
  const double c0 = thread_cpu_ns();
  for (long i = 0; i < cpu_ops; ++i) marked_op(i);
  const double c1 = thread_cpu_ns();
  std::printf("%-48s %.3f us (target <= 2 us)\n", "per tensor, op thread CPU time", (c1 - c0) / cpu_ops / 2000.0);
  probe::set_flags("");
  std::system(("rm -rf '" + dir + "'").c_str());

  // Ops recorded for breakpoint frames, no stop taken: trap mode records frames without
  // copies (a debugger reads memory itself); prompt mode copies each tensor at its call.
  std::printf("== breakpoint frames, 64 KiB input + 64 KiB output per op\n");
  std::vector<double> kept, bare;
  for (int round = 0; round < 2; ++round) {
    probe::set_flags("--probe_breakpoint=prompt");
    kept.push_back(bench::time_ns([] { static long i = 0; marked_big_op(++i); }, iters / 20, 11).median);
    probe::set_flags("--probe_breakpoint=trap");
    bare.push_back(bench::time_ns([] { static long i = 0; marked_big_op(++i); }, iters / 20, 11).median);
  }
  probe::set_flags("");
  const double k = kept[0] < kept[1] ? kept[0] : kept[1], b = bare[0] < bare[1] ? bare[0] : bare[1];
  std::printf("%-48s %.1f ns\n", "op, tensors copied for frames (prompt)", k);
  std::printf("%-48s %.1f ns\n", "op, frames without copies (trap)", b);
  std::printf("%-48s %.2f GB/s of copied bytes; ratio %.2f\n", "copies", 131072.0 / (k - b), k / b);

  std::printf("== content hash\n");
  // In cache (what the hash itself costs) and from memory (what a large dump sees).
  for (size_t n : {size_t(256) << 10, bench::quick() ? (size_t(1) << 20) : (size_t(64) << 20)}) {
    std::vector<char> src(n), dst(n);
    for (size_t i = 0; i < n; ++i) src[i] = static_cast<char>(i * 131);
    const long reps = static_cast<long>((size_t(256) << 20) / n);
    auto h = bench::time_pair_ns([&] { bench::do_not_optimize(probe::detail::content_hash::of(src.data(), n)); },
                                 [&] { std::memcpy(dst.data(), src.data(), n); bench::clobber(); }, reps, 11);
    std::printf("%-32s %8zu KiB %8.2f GB/s   memcpy %8.2f GB/s   ratio %.2f\n", "content_hash", n >> 10,
                static_cast<double>(n) / h.first.median, static_cast<double>(n) / h.second.median,
                h.second.median / h.first.median);
  }
  return 0;
}
