// probe::print of a kernel's output, on its stream: the device tensor is captured when
// print is called (an asynchronous copy ordered after the kernel, into pinned memory), and
// the line is formatted off the caller's thread. The host never waits for the stream here.
#include <probe/probe.hpp>

#include "cuda_check.hpp"

__global__ void iota_squares(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = static_cast<float>(i) * static_cast<float>(i);
}

int main(int argc, char** argv) {
  probe::init(argc, argv);
  require_cuda_device("cuda_stream_print");
  const int n = 10;
  float* y = nullptr;
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  for (int step = 0; step < 3; ++step) {
    iota_squares<<<1, 32, 0, s>>>(y, n);
    probe::print(probe::ordered, "step {}: y = {}", step, probe::view(y, {n}).on_cuda(0, s));
  }
  probe::effects_barrier();  // every print has run (expected: y = [ 0.  1.  4. ... 81.])
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
