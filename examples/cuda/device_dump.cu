// Device tensors in a dump: a two-op layer (y = relu(a * x + b)) runs on the GPU and marks its
// device buffers with .on_cuda(device, stream); probe copies them to the host through pinned
// staging, ordered on the stream, and writes .npy files that numpy reads.
//
//   PROBE_FLAGS="--probe_dump_to=/tmp/cuda_dump --probe_dump_as_npy" ./cuda_device_dump
#include <probe/probe.hpp>

#include <vector>

#include "cuda_check.hpp"

__global__ void axpb(const float* x, float a, float b, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
__global__ void relu(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && y[i] < 0) y[i] = 0;
}

int main(int argc, char** argv) {
  probe::init(argc, argv);
  require_cuda_device("cuda_device_dump");
  const int n = 4096;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 64) - 32;
  float *x = nullptr, *y = nullptr;
  CUDA_CHECK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, n * sizeof(float)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  CUDA_CHECK(cudaMemcpyAsync(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  for (int step = 0; step < 3; ++step) {
    probe::set_step(step);
    {
      probe::op op("axpb", "Affine");
      op.input("x", probe::view(x, {n}).on_cuda(0, s));
      axpb<<<(n + 255) / 256, 256, 0, s>>>(x, 0.5f, 1.0f, y, n);
      op.output("y", probe::view(y, {n}).on_cuda(0, s));
    }
    {
      probe::op op("relu", "Relu");
      op.input("y", probe::view(y, {n}).on_cuda(0, s));
      relu<<<(n + 255) / 256, 256, 0, s>>>(y, n);
      op.output("y", probe::view(y, {n}).on_cuda(0, s));
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  probe::flush();
  std::printf("y[0] = %g, y[63] = %g\n", host[0], host[63]);  // relu(0.5 * -32 + 1) = 0; 0.5 * 31 + 1 = 16.5
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return host[0] == 0.0f && host[63] == 16.5f ? 0 : 1;
}
