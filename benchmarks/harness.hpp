// A small benchmark harness: per-iteration time as the median of several samples, with the
// median absolute deviation as its error, and ratios against a baseline measured in the same
// run (this is what benchmarks/README.md records: absolute numbers drift between machines
// and runs, ratios much less).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace bench {

template <class T>
inline void do_not_optimize(T const& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}
inline void clobber() { asm volatile("" : : : "memory"); }

struct result {
  double median = 0;  // per iteration, in the unit of the measured quantity (ns or ms)
  double mad = 0;     // median absolute deviation of the samples
  int samples = 0;
};

inline result summarize(std::vector<double> v) {
  result r;
  r.samples = static_cast<int>(v.size());
  if (v.empty()) return r;
  std::sort(v.begin(), v.end());
  r.median = v[v.size() / 2];
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - r.median));
  std::sort(dev.begin(), dev.end());
  r.mad = dev[dev.size() / 2];
  return r;
}

// Quick mode (BENCH_QUICK=1 or --quick): few samples, for smoke-testing that benchmarks run.
inline bool quick() {
  static const bool q = [] {
    const char* e = std::getenv("BENCH_QUICK");
    return e && *e && std::strcmp(e, "0") != 0;
  }();
  return q;
}
inline void parse_args(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--quick")) setenv("BENCH_QUICK", "1", 1);
}

// ns per call of f(), over `iters` calls per sample.
template <class F>
result time_ns(F&& f, long iters, int samples = 21) {
  if (quick()) {
    samples = 3;
    iters = std::max(1L, iters / 100);
  }
  std::vector<double> v;
  for (int s = 0; s < samples; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    v.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(iters));
  }
  return summarize(v);
}

// Interleaves two measurements sample by sample so that machine noise hits both alike;
// returns {a, b}.
template <class A, class B>
std::pair<result, result> time_pair_ns(A&& a, B&& b, long iters, int samples = 21) {
  if (quick()) {
    samples = 3;
    iters = std::max(1L, iters / 100);
  }
  std::vector<double> va, vb;
  for (int s = 0; s < samples; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) a();
    auto t1 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) b();
    auto t2 = std::chrono::steady_clock::now();
    va.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(iters));
    vb.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / static_cast<double>(iters));
  }
  return {summarize(va), summarize(vb)};
}

inline void print_row(const char* name, const result& r, const char* unit = "ns") {
  std::printf("%-48s %12.3f %s  ± %.3f  (%d samples)\n", name, r.median, unit, r.mad, r.samples);
}
inline void print_ratio(const char* name, const result& r, const result& base) {
  std::printf("%-48s ratio %.3f\n", name, base.median > 0 ? r.median / base.median : 0.0);
}
// Both rows of a time_pair_ns result and their ratio.
inline void print_pair(const char* name, const std::pair<result, result>& r, const char* base_name) {
  print_row(name, r.first);
  print_row(base_name, r.second);
  print_ratio(name, r.first, r.second);
}

}  // namespace bench
