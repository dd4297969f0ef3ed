// A tiny engine for accuracy tests: seven ops in a DAG, each with a naive kernel (picked
// under --probe_reference) and an optimized one that computes the same thing in another
// order, so the two runs differ by rounding only. A bug can be planted in one optimized
// kernel. Activations are stored as S: float, or probe::float16 for a mixed-precision run.
//
//   x --fc1--> h --act--> g --pool--> r
//              |          |
//              +--norm--> n --mix(g, n)--> s --fc2--> y --softmax--> p
#pragma once
#include <probe/probe.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace compare_test {

enum class plant { none, wrong_norm, nan_act };

struct engine_options {
  plant planted = plant::none;
  bool extra_op = false;      // one more op at the end (its tensors exist in this run only)
  bool reshape_pool = false;  // pool's output as [1, d] instead of [d]
};

inline float to_f(float v) { return v; }
inline float to_f(probe::float16 v) { return probe::to_float(v); }
inline void store(float& d, float v) { d = v; }
inline void store(probe::float16& d, float v) { d = probe::to_float16(v); }

template <class S>
struct tiny_net {
  static constexpr int rows = 16, d_in = 32, d_hid = 24, d_out = 8;
  engine_options opt;
  std::vector<S> x, w1, w2, gamma, h, g, n, s, y, p, r, copy;

  explicit tiny_net(engine_options o = engine_options())
      : opt(o), x(rows * d_in), w1(d_in * d_hid), w2(d_hid * d_out), gamma(d_hid), h(rows * d_hid), g(rows * d_hid),
        n(rows * d_hid), s(rows * d_hid), y(rows * d_out), p(rows * d_out), r(d_hid), copy(rows * d_out) {
    for (size_t i = 0; i < x.size(); ++i) store(x[i], std::sin(0.37f * static_cast<float>(i)) + 0.1f);
    for (size_t i = 0; i < w1.size(); ++i) store(w1[i], 0.25f * std::sin(1.3f * static_cast<float>(i) + 0.5f));
    for (size_t i = 0; i < w2.size(); ++i) store(w2[i], 0.3f * std::sin(0.07f * static_cast<float>(i) + 1));
    for (size_t i = 0; i < gamma.size(); ++i) store(gamma[i], 1 + 0.05f * static_cast<float>(i % 5));
  }

  static probe::tensor_view mat(const std::vector<S>& v, int r, int c) { return probe::view(v.data(), {r, c}); }

