// A library loaded with dlopen that times a scope many times (a loop's, so its events are
// still buffered when the host unloads it) and runs an op.
#include <probe/probe.hpp>

#include <vector>

extern "C" void plugin_run() {
  for (int i = 0; i < 100; ++i) {
    PROBE_SCOPE("plugin_scope");
  }
  std::vector<float> v{1, 2};
  probe::op op("plugin_op", "Plugin");
  op.input("v", v);
}
