// probe::print and probe::callback on device tensors: the copy is queued on the tensor's
// stream behind the kernel that writes it, and the caller does not wait for the kernel.
// Compiled by nvcc whenever CMake finds CUDA; it runs only where a GPU is present.
#include <probe/probe.hpp>

#include <chrono>
#include <cstdio>

__global__ void slow_fill(float* y, int n, long long spin_cycles) {
  const long long start = clock64();
  while (clock64() - start < spin_cycles) {
  }
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.5f * static_cast<float>(i);
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: compiled only\n");
    return 0;
  }
  const int n = 1024;
  float* y = nullptr;
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(y, 0, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  int rate_khz = 1000000;
  cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0);
  slow_fill<<<(n + 255) / 256, 256, 0, s>>>(y, n, static_cast<long long>(rate_khz) * 300);  // ~300 ms

  double seen_sum = -1;
  const auto t0 = std::chrono::steady_clock::now();
  const probe::tensor_view dev = probe::view(y, {n}).on_cuda(0, s);
  probe::print("first four: {}", probe::view(y, {4}).on_cuda(0, s));
  probe::callback(
      [&seen_sum](probe::tensor_view t) {
        double sum = 0;
        for (int64_t i = 0; i < t.numel(); ++i) sum += static_cast<const float*>(t.data)[i];
        seen_sum = sum;
      },
      dev);
  const double caller_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  probe::effects_barrier();
  const double expect = 0.5 * (n - 1) * n / 2;
  std::printf("caller %.2f ms, callback saw %g (expected %g)\n", caller_ms, seen_sum, expect);
  cudaStreamDestroy(s);
  cudaFree(y);
  // The copy ran after the kernel (stream order), and the caller did not wait for the kernel.
  return seen_sum == expect && caller_ms < 100 ? 0 : 1;
}