  // c[r, o] = sum_k a[r, k] * b[k, o]
  static void matmul(const std::vector<S>& a, const std::vector<S>& b, std::vector<S>& c, int m, int k, int nn) {
    const bool naive = probe::reference_mode();
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < nn; ++j) {
        float acc;
        if (naive) {
          double d = 0;
          for (int q = 0; q < k; ++q) d += static_cast<double>(to_f(a[i * k + q])) * to_f(b[q * nn + j]);
          acc = static_cast<float>(d);
        } else {  // four partial sums, in float, as a vectorized kernel would
          float part[4] = {0, 0, 0, 0};
          for (int q = 0; q < k; ++q) part[q % 4] += to_f(a[i * k + q]) * to_f(b[q * nn + j]);
          acc = (part[0] + part[2]) + (part[1] + part[3]);
        }
        store(c[i * nn + j], acc);
      }
  }

  void fc1() {
    probe::op op("fc1", "MatMul");
    op.input("x", mat(x, rows, d_in)).input("w", mat(w1, d_in, d_hid));
    matmul(x, w1, h, rows, d_in, d_hid);
    op.output("y", mat(h, rows, d_hid));
  }

  void act() {
    probe::op op("act", "Gelu");
    op.input("x", mat(h, rows, d_hid));
    const bool naive = probe::reference_mode();
    for (size_t i = 0; i < h.size(); ++i) {
      const float v = to_f(h[i]);
      float out = naive ? static_cast<float>(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))))
                        : 0.5f * v * (1 + std::erf(v * 0.70710678f));
      if (!naive && opt.planted == plant::nan_act && i == 77) out = std::sqrt(-1.0f - v * v);  // a NaN
      store(g[i], out);
    }
    op.output("y", mat(g, rows, d_hid));
  }

  void norm() {
    probe::op op("norm", "LayerNorm");
    op.input("x", mat(h, rows, d_hid)).input("gamma", gamma);
    const bool naive = probe::reference_mode();
    for (int i = 0; i < rows; ++i) {
      const S* row = &h[static_cast<size_t>(i) * d_hid];
      double mean, var;
      if (naive) {  // two passes in double
        double sum = 0;
        for (int j = 0; j < d_hid; ++j) sum += to_f(row[j]);
        mean = sum / d_hid;
        double sq = 0;
        for (int j = 0; j < d_hid; ++j) sq += (to_f(row[j]) - mean) * (to_f(row[j]) - mean);
        var = sq / d_hid;
      } else {  // one pass in float
        float sum = 0, sq = 0;
        for (int j = 0; j < d_hid; ++j) {
          sum += to_f(row[j]);
          sq += to_f(row[j]) * to_f(row[j]);
        }
        const int count = opt.planted == plant::wrong_norm ? d_hid - 1 : d_hid;  // the planted bug
        mean = sum / d_hid;
        var = sq / count - static_cast<float>(mean * mean);
      }
      const float inv = static_cast<float>(1 / std::sqrt(var + 1e-5));
      for (int j = 0; j < d_hid; ++j)
        store(n[static_cast<size_t>(i) * d_hid + j], static_cast<float>(to_f(row[j]) - mean) * inv * to_f(gamma[j]));
    }
    op.output("y", mat(n, rows, d_hid));
  }

  void mix() {
    probe::op op("mix", "Add");
    op.input("a", mat(g, rows, d_hid)).input("b", mat(n, rows, d_hid));
    for (size_t i = 0; i < s.size(); ++i) store(s[i], to_f(g[i]) + to_f(n[i]));
    op.output("y", mat(s, rows, d_hid));
  }

  void fc2() {
    probe::op op("fc2", "MatMul");
    op.input("x", mat(s, rows, d_hid)).input("w", mat(w2, d_hid, d_out));
    matmul(s, w2, y, rows, d_hid, d_out);
    op.output("y", mat(y, rows, d_out));
  }

  void softmax() {
    probe::op op("softmax", "Softmax");
    op.input("x", mat(y, rows, d_out));
    const bool naive = probe::reference_mode();
    for (int i = 0; i < rows; ++i) {
      const S* row = &y[static_cast<size_t>(i) * d_out];
      float shift = 0;
      if (!naive) {  // the stable form: subtract the row's maximum
        shift = to_f(row[0]);
        for (int j = 1; j < d_out; ++j) shift = std::max(shift, to_f(row[j]));
      }
      double sum = 0;
      for (int j = 0; j < d_out; ++j) sum += std::exp(static_cast<double>(to_f(row[j]) - shift));
      for (int j = 0; j < d_out; ++j)
        store(p[static_cast<size_t>(i) * d_out + j], static_cast<float>(std::exp(static_cast<double>(to_f(row[j]) - shift)) / sum));
    }
    op.output("y", mat(p, rows, d_out));
  }

  void pool() {
    probe::op op("pool", "ReduceMean");
    op.input("x", mat(g, rows, d_hid));
    for (int j = 0; j < d_hid; ++j) {
      float acc = 0;
      for (int i = 0; i < rows; ++i) acc += to_f(g[static_cast<size_t>(i) * d_hid + j]);
      store(r[static_cast<size_t>(j)], acc / rows);
    }
    if (opt.reshape_pool) op.output("y", probe::view(r.data(), {1, d_hid}));
    else op.output("y", r);
  }

  void extra() {
    probe::op op("debug_copy", "Copy");
    op.input("x", mat(p, rows, d_out));
    copy = p;
    op.output("y", mat(copy, rows, d_out));
  }

  void run() {
    fc1();
    act();
    norm();
    mix();
    pool();
    fc2();
    softmax();
    if (opt.extra_op) extra();
  }
};

// Runs the engine once with dumping into dir (as .npy), naive kernels when reference.
template <class S>
inline void dump_run(const std::string& dir, bool reference, engine_options o = engine_options(), int steps = 1,
                     const std::string& more_flags = "") {
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_as_npy" + (reference ? " --probe_reference" : "") + " " +
                    more_flags).c_str());
  tiny_net<S> net(o);
  for (int step = 0; step < steps; ++step) {
    probe::set_step(step);
    net.run();
  }
  probe::set_flags("");  // closes the run: end record, files complete
}

}  // namespace compare_test
