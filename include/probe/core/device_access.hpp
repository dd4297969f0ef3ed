// How probe reads tensors that live on an accelerator: a small interface that a backend
// (backends/cuda.hpp) implements and registers. The staging and ordering logic that uses it
// (core/tensor_reader.hpp) is backend-independent, so tests drive it with a host fake.
// Internal header.
#pragma once
#include <stddef.h>

#include "../util/config.hpp"
#include "tensor_view.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class device_access {
 public:
  virtual ~device_access() = default;
  virtual const char* name() const noexcept = 0;
  // Host memory suited for fast transfers (pinned for CUDA); nullptr on failure.
  virtual void* alloc_staging(size_t bytes) noexcept = 0;
  virtual void free_staging(void* p) noexcept = 0;
  // Starts copying n bytes at device address src into dst (staging memory), ordered after
  // the work already queued on `stream` (nullptr: the device's default stream). Returns a
  // token for wait_copy, or 0 with *err set.
  virtual uintptr_t start_copy(void* dst, const void* src, size_t n, const device& dev,
                               void* stream, const char** err) noexcept = 0;
  // Waits until the copy is complete; false with *err on failure.
  virtual bool wait_copy(uintptr_t token, const char** err) noexcept = 0;
};

inline device_access* g_device_access[2] = {nullptr, nullptr};  // by device::kind_t

// Backends register themselves; tests register fakes. Passing nullptr unregisters.
inline void set_device_access(device::kind_t kind, device_access* a) noexcept {
  __atomic_store_n(&g_device_access[kind], a, __ATOMIC_RELEASE);
}
inline device_access* get_device_access(device::kind_t kind) noexcept {
  return __atomic_load_n(&g_device_access[kind], __ATOMIC_ACQUIRE);
}

}  // namespace detail
PROBE_END_NAMESPACE
