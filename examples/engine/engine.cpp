// A small inference engine: a two-layer transformer (layer norm, one attention head with a
// causal softmax, residual stream updated in place, a GELU MLP) over a few tokens, marked as
// an inference runtime would be: every op named by its layer ("L1.attn"), with its
// attributes, its kernels registered for replay. Naive or optimized kernels per
// --probe_reference (kernels.hpp); --bug plants an error in the optimized softmax. The
// pooled output is summed by worker threads in the order they finish, unless the run asks
// for reproducible results (--probe_reproducible): probe jitter names that op.
//
//   ./engine [--tokens T] [--bug] [--optimize [--opt-bug]]
//
// The accuracy workflow on it: docs/walkthroughs/accuracy.md. With --optimize the MLP block
// goes through a tiny graph compiler first (optimizer.hpp; docs/walkthroughs/ir.md).
#include <probe/probe.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels.hpp"
#include "optimizer.hpp"

namespace engine {

bool planted_bug = false;

constexpr int dim = 64, hidden = 128, layers = 2;

// Deterministic weights: a fixed hash of the position, scaled to a small range.
std::vector<float> weights(uint64_t seed, size_t n, float scale) {
  std::vector<float> w(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t h = (seed + i) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    w[i] = scale * (static_cast<float>(h % 20001) / 10000.0f - 1.0f);
  }
  return w;
}

struct layer_weights {
  std::vector<float> ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2;
  explicit layer_weights(int l) {
    const uint64_t s = 1000u * static_cast<uint64_t>(l + 1);
    ln1_g.assign(dim, 1.0f), ln1_b.assign(dim, 0.0f), ln2_g.assign(dim, 1.0f), ln2_b.assign(dim, 0.0f);
    wq = weights(s + 1, dim * dim, 0.15f), wk = weights(s + 2, dim * dim, 0.15f);
    wv = weights(s + 3, dim * dim, 0.15f), wo = weights(s + 4, dim * dim, 0.15f);
    w1 = weights(s + 5, dim * hidden, 0.12f), b1 = weights(s + 6, hidden, 0.01f);
    w2 = weights(s + 7, hidden * dim, 0.12f), b2 = weights(s + 8, dim, 0.01f);
  }
};

// ---- ops: each marks its tensors around one kernel ----

std::string layer_name(int l, const char* what) { return "L" + std::to_string(l) + "." + what; }

void op_matmul(const std::string& name, const std::vector<float>& x, const std::vector<float>& w,
               const std::vector<float>* b, std::vector<float>& y, int m, int k, int n) {
  probe::op op(name, "MatMul");
  if (op.active()) {
    op.input("x", probe::view(x.data(), {m, k})).input("w", probe::view(w.data(), {k, n}));
    if (b) op.input("b", *b);
  }
  matmul(x.data(), w.data(), b ? b->data() : nullptr, y.data(), m, k, n);
  op.output("y", probe::view(y.data(), {m, n}));
}

void op_layer_norm(const std::string& name, const std::vector<float>& x, const std::vector<float>& g,
                   const std::vector<float>& b, std::vector<float>& y, int rows) {
  const double eps = 1e-5;
  probe::op op(name, "LayerNorm");
  op.attr("eps", eps);
  op.input("x", probe::view(x.data(), {rows, dim})).input("g", g).input("b", b);
  layer_norm(x.data(), g.data(), b.data(), y.data(), rows, dim, eps);
  op.output("y", probe::view(y.data(), {rows, dim}));
}

void op_attention(int l, const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                  std::vector<float>& y, int t) {
  probe::op op(layer_name(l, "attn"), "Attention");
  op.attr("causal", true);
  op.input("q", probe::view(q.data(), {t, dim})).input("k", probe::view(k.data(), {t, dim}));
  op.input("v", probe::view(v.data(), {t, dim}));
  attention(q.data(), k.data(), v.data(), y.data(), t, dim);
  op.output("y", probe::view(y.data(), {t, dim}));
}

void op_gelu(int l, const std::vector<float>& x, std::vector<float>& y, int t) {
  probe::op op(layer_name(l, "gelu"), "Gelu");
  op.input("x", probe::view(x.data(), {t, hidden}));
  gelu(x.data(), y.data(), static_cast<int64_t>(t) * hidden);
  op.output("y", probe::view(y.data(), {t, hidden}));
}

// The residual stream is updated in place: its state before is an input, after an output.
void op_residual(const std::string& name, std::vector<float>& x, const std::vector<float>& r, int t) {
  probe::op op(name, "Residual");
  op.input("x", probe::view(x.data(), {t, dim})).input("r", probe::view(r.data(), {t, dim}));
  residual_add(x.data(), r.data(), static_cast<int64_t>(t) * dim);
  op.output("x", probe::view(x.data(), {t, dim}));
}

// Mean over the tokens, by 8 workers that each sum a block of tokens. Fast path: each adds
// its partial sums into y as it finishes, so the order of the float additions (and the last
// bits of y) follows the scheduler. Under probe::reproducible_mode() the partial sums are
// added in worker order: the same bits every run.
void op_pool(const std::vector<float>& x, std::vector<float>& y, int t) {
  probe::op op("pool", "MeanPool");
  op.input("x", probe::view(x.data(), {t, dim}));
  constexpr int workers = 8;
  const bool reproducible = probe::reproducible_mode();
  std::vector<std::vector<float>> partial(workers, std::vector<float>(dim, 0.0f));
  std::fill(y.begin(), y.end(), 0.0f);
  std::mutex m;
  std::random_device noise;  // stands for what the scheduler does on a loaded machine
  std::vector<unsigned> delay_us(workers);
  for (unsigned& d : delay_us) d = noise() % 2000;
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (int i = w * t / workers; i < (w + 1) * t / workers; ++i)
        for (int d = 0; d < dim; ++d) partial[w][d] += x[static_cast<size_t>(i) * dim + d];
      if (reproducible) return;
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us[static_cast<size_t>(w)]));
      std::lock_guard<std::mutex> g(m);
      for (int d = 0; d < dim; ++d) y[d] += partial[w][d];
    });
  for (std::thread& th : pool) th.join();
  if (reproducible)
    for (int w = 0; w < workers; ++w)
      for (int d = 0; d < dim; ++d) y[d] += partial[w][d];
  for (float& e : y) e /= static_cast<float>(t);
  op.output("y", y);
}

