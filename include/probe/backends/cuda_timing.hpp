// CUDA for timing: NVTX ranges for scopes and ops (Nsight Systems shows them), and device op
// timing with CUDA events. Compiled with the implementation only under PROBE_WITH_CUDA
// (defined by nvcc, or by the build: the probe::cuda CMake target); every TU that compiles
// it installs the same backend during static initialization, so TUs built without CUDA share
// one timing core with those built with it. Internal header.
//
// Needs the CUDA runtime (cudart) at link time and the toolkit's include directory (nvtx3 is
// header-only and ships with the toolkit).
#pragma once
#include "../util/immortal.hpp"
#include "../util/config.hpp"

#if defined(PROBE_WITH_CUDA) && !defined(PROBE_DISABLE)
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "../effects/device_timing_api.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class cuda_event_api final : public gpu_event_api {
 public:
  void* create_event(int device) noexcept override {
    int current = -1;
    if (!check(cudaGetDevice(&current))) return nullptr;
    if (current != device && !check(cudaSetDevice(device))) return nullptr;
    cudaEvent_t e = nullptr;
    // Timing events, not blocking-sync: only queried, never waited for while running.
    const bool ok = check(cudaEventCreateWithFlags(&e, cudaEventDefault));
    if (current != device) cudaSetDevice(current);
    return ok ? static_cast<void*>(e) : nullptr;
  }
  void destroy_event(void* e) noexcept override { cudaEventDestroy(static_cast<cudaEvent_t>(e)); }
  bool record(void* e, void* stream) noexcept override {
    return check(cudaEventRecord(static_cast<cudaEvent_t>(e), static_cast<cudaStream_t>(stream)));
  }
  int query(void* e) noexcept override {
    const cudaError_t r = cudaEventQuery(static_cast<cudaEvent_t>(e));
    if (r == cudaSuccess) return 1;
    if (r == cudaErrorNotReady) return 0;
    check(r);
    return -1;
  }
  bool wait(void* e) noexcept override { return check(cudaEventSynchronize(static_cast<cudaEvent_t>(e))); }
  bool elapsed_ms(void* from, void* to, float* ms) noexcept override {
    return check(cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(from), static_cast<cudaEvent_t>(to)));
  }
  const char* last_error() noexcept override { return error_; }

 private:
  bool check(cudaError_t r) noexcept {
    if (r == cudaSuccess) return true;
    error_ = cudaGetErrorString(r);
    return false;
  }
  const char* error_ = "no error";
};

inline void nvtx_range_push(const char* name) noexcept { nvtxRangePushA(name); }
inline void nvtx_range_pop() noexcept { nvtxRangePop(); }

inline bool install_cuda_timing() noexcept {
  static immortal<cuda_event_api> events_storage;  // never destroyed: used at exit
  cuda_event_api* const events = &events_storage.get();
  static const range_hooks nvtx{&nvtx_range_push, &nvtx_range_pop};
  set_gpu_backend(events, &nvtx);
  return true;
}
inline const bool g_cuda_timing_installed = install_cuda_timing();

}  // namespace detail
PROBE_END_NAMESPACE
#endif
