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
#include <probe/probe.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int rows = 8, cols = 64;
bool planted_bug = false;

// y = x * w (a per-column scale): the same in both modes
void scale(const std::vector<float>& x, const std::vector<float>& w, std::vector<float>& y) {
  probe::op op("scale", "Mul");
  op.input("x", probe::view(x.data(), {rows, cols})).input("w", w);
  for (int i = 0; i < rows * cols; ++i) y[i] = x[i] * w[i % cols];
  op.output("y", probe::view(y.data(), {rows, cols}));
}

// Layer normalization of each row: two passes in double (naive), or one pass in float.
void norm(const std::vector<float>& x, std::vector<float>& y) {
  probe::op op("norm", "LayerNorm");
  op.input("x", probe::view(x.data(), {rows, cols}));
  for (int r = 0; r < rows; ++r) {
    const float* row = &x[r * cols];
    double mean = 0, var = 0;
    if (probe::reference_mode()) {
      for (int c = 0; c < cols; ++c) mean += row[c];
      mean /= cols;
      for (int c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
      var /= cols;
    } else {
      float s = 0, sq = 0;
      for (int c = 0; c < cols; ++c) s += row[c], sq += row[c] * row[c];
      const int n = planted_bug ? cols - 1 : cols;  // the bug: a wrong count
      mean = s / cols;
      var = sq / n - mean * mean;
    }
    for (int c = 0; c < cols; ++c) y[r * cols + c] = static_cast<float>((row[c] - mean) / std::sqrt(var + 1e-5));
  }
  op.output("y", probe::view(y.data(), {rows, cols}));
}

// Logistic gate: 1 / (1 + exp(-x)), or the tanh form.
void gate(const std::vector<float>& x, std::vector<float>& y) {
  probe::op op("gate", "Sigmoid");
  op.input("x", probe::view(x.data(), {rows, cols}));
  for (int i = 0; i < rows * cols; ++i)
    y[i] = probe::reference_mode() ? static_cast<float>(1 / (1 + std::exp(-static_cast<double>(x[i]))))
                                   : 0.5f + 0.5f * std::tanh(0.5f * x[i]);
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void mul(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& y) {
  probe::op op("mix", "Mul");
  op.input("a", probe::view(a.data(), {rows, cols})).input("b", probe::view(b.data(), {rows, cols}));
  for (int i = 0; i < rows * cols; ++i) y[i] = a[i] * b[i];
  op.output("y", probe::view(y.data(), {rows, cols}));
}

}  // namespace

int main(int argc, char** argv) {
  probe::init(argc, argv);
  for (int i = 1; i < argc; ++i) planted_bug = planted_bug || !std::strcmp(argv[i], "--bug");
  std::vector<float> x(rows * cols), w(cols), s(rows * cols), n(rows * cols), g(rows * cols), out(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = std::sin(0.7f * static_cast<float>(i)) + 0.3f;
  for (int c = 0; c < cols; ++c) w[c] = 1 + 0.01f * static_cast<float>(c);
  // scale -> norm -> mix, and scale -> gate -> mix: a diamond
  scale(x, w, s);
  norm(s, n);
  gate(s, g);
  mul(n, g, out);
  std::printf("%s kernels%s: out[0] = %.9g\n", probe::reference_mode() ? "naive" : "optimized",
              planted_bug ? " (with the planted bug)" : "", out[0]);
  return 0;
}