// ---- the same kernels for replay: a snapshot's inputs and attributes in, outputs out ----

PROBE_KERNEL("MatMul", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x", {-1, -1});
  auto w = ctx.input<float>("w", {x.shape(1), -1});
  const float* b = ctx.has_input("b") ? ctx.input<float>("b", {w.shape(1)}).data() : nullptr;
  auto y = ctx.output<float>("y", {x.shape(0), w.shape(1)});
  matmul(x.data(), w.data(), b, y.data(), static_cast<int>(x.shape(0)), static_cast<int>(x.shape(1)),
         static_cast<int>(w.shape(1)));
});
PROBE_KERNEL("LayerNorm", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x", {-1, -1});
  auto g = ctx.input<float>("g", {x.shape(1)});
  auto b = ctx.input<float>("b", {x.shape(1)});
  layer_norm(x.data(), g.data(), b.data(), ctx.output<float>("y", x.shape()).data(), static_cast<int>(x.shape(0)),
             static_cast<int>(x.shape(1)), ctx.attr<double>("eps"));
});
PROBE_KERNEL("Attention", [](probe::replay_context& ctx) {
  auto q = ctx.input<float>("q", {-1, -1});
  auto k = ctx.input<float>("k", q.shape());
  auto v = ctx.input<float>("v", q.shape());
  attention(q.data(), k.data(), v.data(), ctx.output<float>("y", q.shape()).data(), static_cast<int>(q.shape(0)),
            static_cast<int>(q.shape(1)));
});
PROBE_KERNEL("Gelu", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x");
  gelu(x.data(), ctx.output<float>("y", x.shape()).data(), x.size());
});
PROBE_KERNEL("Residual", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x", {-1, -1});
  auto r = ctx.input<float>("r", x.shape());
  auto y = ctx.output<float>("x", x.shape());
  std::memcpy(y.data(), x.data(), static_cast<size_t>(x.size()) * sizeof(float));
  residual_add(y.data(), r.data(), x.size());
});

