// An engine-like program for the replay tests: four ops with replayable kernels (two
// registered statically with PROBE_KERNEL, two at run time), each kernel the same code the
// engine runs. Options (before any --probe_* flag):
//   --bug         the optimized LayerNorm divides by a wrong count
//   --crash       one more op, "explode", whose kernel dereferences null on negative input
//   --with-tail   one more op, "tail" (type Tail), for which no kernel is registered
//   --no-runtime  do not register the run-time kernels (Sigmoid, and "mix" by name)
//   --hostile N   one more op named N (any bytes: slashes, dots, spaces) of type Sigmoid
// With --probe_reference the naive kernels run (double precision, two passes).
#include <probe/probe.hpp>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int rows = 8, cols = 64;
bool planted_bug = false;

// ---- the engine's kernels (plain functions on pointers) ----

void scale_kernel(const float* x, const float* w, float* y, int r, int c) {
  for (int i = 0; i < r * c; ++i) y[i] = x[i] * w[i % c];
}

void layer_norm_kernel(const float* x, float* y, int r, int c, double eps, bool naive) {
  for (int i = 0; i < r; ++i) {
    const float* row = x + static_cast<size_t>(i) * c;
    double mean = 0, var = 0;
    if (naive) {
      for (int k = 0; k < c; ++k) mean += row[k];
      mean /= c;
      for (int k = 0; k < c; ++k) var += (row[k] - mean) * (row[k] - mean);
      var /= c;
    } else {
      float s = 0, sq = 0;
      for (int k = 0; k < c; ++k) s += row[k], sq += row[k] * row[k];
      const int n = planted_bug ? c - 1 : c;  // the planted bug: a wrong count
      mean = s / c;
      var = sq / n - mean * mean;
    }
    for (int k = 0; k < c; ++k) y[static_cast<size_t>(i) * c + k] = static_cast<float>((row[k] - mean) / std::sqrt(var + eps));
  }
}

void sigmoid_kernel(const float* x, float* y, int64_t n, bool naive) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = naive ? static_cast<float>(1 / (1 + std::exp(-static_cast<double>(x[i])))) : 0.5f + 0.5f * std::tanh(0.5f * x[i]);
}

void hadamard_kernel(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

void explode_kernel(const float* x, float* y, int64_t n) {
  // Negative input: the kernel dies of SIGSEGV, as a bad write would (raised, not done: a
  // real null write is undefined behaviour, which UBSan builds report instead of crashing).
  if (x[0] < 0) std::raise(SIGSEGV);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i];
}

// ---- the same kernels, wrapped for replay ----

void scale_replay(probe::replay_context& ctx) {
  auto x = ctx.input<float>("x");
  auto w = ctx.input<float>("w", {x.shape(1)});
  auto y = ctx.output<float>("y", x.shape());
  scale_kernel(x.data(), w.data(), y.data(), static_cast<int>(x.shape(0)), static_cast<int>(x.shape(1)));
}
PROBE_KERNEL("Mul", scale_replay);

void layer_norm_replay(probe::replay_context& ctx) {
  auto x = ctx.input<float>("x", {-1, -1});
  auto y = ctx.output<float>("y", x.shape());
  layer_norm_kernel(x.data(), y.data(), static_cast<int>(x.shape(0)), static_cast<int>(x.shape(1)),
                    ctx.attr<double>("eps"), probe::reference_mode());
}
PROBE_KERNEL("LayerNorm", layer_norm_replay);

PROBE_KERNEL("Explode", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x");
  explode_kernel(x.data(), ctx.output<float>("y", x.shape()).data(), x.size());
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
  op.attr("eps", eps).attr("axis", 1).attr("mode", "rows").attr("normalized_shape", {cols});
  op.input("x", probe::view(x.data(), {rows, cols}));
  layer_norm_kernel(x.data(), y.data(), rows, cols, eps, probe::reference_mode());
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void gate(const std::vector<float>& x, std::vector<float>& y) {
  probe::op op("gate", "Sigmoid");
  op.input("x", probe::view(x.data(), {rows, cols}));
  sigmoid_kernel(x.data(), y.data(), rows * cols, probe::reference_mode());
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void mix(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& y) {
  probe::op op("mix", "Hadamard");
  op.input("a", probe::view(a.data(), {rows, cols})).input("b", probe::view(b.data(), {rows, cols}));
  hadamard_kernel(a.data(), b.data(), y.data(), rows * cols);
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void tail(const std::vector<float>& x, std::vector<float>& y) {
  probe::op op("tail", "Tail");
  op.input("x", probe::view(x.data(), {rows, cols}));
  for (int i = 0; i < rows * cols; ++i) y[i] = x[i] + 1;
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void hostile(const std::string& name, const std::vector<float>& x, std::vector<float>& y) {
  probe::op op(name, "Sigmoid");
  op.input("x", probe::view(x.data(), {rows, cols}));
  sigmoid_kernel(x.data(), y.data(), rows * cols, probe::reference_mode());
  op.output("y", probe::view(y.data(), {rows, cols}));
}

void explode(const std::vector<float>& x, std::vector<float>& y) {
  probe::op op("explode", "Explode");
  op.input("x", probe::view(x.data(), {rows, cols}));
  explode_kernel(x.data(), y.data(), rows * cols);
  op.output("y", probe::view(y.data(), {rows, cols}));
}

}  // namespace

int main(int argc, char** argv) {
  bool crash = false, with_tail = false, runtime = true;
  std::vector<std::string> hostile_names;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--hostile") && i + 1 < argc) hostile_names.push_back(argv[++i]);
    planted_bug = planted_bug || !std::strcmp(argv[i], "--bug");
    crash = crash || !std::strcmp(argv[i], "--crash");
    with_tail = with_tail || !std::strcmp(argv[i], "--with-tail");
    runtime = runtime && std::strcmp(argv[i], "--no-runtime") != 0;
  }
  // Run-time registrations come before probe::init, which replays when asked to.
  if (runtime) {
    probe::register_kernel("Sigmoid", [](probe::replay_context& ctx) {
      auto x = ctx.input<float>("x");
      sigmoid_kernel(x.data(), ctx.output<float>("y").data(), x.size(), probe::reference_mode());
    });
    probe::register_kernel("mix", [](probe::replay_context& ctx) {  // by op name
      auto a = ctx.input<float>("a");
      auto b = ctx.input<float>("b", a.shape());
      hadamard_kernel(a.data(), b.data(), ctx.output<float>("y").data(), a.size());
    });
  }
  probe::init(argc, argv);

  std::vector<float> x(rows * cols), w(cols), s(rows * cols), n(rows * cols), g(rows * cols), out(rows * cols), t(rows * cols);
  for (int i = 0; i < rows * cols; ++i) x[i] = std::sin(0.7f * static_cast<float>(i)) + 0.3f;
  for (int c = 0; c < cols; ++c) w[c] = 1 + 0.01f * static_cast<float>(c);
  scale(x, w, s);
  norm(s, n);
  gate(s, g);
  mix(n, g, out);
  if (with_tail) tail(out, t);
  for (const std::string& name : hostile_names) hostile(name, out, t);
  if (crash) {
    std::vector<float> negative(out);
    negative[0] = -1;
    std::fflush(stdout);
    explode(negative, t);
  }
  std::printf("%s kernels%s: out[0] = %.9g\n", probe::reference_mode() ? "naive" : "optimized",
              planted_bug ? " (with the planted bug)" : "", out[0]);
  return 0;
}
