// How asynchronous effects copy tensor arguments at the call: a small executor interface.
// The host executor copies synchronously (host views directly, device views through
// device_access, waiting for the copy); a backend may register an asynchronous executor for
// its device kind (backends/cuda_effects.hpp: a copy queued on the tensor's stream and a
// host function that marks the record ready, with no synchronization on the caller's path).
// Internal header.
#pragma once
#include <stdlib.h>

#include <string>

#include "../core/tensor_reader.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct effect_record;

enum class capture_status : uint8_t {
  done,     // *host holds the copy
  pending,  // the copy lands later; the executor calls effect_capture_done(record) then
  failed,   // *err says why
};

class capture_executor {
 public:
  virtual ~capture_executor() = default;
  // Whether this executor copies v; the host executor takes the views it declines.
  virtual bool handles(const tensor_view& v) const noexcept = 0;
  // Copies v's elements, in row-major order, into memory this executor allocates (*host, at
  // least v.nbytes() bytes, freed with release()). Ordered after the work already queued where
  // the tensor lives (its stream); values written later by the program are not seen.
  virtual capture_status capture(const tensor_view& v, void** host, effect_record* r, std::string* err) noexcept = 0;
  virtual void release(void* host) noexcept = 0;
};

// The host executor: malloc'd copies; device tensors through device_access, synchronously.
class host_capture_executor final : public capture_executor {
 public:
  bool handles(const tensor_view&) const noexcept override { return true; }
  capture_status capture(const tensor_view& v, void** host, effect_record*, std::string* err) noexcept override {
    const size_t n = v.nbytes();
    void* p = malloc(n ? n : 1);
    if (!p) return fail(err, "out of memory copying a tensor");
    if (v.where.is_host()) {
      copy_contiguous(v, p);
      *host = p;
      return capture_status::done;
    }
    tensor_reader r;
    if (!r.open(v)) {
      free(p);
      return fail(err, r.error().c_str());
    }
    char* dst = static_cast<char*>(p);
    const void* chunk;
    size_t got;
    while (r.next(&chunk, &got) && got) {
      memcpy(dst, chunk, got);
      dst += got;
    }
    if (!r.error().empty()) {
      free(p);
      return fail(err, r.error().c_str());
    }
    *host = p;
    return capture_status::done;
  }
  void release(void* host) noexcept override { free(host); }

 private:
  static capture_status fail(std::string* err, const char* why) noexcept {
    try {
      *err = why;
    } catch (...) {
    }
    return capture_status::failed;
  }
};

inline capture_executor* g_capture_executor[2] = {nullptr, nullptr};  // by device::kind_t

// Backends register an executor for their device kind; nullptr restores the host executor.
inline void set_capture_executor(device::kind_t kind, capture_executor* e) noexcept {
  __atomic_store_n(&g_capture_executor[kind], e, __ATOMIC_RELEASE);
}
PROBE_API capture_executor& host_executor() noexcept;
inline capture_executor& executor_for(const tensor_view& v) noexcept {
  capture_executor* e = __atomic_load_n(&g_capture_executor[v.where.kind], __ATOMIC_ACQUIRE);
  return e && e->handles(v) ? *e : host_executor();
}

// Called by asynchronous executors when a pending copy has landed (any thread).
PROBE_API void effect_capture_done(effect_record* r) noexcept;
// Runs what is queued on this thread at exit (effects/effect_queue_impl.hpp).
PROBE_API void effects_exit_drain() noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
