// What timing needs from a device runtime, as a small interface: events recorded on a
// stream and queried later (never waited for while the program runs), plus range
// annotations for external profilers. backends/cuda_timing.hpp implements it with CUDA
// events and NVTX; tests implement it on the CPU. Light header.
#pragma once
#include "timing.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class gpu_event_api {
 public:
  virtual ~gpu_event_api() = default;
  // A timing event on `device`; nullptr when it cannot be made.
  virtual void* create_event(int device) noexcept = 0;
  virtual void destroy_event(void* event) noexcept = 0;
  // Enqueues the event on `stream` (nullptr: the default stream).
  virtual bool record(void* event, void* stream) noexcept = 0;
  // 1: the event has happened, 0: not yet, -1: error.
  virtual int query(void* event) noexcept = 0;
  // Blocks until the event has happened; used only when the process exits.
  virtual bool wait(void* event) noexcept = 0;
  // Device time from `from` to `to` (both happened), in milliseconds.
  virtual bool elapsed_ms(void* from, void* to, float* ms) noexcept = 0;
  // The last error, for the one message shown when GPU timing turns itself off.
  virtual const char* last_error() noexcept = 0;
};

#if !defined(PROBE_DISABLE)
// Installs a device runtime (either pointer may be null). Called by backend headers during
// static initialization, and by tests. Defined by the implementation only when it is compiled
// with PROBE_WITH_CUDA or PROBE_WITH_DEVICE_TIMING (backends/gpu_timing.hpp).
PROBE_API void set_gpu_backend(gpu_event_api* events, const range_hooks* ranges) noexcept;
#endif

}  // namespace detail
PROBE_END_NAMESPACE
