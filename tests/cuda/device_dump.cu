// Compiled by nvcc whenever CMake finds CUDA, against probe::compiled_cuda: device views and
// dumps of device tensors from a .cu file. It runs only where a GPU is present.
#include <probe/probe.hpp>

#include <cstdio>
#include <string>

#include <probe/core/tensor_reader.hpp>  // detail::read_tensor: a device tensor copied to the host

__global__ void scale(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: compiled only\n");
    return 0;
  }
  const int n = 1 << 20;
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  {
    probe::op op("scale", "Mul");
    op.input("x", probe::view(x, {n}).on_cuda(0, s));
    scale<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
    op.output("y", probe::view(y, {n}).on_cuda(0, s));
  }
  probe::tensor host;
  std::string err;
  const bool ok = probe::detail::read_tensor(probe::view(y, {n}).on_cuda(0, s), &host, &err);
  std::printf("%s %s\n", ok ? "read" : "failed", err.c_str());
  cudaStreamDestroy(s);
  cudaFree(x);
  cudaFree(y);
  return ok ? 0 : 1;
}
