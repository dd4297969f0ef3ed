// Compiles the public header alone (see CMakeLists.txt for the modes and warnings).
#include <probe/probe.hpp>

int probe_compile_check(int argc, char** argv) {
  probe::init(argc, argv);
  float x[4] = {1, 2, 3, 4};
  PROBE_SCOPE("compile_check");
  probe::timer t("compile_timer");
  probe::metric("compile_metric", t.elapsed());
  probe::op op("conv1", "Conv");
  op.input("x", probe::view(x, {2, 2}));
  op.output("y", probe::view(x, {4}));
  return probe::wrap("f", [] { return 1; }) + (probe::reference_mode() ? 1 : 0);
}

// Tensor helpers reachable from the one include: half conversions always, health stats and
// the npy codec wherever the implementation is compiled.
float probe_compile_check_tensors(const float* x) {
  float r = probe::to_float(probe::to_float16(x[0])) + probe::to_float(probe::to_bfloat16(x[1]));
#if PROBE_HAS_IMPLEMENTATION
  const probe::health h = probe::compute_health(probe::view(x, 4));
  r += static_cast<float>(h.mean) + static_cast<float>(probe::npy::header_for(probe::view(x, 4)).size());
#endif
  return r;
}

// Debug effects: print, callback, barrier, breakpoints (in PROBE_DISABLE mode variables used
// only by them raise no warnings).
int probe_compile_check_debug(const float* x, int n) {
  int seen = 0;
  const int only_for_breakpoint = n * 2;
  probe::print("n={} x={}", n, probe::view(x, n));
  probe::print(probe::ordered, "{}", "ordered");
  probe::callback([&seen](int v, probe::tensor_view t) { seen = v + static_cast<int>(t.numel()); }, n, probe::view(x, n));
  probe::callback(probe::ordered, [] {});
  probe::effects_barrier();
  probe::breakpoint_if_nonfinite("x", probe::view(x, n));
  if (n < 0) PROBE_BREAKPOINT(probe::var("x", probe::view(x, n)), probe::var("twice", only_for_breakpoint));
  PROBE_BREAKPOINT();
  return seen + probe::breakpoint_quit_status;
}
