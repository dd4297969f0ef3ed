// An engine file in C++11/14 with probe compiled out: every mark still compiles.
#include <probe/probe.hpp>

#include <vector>

int old_standard_kernel(std::vector<float>& x, int step) {
  probe::set_step(step);
  probe::op op("scale", "Mul");
  op.input("x", x);
  const float* samples[] = {x.data()};
  op.input("batch", probe::batch_view(samples, 1, probe::view(x.data(), {static_cast<int64_t>(x.size())})));
  const probe::op_context ctx = probe::current_op_context();
  probe::adopt_op_context adopt(ctx);
  PROBE_SCOPE("kernel");
  for (float& v : x) v *= 2;
  op.output("x", probe::view(x.data(), {static_cast<int64_t>(x.size())}));
  {
    probe::op layer("rope", "RoPE", step);
    if (layer.records_tensors()) layer.inout("x", x);
    layer.end();
  }
  // wrap calls fn with the values it accepts, else with none
  const std::vector<float> w(x);
  const int summed = probe::wrap(
      "add", [](const std::vector<float>& a, std::vector<float>& b) {
        for (size_t i = 0; i < b.size(); ++i) b[i] += a[i];
        return 1;
      },
      probe::in("w", w), probe::out("x", x));
  probe::wrap("none", [] {}, probe::in("x", x));
  probe::print("x[0] = {}", x[0] + static_cast<float>(summed));
  PROBE_BREAKPOINT(probe::var("x", x));
  probe::breakpoint_if_nonfinite("x", x);
  probe::timer t;
  probe::metric("MLUPS", 1.5);
  return op.active() ? 1 : static_cast<int>(t.elapsed() >= 0);
}
