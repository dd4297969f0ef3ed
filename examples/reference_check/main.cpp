// reference_check: the accuracy workflow. Each op has a naive kernel, written for clarity,
// and an optimized one; probe::reference_mode() (the --probe_reference flag) picks the naive
// ones. Dump a run each way, then let `probe compare` name the op that broke accuracy:
//
//   PROBE_FLAGS="--probe_dump_to=/tmp/ref --probe_dump_as_npy --probe_reference" ./reference_check
//   PROBE_FLAGS="--probe_dump_to=/tmp/opt --probe_dump_as_npy" ./reference_check --bug
//   probe compare /tmp/opt /tmp/ref          # root cause: op norm#0 (LayerNorm)
//
// Without --bug the optimized kernels differ from the naive ones only by rounding, and
// probe compare says "All within tolerance." (run.sh here does both).
//
// Each kernel is also registered for replay (PROBE_KERNEL): with snapshots in a dump
// (--probe_dump_snapshots), `probe replay DUMP -- ./reference_check --bug` re-runs every op
// alone on its recorded inputs and names the one whose kernel is wrong (docs/replay.md).
#include <probe/probe.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int rows = 8, cols = 64;
bool planted_bug = false;

// ---- kernels: plain functions on pointers, called by the ops and by replay alike ----

// y = x * w (a per-column scale): the same in both modes
void scale_kernel(const float* x, const float* w, float* y, int r, int c) {
  for (int i = 0; i < r * c; ++i) y[i] = x[i] * w[i % c];
}

// Layer normalization of each row: two passes in double (naive), or one pass in float.
void layer_norm_kernel(const float* x, float* y, int r, int c, double eps) {
  for (int i = 0; i < r; ++i) {
    const float* row = x + i * c;
    double mean = 0, var = 0;
    if (probe::reference_mode()) {
      for (int k = 0; k < c; ++k) mean += row[k];
      mean /= c;
      for (int k = 0; k < c; ++k) var += (row[k] - mean) * (row[k] - mean);
      var /= c;
    } else {
      float s = 0, sq = 0;
      for (int k = 0; k < c; ++k) s += row[k], sq += row[k] * row[k];
      const int n = planted_bug ? c - 1 : c;  // the bug: a wrong count
      mean = s / c;
      var = sq / n - mean * mean;
    }
    for (int k = 0; k < c; ++k) y[i * c + k] = static_cast<float>((row[k] - mean) / std::sqrt(var + eps));
  }
}

// Logistic gate: 1 / (1 + exp(-x)), or the tanh form.
void sigmoid_kernel(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = probe::reference_mode() ? static_cast<float>(1 / (1 + std::exp(-static_cast<double>(x[i]))))
                                   : 0.5f + 0.5f * std::tanh(0.5f * x[i]);
}

void mul_kernel(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

// ---- the same kernels wrapped for replay: a snapshot's inputs and attributes in, outputs
// (allocated by probe with the recorded shapes) out ----

PROBE_KERNEL("LayerNorm", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x", {-1, -1});  // float32, two dimensions
  auto y = ctx.output<float>("y", x.shape());
  layer_norm_kernel(x.data(), y.data(), static_cast<int>(x.shape(0)), static_cast<int>(x.shape(1)),
                    ctx.attr<double>("eps"));
});
PROBE_KERNEL("scale", [](probe::replay_context& ctx) {  // by op name: two ops have type Mul
  auto x = ctx.input<float>("x", {-1, -1});
  auto w = ctx.input<float>("w", {x.shape(1)});
  scale_kernel(x.data(), w.data(), ctx.output<float>("y", x.shape()).data(), static_cast<int>(x.shape(0)),
               static_cast<int>(x.shape(1)));
});
PROBE_KERNEL("Sigmoid", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x");
  sigmoid_kernel(x.data(), ctx.output<float>("y", x.shape()).data(), x.size());
});
PROBE_KERNEL("mix", [](probe::replay_context& ctx) {
  auto a = ctx.input<float>("a");
  auto b = ctx.input<float>("b", a.shape());
  mul_kernel(a.data(), b.data(), ctx.output<float>("y", a.shape()).data(), a.size());
});

// ---- the engine's ops ----

void scale(const std::vector<float>& x, const std::vector<float>& w, std::vector<float>& y) {
  probe::op op("scale", "Mul");
  op.input("x", probe::view(x.data(), {rows, cols})).input("w", w);
  scale_kernel(x.data(), w.data(), y.data(), rows, cols);
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void norm(const std::vector<float>& x, std::vector<float>& y) {
  const double eps = 1e-5;
  probe::op op("norm", "LayerNorm");
  op.attr("eps", eps);  // what a replay of this op needs besides its input
  op.input("x", probe::view(x.data(), {rows, cols}));
  layer_norm_kernel(x.data(), y.data(), rows, cols, eps);
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void gate(const std::vector<float>& x, std::vector<float>& y) {
  probe::op op("gate", "Sigmoid");
  op.input("x", probe::view(x.data(), {rows, cols}));
  sigmoid_kernel(x.data(), y.data(), rows * cols);
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void mix(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& y) {
  probe::op op("mix", "Mul");
  op.input("a", probe::view(a.data(), {rows, cols})).input("b", probe::view(b.data(), {rows, cols}));
  mul_kernel(a.data(), b.data(), y.data(), rows * cols);
  op.output("y", probe::view(y.data(), {rows, cols}));
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) planted_bug = planted_bug || !std::strcmp(argv[i], "--bug");
  probe::init(argc, argv);  // with --probe_replay: replays the snapshots here and exits
  std::vector<float> x(rows * cols), w(cols), s(rows * cols), n(rows * cols), g(rows * cols), out(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = std::sin(0.7f * static_cast<float>(i)) + 0.3f;
  for (int c = 0; c < cols; ++c) w[c] = 1 + 0.01f * static_cast<float>(c);
  // scale -> norm -> mix, and scale -> gate -> mix: a diamond
  scale(x, w, s);
  norm(s, n);
  gate(s, g);
  mix(n, g, out);
  std::printf("%s kernels%s: out[0] = %.9g\n", probe::reference_mode() ? "naive" : "optimized",
              planted_bug ? " (with the planted bug)" : "", out[0]);
  return 0;
}
