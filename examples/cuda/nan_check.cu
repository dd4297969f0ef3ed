// A NaN produced on the device, caught where it appears: probe::breakpoint_if_nonfinite
// reads the device tensor (staged to the host) and stops only when it holds NaN or Inf.
// Off a terminal the stop writes the variables as .npy and goes on; with
// --probe_breakpoint=trap it raises SIGTRAP for cuda-gdb/gdb.
//
//   PROBE_FLAGS="--probe_breakpoint=dump" ./cuda_nan_check
#include <probe/probe.hpp>

#include "cuda_check.hpp"

__global__ void normalize(const float* x, float norm, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / norm;  // norm = 0 at step 2: 0/0 = NaN, x/0 = inf
}

int main(int argc, char** argv) {
  probe::init(argc, argv);
  require_cuda_device("cuda_nan_check");
  const int n = 256;
  float *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(x, 0, n * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  for (int step = 0; step < 4; ++step) {
    probe::set_step(step);
    const float norm = step == 2 ? 0.0f : 1.0f + step;
    normalize<<<1, 256, 0, s>>>(x, norm, y, n);
    probe::breakpoint_if_nonfinite("y", probe::view(y, {n}).on_cuda(0, s));
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::printf("done\n");
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
