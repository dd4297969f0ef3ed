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
