// probe's timing under nvcc: PROBE_SCOPE, ops with device tensors (CUDA events on the op's
// stream, NVTX ranges), metrics. Built whenever CMake finds CUDA. On a machine without a GPU
// it still runs: device timing reports once that it is off and everything else works.
#include <probe/probe.hpp>

#include <cstdio>

void host_side_op(float* device_x, int n, void* stream);  // cuda_host.cpp

__global__ void scale(float* x, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  const int n = 1 << 16;
  float* x = nullptr;
  cudaStream_t stream = nullptr;
  const bool device = cudaMalloc(&x, n * sizeof(float)) == cudaSuccess &&
                      cudaStreamCreate(&stream) == cudaSuccess;
  std::printf("device: %s\n", device ? "yes" : "no");
  for (int step = 0; step < 3; ++step) {
    PROBE_SCOPE("cuda_step");
    probe::op op("scale", "Mul");
    op.input("x", probe::view(x, n).on_cuda(0, stream));
    if (device) scale<<<(n + 255) / 256, 256, 0, stream>>>(x, n, 2.0f);
    op.output("x", probe::view(x, n).on_cuda(0, stream));
  }
  host_side_op(x, n, stream);
  probe::metric("steps", 3);
  if (device) {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
    cudaFree(x);
  }
  return 0;
}