PROBE_KERNEL("MeanPool", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x", {-1, -1});
  auto y = ctx.output<float>("y", {x.shape(1)});
  for (int64_t d = 0; d < x.shape(1); ++d) {
    float sum = 0;
    for (int64_t i = 0; i < x.shape(0); ++i) sum += x.data()[i * x.shape(1) + d];
    y.data()[d] = sum / static_cast<float>(x.shape(0));
  }
});

}  // namespace engine

int main(int argc, char** argv) {
  using namespace engine;
  int tokens = 16;
  bool optimize = false, opt_bug = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bug")) planted_bug = true;
    else if (!std::strcmp(argv[i], "--optimize")) optimize = true;
    else if (!std::strcmp(argv[i], "--opt-bug")) optimize = opt_bug = true;
    else if (!std::strcmp(argv[i], "--tokens") && i + 1 < argc) tokens = std::atoi(argv[++i]);
  }
  probe::init(argc, argv);  // with --probe_replay: replays the snapshots here and exits
  if (tokens < 1 || tokens > 256) {
    std::fprintf(stderr, "engine: --tokens takes 1 to 256\n");
    return 2;
  }
  const int t = tokens;
  std::vector<float> x = weights(7, static_cast<size_t>(t) * dim, 1.0f);  // the embedded tokens
  std::vector<float> h(t * dim), q(t * dim), k(t * dim), v(t * dim), a(t * dim), o(t * dim);
  std::vector<float> f1(t * hidden), f2(t * hidden), m(t * dim);
  for (int l = 0; l < layers; ++l) {
    const layer_weights w(l);
    probe::set_step(0);
    op_layer_norm(layer_name(l, "ln1"), x, w.ln1_g, w.ln1_b, h, t);
    op_matmul(layer_name(l, "q"), h, w.wq, nullptr, q, t, dim, dim);
    op_matmul(layer_name(l, "k"), h, w.wk, nullptr, k, t, dim, dim);
    op_matmul(layer_name(l, "v"), h, w.wv, nullptr, v, t, dim, dim);
    op_attention(l, q, k, v, a, t);
    op_matmul(layer_name(l, "proj"), a, w.wo, nullptr, o, t, dim, dim);
    op_residual(layer_name(l, "res1"), x, o, t);
    op_layer_norm(layer_name(l, "ln2"), x, w.ln2_g, w.ln2_b, h, t);
    if (optimize) {
      optimized_mlp(l, mlp_weights{&w.w1, &w.b1, &w.w2, &w.b2}, h, m, t, dim, hidden, opt_bug);
    } else {
      op_matmul(layer_name(l, "fc1"), h, w.w1, &w.b1, f1, t, dim, hidden);
      op_gelu(l, f1, f2, t);
      op_matmul(layer_name(l, "fc2"), f2, w.w2, &w.b2, m, t, hidden, dim);
    }
    op_residual(layer_name(l, "res2"), x, m, t);
  }
  std::vector<float> pooled(dim), logits(8);
  op_pool(x, pooled, t);
  op_matmul("head", pooled, weights(9, dim * 8, 0.15f), nullptr, logits, 1, dim, 8);
  double checksum = 0;
  for (float e : x) checksum += e;
  std::printf("%s kernels%s: %d tokens, checksum %.6f\n", probe::reference_mode() ? "naive" : "optimized",
              planted_bug ? " (with the planted bug)" : "", t, checksum);
  return 0;
}
