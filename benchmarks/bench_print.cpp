// probe::print costs, as ratios against baselines measured in the same run:
//   caller side of an async print of one scalar         (target <= 300 ns)
//     vs fprintf to /dev/null (synchronous, stdio-buffered)
//     vs a std::mutex-protected std::deque push of {format, value} (the floor of a locked queue)
//   caller side of a print of a 1 KiB tensor (256 floats, copied at the call)
//   the whole pipeline: queue, format and write, per print (worker throughput)
//   print with --probe_print=off (one branch) vs an empty loop
// Prints go to /dev/null (--probe_print_to=/dev/null). Batches stay below a shard's capacity,
// so the caller never waits for the worker while being timed; a barrier runs between samples.
#include <probe/probe.hpp>

#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <vector>

#include "harness.hpp"

namespace {

constexpr long k_batch = 1000;

struct queued {
  const char* fmt;
  long value;
};

double ns_per(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b, long n) {
  return std::chrono::duration<double, std::nano>(b - a).count() / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const int samples = bench::quick() ? 3 : 41;
  probe::set_flags("--probe_print_to=/dev/null");
  FILE* devnull = std::fopen("/dev/null", "w");
  std::mutex m;
  std::deque<queued> dq;
  std::vector<float> tensor(256);
  for (size_t i = 0; i < tensor.size(); ++i) tensor[i] = 0.25f * static_cast<float>(i);

  // Warm up: the worker thread, the allocator, the sink.
  for (long i = 0; i < 4 * k_batch; ++i) probe::print("step {}", i);
  probe::effects_barrier();

  std::vector<double> scalar, fprintf_ns, deque_ns, tensor_ns, pipeline_ns;
  for (int s = 0; s < samples; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < k_batch; ++i) probe::print("step {}", i);
    auto t1 = std::chrono::steady_clock::now();
    probe::effects_barrier();
    scalar.push_back(ns_per(t0, t1, k_batch));

    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < k_batch; ++i) std::fprintf(devnull, "step %ld\n", i);
    t1 = std::chrono::steady_clock::now();
    fprintf_ns.push_back(ns_per(t0, t1, k_batch));

    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < k_batch; ++i) {
      std::lock_guard<std::mutex> g(m);
      dq.push_back(queued{"step {}", i});
    }
    t1 = std::chrono::steady_clock::now();
    dq.clear();
    deque_ns.push_back(ns_per(t0, t1, k_batch));

    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < k_batch; ++i) probe::print("t={}", tensor);
    t1 = std::chrono::steady_clock::now();
    probe::effects_barrier();
    tensor_ns.push_back(ns_per(t0, t1, k_batch));

    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < k_batch; ++i) probe::print("step {}", i);
    probe::effects_barrier();
    t1 = std::chrono::steady_clock::now();
    pipeline_ns.push_back(ns_per(t0, t1, k_batch));
  }
  const bench::result r_scalar = bench::summarize(scalar), r_fprintf = bench::summarize(fprintf_ns),
                      r_deque = bench::summarize(deque_ns), r_tensor = bench::summarize(tensor_ns),
                      r_pipeline = bench::summarize(pipeline_ns);

  probe::set_flags("--probe_print=off");
  const auto off = bench::time_pair_ns([] { probe::print("step {}", 1); }, [] { bench::clobber(); }, 1000000);

  std::printf("probe::print caller-side cost (batches of %ld, prints to /dev/null)\n", k_batch);
  bench::print_row("print(\"step {}\", i): caller", r_scalar);
  bench::print_row("fprintf(/dev/null, \"step %ld\\n\", i)", r_fprintf);
  bench::print_row("std::mutex + std::deque push of {fmt, value}", r_deque);
  bench::print_ratio("print / fprintf", r_scalar, r_fprintf);
  bench::print_ratio("print / locked deque push", r_scalar, r_deque);
  bench::print_row("print(\"t={}\", 1 KiB float tensor): caller", r_tensor);
  bench::print_ratio("1 KiB tensor print / scalar print", r_tensor, r_scalar);
  bench::print_row("print pipeline (caller + format + write), per print", r_pipeline);
  bench::print_row("print with --probe_print=off", off.first);
  bench::print_row("empty loop", off.second);
  std::printf("%-48s %.3f ns\n", "off - empty", off.first.median - off.second.median);
  std::fclose(devnull);
  return 0;
}
