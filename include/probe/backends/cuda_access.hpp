// CUDA implementation of device_access: pinned staging buffers and asynchronous
// device -> host copies ordered on the tensor's stream. Each copy is tracked by an event, so
// waiting for one copy never synchronizes the whole stream or device.
// Compiled only with CUDA (PROBE_WITH_CUDA or nvcc). Internal header.
#pragma once
#include "../util/config.hpp"

#if defined(PROBE_WITH_CUDA)
#include <cuda_runtime_api.h>

#include "../core/device_access.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class cuda_access final : public device_access {
 public:
  const char* name() const noexcept override { return "cuda"; }

  void* alloc_staging(size_t bytes) noexcept override {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error so the host's next call is unaffected
      return nullptr;
    }
    return p;
  }
  void free_staging(void* p) noexcept override {
    if (p) cudaFreeHost(p);
  }

  uintptr_t start_copy(void* dst, const void* src, size_t n, const device& dev, void* stream,
                       const char** err) noexcept override {
    int prev = 0;
    cudaGetDevice(&prev);
    if (prev != dev.index && cudaSetDevice(dev.index) != cudaSuccess) return fail(err, prev);
    cudaEvent_t ev = nullptr;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
        cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventRecord(ev, s) != cudaSuccess) {
      if (ev) cudaEventDestroy(ev);
      return fail(err, prev);
    }
    if (prev != dev.index) cudaSetDevice(prev);
    return reinterpret_cast<uintptr_t>(ev);
  }

  bool wait_copy(uintptr_t token, const char** err) noexcept override {
    cudaEvent_t ev = reinterpret_cast<cudaEvent_t>(token);
    const cudaError_t e = cudaEventSynchronize(ev);
    cudaEventDestroy(ev);
    if (e != cudaSuccess) {
      *err = cudaGetErrorString(e);
      cudaGetLastError();
      return false;
    }
    return true;
  }

 private:
  static uintptr_t fail(const char** err, int prev_device) noexcept {
    *err = cudaGetErrorString(cudaGetLastError());
    cudaSetDevice(prev_device);
    return 0;
  }
};

// Registered during static initialization of any TU compiled with CUDA. A variable rather
// than a call in the wiring, so that TUs built with and without CUDA in one program still
// share identical inline functions (no ODR conflict) and CUDA support is never lost.
inline const bool g_cuda_access_registered = [] {
  set_device_access(device::cuda, new cuda_access());
  return true;
}();

}  // namespace detail
PROBE_END_NAMESPACE
#endif  // PROBE_WITH_CUDA
