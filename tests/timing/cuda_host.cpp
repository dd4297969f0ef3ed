// The host-compiler half of the CUDA test program: a plain C++ TU built with PROBE_WITH_CUDA
// (as the probe::cuda target builds host code), marking an op on device memory.
#include <probe/probe.hpp>

void host_side_op(float* device_x, int n, void* stream) {
  PROBE_SCOPE("host_scope");
  probe::op op("host_op", "Copy");
  op.input("x", probe::view(device_x, n).on_cuda(0, stream));
}
