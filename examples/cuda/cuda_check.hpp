// What every CUDA example does first: find a device, or say that there is none and exit with
// 77 (ctest's "skipped"), so the examples build and are tested everywhere nvcc exists.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

inline void require_cuda_device(const char* example) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("%s: no CUDA device here, skipped (compiled only)\n", example);
    std::exit(77);
  }
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  std::printf("%s: on %s\n", example, p.name);
}

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    const cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
