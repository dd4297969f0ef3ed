// Device op timings as the timing core receives them, and the hook through which a device
// backend (backends/gpu_timing.hpp, compiled only in builds with device support) plugs into
// it. Internal header.
#pragma once
#include <stdint.h>

#include <string>

#include "../core/context.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct gpu_op_desc {
  std::string name, type;
  uint64_t seq = 0;
  int64_t step = 0;
  void* stream = nullptr;
};

struct gpu_op_timing {
  gpu_op_desc op;
  int device = 0;
  int64_t begin_ns = 0;  // host CLOCK_MONOTONIC time base
  int64_t dur_ns = 0;
};

// Installed by backends/gpu_timing.hpp. A function table instead of direct calls, so that
// builds without device support compile none of it, and TUs built with and without it agree
// on every inline function they share.
class device_timing {
 public:
  virtual ~device_timing() = default;
  // The op listener to register, or nullptr (no device runtime).
  virtual op_listener* listener() noexcept = 0;
  // Hands every device timing resolved so far to sink(context, timing), waiting for the rest
  // at the final flush.
  virtual void collect(bool final_flush, void (*sink)(void* context, const gpu_op_timing&),
                       void* context) noexcept = 0;
};
inline device_timing* g_device_timing = nullptr;  // atomic

inline device_timing* installed_device_timing() noexcept {
  return __atomic_load_n(&g_device_timing, __ATOMIC_ACQUIRE);
}

}  // namespace detail
PROBE_END_NAMESPACE
