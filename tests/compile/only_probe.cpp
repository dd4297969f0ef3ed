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
