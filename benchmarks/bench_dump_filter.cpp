// What dumping one step costs the other steps (benchmarks/README.md, "steps outside the dump
// filters"): a stencil code shaped like a lattice Boltzmann step (4 ops on 64 Ki floats: a
// collision in place, a stream into a second array, a bounce-back rewriting the walls in
// place, the macroscopic moments) run with --probe_dump_steps=LAST against the same steps with
// every flag off, sample by sample in the same run. Target: <= 1.03x for the steps the filter
// leaves out. Also the whole loop of 1,500 steps, the dumped one included; and what a strided
// output costs there (one head's rows of a [T, 32, 128] buffer: one rectangle of a grid, or
// with rows written one by one before, a range kept per row) against a contiguous one of as
// many bytes.
#include <probe/probe.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

constexpr size_t n = 64 * 1024;

struct stencil {
  std::vector<float> f, g, rho;
  stencil() : f(n), g(n), rho(n) {
    for (size_t i = 0; i < n; ++i) f[i] = 1.0f + 0.001f * static_cast<float>(i % 97);
  }
  void step(int64_t s) {
    probe::set_step(s);
    {
      probe::op op("collide", "Collide");
      op.input("f", f);
      for (size_t i = 0; i < n; ++i) f[i] += 0.6f * (0.5f * (f[i] + f[(i + 1) % n]) - f[i]);
      op.output("f", f);
    }
    {
      probe::op op("stream", "Stream");
      op.input("f", f);
      for (size_t i = 0; i < n; ++i) g[(i + 1) % n] = f[i];
      op.output("g", g);
    }
    {
      probe::op op("bounce", "BounceBack");
      for (size_t i = 0; i < n; i += 256) g[i] = -g[i];  // the walls, in place
      op.output("g", g);
    }
    {
      probe::op op("macro", "Moments");
      op.input("g", g);
      for (size_t i = 0; i < n; ++i) rho[i] = g[i] * g[i] + 1.0f;
      op.output("rho", rho);
    }
    f.swap(g);
  }
};

double run_ms(stencil& s, int64_t first, int64_t count) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t k = first; k < first + count; ++k) s.step(k);
  const auto t1 = std::chrono::steady_clock::now();
  bench::do_not_optimize(s.rho[7]);
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// 32 ops a step, each writing one head's rows of out [T, H, D] (strided [T, D] views), or
// contiguous views of as many bytes: what the dump keeps of an output outside the filter.
double heads_us(std::vector<float>& out, int64_t T, bool strided, int64_t first, int64_t count) {
  constexpr int64_t H = 32, D = 128;
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t k = first; k < first + count; ++k) {
    probe::set_step(k);
    for (int64_t h = 0; h < H; ++h) {
      probe::op op("attn", "Attention", h);
      if (!op.records_tensors()) continue;
      op.output("o", strided ? probe::view(out.data() + h * D, {T, D}, {H * D, 1})
                             : probe::view(out.data() + h * T * D, {T, D}));
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(count * H);
}

void strided_outputs(const std::string& filtered) {
  const int samples = bench::quick() ? 3 : 15;
  const int64_t chunk = bench::quick() ? 5 : 50;
  struct config {
    int64_t T;
    bool halves;  // each row written as two ranges first: more ranges than rows in a head's span
  };
  for (const config c : {config{32, false}, config{32, true}, config{64, false}, config{2048, false}}) {
    const int64_t T = c.T;
    // A buffer each: the contiguous side's writes would take the ranges out of the other's.
    std::vector<float> out_s(static_cast<size_t>(T * 32 * 128)), out_c(out_s.size());
    std::vector<double> strided, contiguous;
    probe::set_flags(filtered.c_str());
    for (int64_t half = 0; c.halves && half < 2 * T; ++half) {
      probe::op op("fill", "Fill", half);
      op.output("o", probe::view(out_s.data() + half * 16 * 128, {16 * 128}));
    }
    heads_us(out_s, T, true, 0, 1);
    heads_us(out_c, T, false, 0, 1);
    for (int k = 0; k < samples; ++k)
      for (int side = 0; side < 2; ++side) {
        const bool s = (side == 0) == (k % 2 == 0);
        (s ? strided : contiguous).push_back(heads_us(s ? out_s : out_c, T, s, 1, chunk));
      }
    probe::set_flags("");
    const bench::result a = bench::summarize(strided), b = bench::summarize(contiguous);
    std::string label = "op outside the filter, output [" + std::to_string(T) + ", 128] of 32 heads, strided" +
                        (c.halves ? ", over rows written in halves" : "");
    bench::print_row(label.c_str(), a, "us");
    label = "the same, contiguous";
    bench::print_row(label.c_str(), b, "us");
    label = c.halves ? "strided (a range per row) / contiguous" : "strided (a grid's rectangle) / contiguous";
    bench::print_ratio(label.c_str(), a, b);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const char* env = std::getenv("BENCH_DIR");
  const std::string dir = std::string(env && *env ? env : "/tmp") + "/probe_bench_filter_" + std::to_string(getpid());
  const int64_t steps = bench::quick() ? 100 : 1500;
  const std::string filtered = "--probe_dump_to=" + dir + " --probe_dump_as_npy --probe_dump_steps=" + std::to_string(steps - 1);
  stencil s;

  // Steps the filter leaves out, interleaved with the same steps with every flag off.
  const int64_t chunk = bench::quick() ? 10 : 200;
  const int samples = bench::quick() ? 3 : 21;
  std::vector<double> outside, off;
  for (int k = 0; k < samples; ++k) {
    // A step first, untimed: a new set of flags starts its run (folder, run record) there.
    // Which side goes first alternates, so that drift on the machine hits both alike.
    for (int side = 0; side < 2; ++side) {
      const bool with_filter = (side == 0) == (k % 2 == 0);
      probe::set_flags(with_filter ? filtered.c_str() : "");
      run_ms(s, 0, 1);
      (with_filter ? outside : off).push_back(run_ms(s, 1, chunk) / static_cast<double>(chunk));
    }
  }
  const bench::result a = bench::summarize(outside), b = bench::summarize(off);
  bench::print_row("step outside --probe_dump_steps", a, "ms");
  bench::print_row("step with every flag off", b, "ms");
  bench::print_ratio("outside the filter / flags off (target <= 1.03)", a, b);

  // The whole program: every step, the last one dumped.
  std::vector<double> whole, whole_off;
  for (int k = 0; k < (bench::quick() ? 1 : 3); ++k) {
    probe::set_flags(filtered.c_str());
    whole.push_back(run_ms(s, 0, steps));
    probe::set_flags("");
    whole_off.push_back(run_ms(s, 0, steps));
  }
  const bench::result w = bench::summarize(whole), wo = bench::summarize(whole_off);
  std::string label = std::to_string(steps) + " steps, the last dumped";
  bench::print_row(label.c_str(), w, "ms");
  label = std::to_string(steps) + " steps, every flag off";
  bench::print_row(label.c_str(), wo, "ms");
  bench::print_ratio("whole loop / flags off", w, wo);
  strided_outputs(filtered);
  const std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "bench_dump_filter: could not remove %s\n", dir.c_str());
  return 0;
}
