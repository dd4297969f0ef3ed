// Test support: a device_access over host memory, standing in for an accelerator. It copies
// with memcpy but keeps the asynchronous contract honest: a copy's bytes land only when
// wait_copy is called, so code that reads staging before waiting sees garbage.
#pragma once
#include <probe/probe.hpp>
#include <probe/core/device_access.hpp>


#include <cstring>
#include <map>
#include <vector>

namespace probe_test {

class fake_device : public probe::detail::device_access {
 public:
  struct copy {
    void* dst;
    const void* src;
    size_t n;
    void* stream;
  };
  const char* name() const noexcept override { return "fake"; }
  void* alloc_staging(size_t bytes) noexcept override {
    ++staging_allocs;
    live_staging += 1;
    return std::malloc(bytes ? bytes : 1);
  }
  void free_staging(void* p) noexcept override {
    live_staging -= 1;
    std::free(p);
  }
  uintptr_t start_copy(void* dst, const void* src, size_t n, const probe::device&, void* stream,
                       const char** err) noexcept override {
    if (fail_after >= 0 && copies_started >= fail_after) {
      *err = "fake device: copy failed";
      return 0;
    }
    ++copies_started;
    std::memset(dst, 0xAB, n);  // what a reader sees if it does not wait
    pending[++next_token] = copy{dst, src, n, stream};
    max_in_flight = pending.size() > max_in_flight ? pending.size() : max_in_flight;
    return next_token;
  }
  bool wait_copy(uintptr_t token, const char** err) noexcept override {
    auto it = pending.find(token);
    if (it == pending.end()) {
      *err = "fake device: unknown copy";
      return false;
    }
    std::memcpy(it->second.dst, it->second.src, it->second.n);
    last_stream = it->second.stream;
    pending.erase(it);
    return true;
  }

  std::map<uintptr_t, copy> pending;
  uintptr_t next_token = 0;
  size_t max_in_flight = 0;
  int copies_started = 0;
  int fail_after = -1;
  int staging_allocs = 0;
  int live_staging = 0;
  void* last_stream = nullptr;
};

// Installs a fake as the CUDA backend for the scope.
struct fake_cuda_scope {
  fake_device dev;
  probe::detail::device_access* saved;
  fake_cuda_scope() : saved(probe::detail::get_device_access(probe::device::cuda)) {
    probe::detail::set_device_access(probe::device::cuda, &dev);
  }
  ~fake_cuda_scope() { probe::detail::set_device_access(probe::device::cuda, saved); }
};

}  // namespace probe_test
