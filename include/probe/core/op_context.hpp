// Ops begun on worker threads inside an op of the spawning thread. Light header.
//
//   probe::op layer("L3", "Block");
//   const probe::op_context ctx = probe::current_op_context();   // on the spawning thread
//   #pragma omp parallel
//   {
//     probe::adopt_op_context adopt(ctx);                          // on each worker
//     probe::op tile("L3.tile", "MatMul");                          // parent: L3
//   }
//
// An op's parent is the op open on its own thread; a worker thread has none, so without this
// its ops would be top-level. Adopting makes the captured op the worker's enclosing op for
// the adopter's lifetime: ops begun there name it as their parent (manifest "parent"), and a
// breakpoint there shows its frames. A thread that already has an op open (the OpenMP master
// thread, which runs a share of the region) keeps its own chain: adopting changes nothing.
//
// Fork-join only: capture while the op is open and let every adopter end before the op does
// (the end of a parallel region, a join). The parent's record is read, not copied; a worker
// outliving it would read freed memory. The explicit capture is deliberate: a process-wide
// "current op" would make unrelated threads (a prefetcher, a logger) children of whatever op
// the main thread happens to be in.
#pragma once
#include "gate.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
struct op_record;
#if !defined(PROBE_DISABLE)
// The innermost op open on this thread (nullptr outside every op).
inline thread_local op_record* t_current_op = nullptr;

PROBE_API op_record* op_current() noexcept;
// Makes r the calling thread's current op when it has none; true when it did.
PROBE_API bool op_adopt(op_record* r) noexcept;
// Undoes op_adopt(r) (the thread's current op goes back to none while it is still r).
PROBE_API void op_unadopt(op_record* r) noexcept;
#endif
}  // namespace detail

// The op open on the calling thread when it was captured (or none).
class op_context {
 public:
  op_context() noexcept = default;
  bool empty() const noexcept { return r_ == nullptr; }

 private:
  detail::op_record* r_ = nullptr;
  friend op_context current_op_context() noexcept;
  friend class adopt_op_context;
};

inline op_context current_op_context() noexcept {
  op_context c;
#if !defined(PROBE_DISABLE)
  if (detail::gate_on(detail::gate_ops)) c.r_ = detail::op_current();
#endif
  return c;
}

// For its lifetime, the captured op encloses the ops the calling thread begins.
class adopt_op_context {
 public:
  explicit adopt_op_context(const op_context& c) noexcept {
#if !defined(PROBE_DISABLE)
    if (c.r_ && detail::op_adopt(c.r_)) r_ = c.r_;
#else
    (void)c;
#endif
  }
  ~adopt_op_context() {
#if !defined(PROBE_DISABLE)
    if (r_) detail::op_unadopt(r_);
#endif
  }
  adopt_op_context(const adopt_op_context&) = delete;
  adopt_op_context& operator=(const adopt_op_context&) = delete;

 private:
#if !defined(PROBE_DISABLE)
  detail::op_record* r_ = nullptr;
#endif
};

PROBE_END_NAMESPACE
