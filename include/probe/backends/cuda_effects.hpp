// CUDA executor for asynchronous effects (probe::print, probe::callback): a device tensor is
// copied into pinned staging by a copy queued on the tensor's stream, followed by a host
// function on the same stream that marks the record ready. The caller never synchronizes
// the stream; the values are those the tensor holds when the stream reaches the print.
// Strided device tensors go through the host executor (a synchronous copy).
// Compiled only with CUDA (PROBE_WITH_CUDA or nvcc). Internal header.
#pragma once
#include "../util/config.hpp"

#if defined(PROBE_WITH_CUDA)
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "../util/sync.hpp"
#include "../effects/capture.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Pinned buffers by power-of-two size class, reused: allocating and freeing pinned memory
// costs far more than a print, and cudaFreeHost can synchronize the device.
class pinned_pool {
 public:
  static constexpr size_t k_header = 64;  // keeps the data 64-byte aligned; holds the class
  void* take(size_t bytes) noexcept {
    const int c = size_class(bytes);
    {
      lock_guard<mutex> g(m_);
      if (free_[c]) {
        block* b = free_[c];
        free_[c] = b->next;
        cached_ -= class_bytes(c);
        return reinterpret_cast<char*>(b) + k_header;
      }
    }
    void* p = nullptr;
    if (cudaHostAlloc(&p, class_bytes(c) + k_header, cudaHostAllocDefault) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    static_cast<block*>(p)->size_class = c;
    return static_cast<char*>(p) + k_header;
  }
  void give(void* data) noexcept {
    if (!data) return;
    block* b = reinterpret_cast<block*>(static_cast<char*>(data) - k_header);
    const int c = b->size_class;
    {
      lock_guard<mutex> g(m_);
      if (cached_ + class_bytes(c) <= k_max_cached) {
        b->next = free_[c];
        free_[c] = b;
        cached_ += class_bytes(c);
        return;
      }
    }
    cudaFreeHost(b);
  }

 private:
  struct block {
    block* next;
    int size_class;
  };
  static constexpr size_t k_max_cached = size_t(256) << 20;
  static int size_class(size_t bytes) noexcept {
    int c = 12;  // 4 KiB at least
    while (c < 62 && (size_t(1) << c) < bytes) ++c;
    return c;
  }
  static size_t class_bytes(int c) noexcept { return size_t(1) << c; }
  mutex m_;
  block* free_[64] = {};
  size_t cached_ = 0;
};

class cuda_capture_executor final : public capture_executor {
 public:
  bool handles(const tensor_view& v) const noexcept override {
    return v.where.kind == device::cuda && v.is_contiguous();
  }

  capture_status capture(const tensor_view& v, void** host, effect_record* r, std::string* err) noexcept override {
    ensure_exit_drain();
    const size_t n = v.nbytes();
    void* stage = pool_.take(n);
    if (!stage) return fail(err, "cannot allocate pinned staging memory");
    int prev = 0;
    cudaGetDevice(&prev);
    if (prev != v.where.index && cudaSetDevice(v.where.index) != cudaSuccess) {
      pool_.give(stage);
      return fail(err, cudaGetErrorString(cudaGetLastError()));
    }
    cudaStream_t s = static_cast<cudaStream_t>(v.stream);
    capture_status status = capture_status::pending;
    if (n && cudaMemcpyAsync(stage, v.data, n, cudaMemcpyDeviceToHost, s) != cudaSuccess) {
      pool_.give(stage);
      status = fail(err, cudaGetErrorString(cudaGetLastError()));
    } else if (cudaLaunchHostFunc(s, &copied, r) != cudaSuccess) {
      const char* why = cudaGetErrorString(cudaGetLastError());
      // The copy is queued: wait for it before the staging can be reused (error path only).
      cudaStreamSynchronize(s);
      cudaGetLastError();
      pool_.give(stage);
      status = fail(err, why);
    }
    if (prev != v.where.index) cudaSetDevice(prev);
    if (status == capture_status::pending) *host = stage;
    return status;
  }

  void release(void* host) noexcept override { pool_.give(host); }

 private:
  static void CUDART_CB copied(void* record) { effect_capture_done(static_cast<effect_record*>(record)); }

  // The CUDA runtime tears itself down in an exit handler it registers when it starts. One
  // registered after that runs before it, while pending copies can still complete.
  static void ensure_exit_drain() noexcept {
    static int registered = 0;
    if (!__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL)) atexit([] { effects_exit_drain(); });
  }
  static capture_status fail(std::string* err, const char* why) noexcept {
    try {
      *err = why ? why : "CUDA error";
    } catch (...) {
    }
    return capture_status::failed;
  }
  pinned_pool pool_;
};

// Registered during static initialization of any TU compiled with CUDA (see cuda_access.hpp).
inline const bool g_cuda_effects_registered = [] {
  set_capture_executor(device::cuda, new cuda_capture_executor());
  return true;
}();

}  // namespace detail
PROBE_END_NAMESPACE
#endif  // PROBE_WITH_CUDA
