// quickstart: a tiny two-layer network marked with probe. Run it with
//   PROBE_FLAGS="--probe_dump_to=/tmp/dump --probe_dump_as_npy" ./quickstart
// and every op's inputs and outputs land in /tmp/dump, with a manifest; add
// --probe_timing_summary for a table of the timed scopes at exit.
#include <probe/probe.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

// y[n, o] = sum_i x[n, i] * w[i, o]
void matmul(const std::vector<float>& x, const std::vector<float>& w, std::vector<float>& y,
            int n, int in, int out) {
  probe::op op("matmul", "MatMul");
  op.input("x", probe::view(x.data(), {n, in})).input("w", probe::view(w.data(), {in, out}));
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < out; ++c) {
      float s = 0;
      for (int k = 0; k < in; ++k) s += x[r * in + k] * w[k * out + c];
      y[r * out + c] = s;
    }
  op.output("y", probe::view(y.data(), {n, out}));
}

void relu(std::vector<float>& x) {
  probe::op op("relu", "Relu");
  op.input("x", x);
  for (float& v : x) v = v > 0 ? v : 0;
  op.output("y", x);
}

}  // namespace

int main(int argc, char** argv) {
  probe::init(argc, argv);
  const int n = 4, d_in = 8, d_hidden = 16, d_out = 3;
  std::vector<float> x(n * d_in), w1(d_in * d_hidden), w2(d_hidden * d_out);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1f * static_cast<float>(i));
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = std::cos(0.05f * static_cast<float>(i)) * 0.3f;
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = std::sin(0.07f * static_cast<float>(i)) * 0.2f;

  std::vector<float> h(n * d_hidden), y(n * d_out);
  probe::timer clock;  // starts now
  for (int step = 0; step < 2; ++step) {
    PROBE_SCOPE("forward");
    probe::set_step(step);
    matmul(x, w1, h, n, d_in, d_hidden);
    relu(h);
    matmul(h, w2, y, n, d_hidden, d_out);
  }
  clock.stop();
  // A debug print: the values are captured now, formatted and written off this thread.
  probe::print("step {}: y = {}", 1, probe::view(y.data(), {n, d_out}));
  // The grep-able line nightly scripts collect ("samples/s: <value>").
  probe::metric("samples/s", 2.0 * n / (clock.elapsed() + 1e-12));
  return 0;
}
