// Device op timing: an op listener that starts a device timing at the op's first device
// tensor (on that tensor's stream) and stops it when the op ends, through the installed
// gpu_event_api. Internal header, compiled when PROBE_WITH_CUDA (or
// PROBE_WITH_DEVICE_TIMING) is defined; no device runtime included.
#pragma once
#include <stdlib.h>

#include <vector>

#include "../core/context.hpp"
#include "../core/flags.hpp"
#include "../util/log.hpp"
#include "../util/sync.hpp"
#include "timing_clock_source.hpp"
#include "device_event_pool.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

constexpr int k_gpu_max_devices = 16;
constexpr size_t k_gpu_max_pairs = 4096;  // ops in flight per device before timings drop

struct gpu_timing_state {
  mutex m;
  gpu_event_api* api = nullptr;
  gpu_event_pool* pools[k_gpu_max_devices] = {};
  bool exit_hook = false;
  bool exit_resolved = false;  // the early exit hook ran: the runtime may be gone after it
  int told_failed = 0, told_dropped = 0;
};
PROBE_API gpu_timing_state& gpu_state() noexcept;

// Waits for the device timings still in flight. Registered with atexit after the first
// device op, so it runs before the device runtime's own exit handlers tear it down.
PROBE_API void gpu_resolve_at_exit() noexcept;

// Resolved device timings so far; at the final flush also reports what could not be timed.
PROBE_API void gpu_collect(bool final_flush, std::vector<gpu_op_timing>& out) noexcept;

class gpu_op_timer final : public op_listener {
 public:
  void on_tensor(op_record&, const recorded_tensor& t, uint64_t& state) noexcept override {
    if (t.view.where.kind != device::cuda || state != 0) return;
    const int dev = t.view.where.index;
    state = k_tried;
    if (dev < 0 || dev >= k_gpu_max_devices) return;
    gpu_timing_state& s = gpu_state();
    try {
      lock_guard<mutex> g(s.m);
      if (!s.api || s.exit_resolved) return;
      gpu_event_pool*& pool = s.pools[dev];
      if (!pool) pool = new gpu_event_pool(*s.api, dev, k_gpu_max_pairs);
      if (pool->failed()) return;
      const uint32_t ticket = pool->begin(t.view.stream, ticks_to_monotonic_ns(clock_now()));
      if (pool->failed()) {
        log_once(&s.told_failed, "device op timing is off: %s", s.api->last_error());
        return;
      }
      if (!ticket) return;
      state = (static_cast<uint64_t>(dev) << 32) | ticket;
      if (!s.exit_hook) s.exit_hook = atexit([] { gpu_resolve_at_exit(); }) == 0;
    } catch (...) {
    }
  }

  void on_end(op_record& r, uint64_t& state) noexcept override {
    const uint64_t v = state;
    if (v == 0 || v == k_tried) return;
    gpu_timing_state& s = gpu_state();
    try {
      gpu_op_desc d;
      d.name = r.name;
      d.type = r.type;
      d.seq = r.seq;
      d.step = r.step;
      lock_guard<mutex> g(s.m);
      gpu_event_pool* pool = s.pools[v >> 32];
      if (pool) pool->end(static_cast<uint32_t>(v), static_cast<gpu_op_desc&&>(d));
    } catch (...) {
    }
  }

 private:
  static constexpr uint64_t k_tried = ~0ull;  // device tensor seen, no timing started
};

class gpu_device_timing final : public device_timing {
 public:
  op_listener* listener() noexcept override {
    gpu_timing_state& s = gpu_state();
    lock_guard<mutex> g(s.m);
    if (!s.api) return nullptr;
    return &listener_;
  }
  void collect(bool final_flush, void (*sink)(void*, const gpu_op_timing&), void* context) noexcept override {
    std::vector<gpu_op_timing> done;
    gpu_collect(final_flush, done);
    for (const gpu_op_timing& t : done) sink(context, t);
  }

 private:
  gpu_op_timer listener_;
};

PROBE_API void set_gpu_backend(gpu_event_api* events, const range_hooks* ranges) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
