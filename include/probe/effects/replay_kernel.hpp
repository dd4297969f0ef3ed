// What a replayed kernel runs against: the registry of kernels, and the state behind a
// replay_context (the snapshot, its inputs, the outputs the kernel asked for, its
// attributes). The checks a kernel's requests fail throw replay_failure, which the replay
// runner catches (effects/replay_run.hpp). Internal header.
#pragma once
#include <stdlib.h>

#include <string>
#include <vector>

#include "../core/tensor.hpp"
#include "../formats/snapshot.hpp"
#include "replay.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Why a kernel's request could not be met: one line, the op's key first. Not a
// std::exception, so a kernel's own catch (const std::exception&) does not swallow it.
struct replay_failure {
  std::string message;
};

// Output memory, zeroed. Large outputs are mapped on 2 MiB boundaries with transparent huge
// pages asked for: the kernel's first writes then fault in 512 times fewer pages (on a 64 MiB
// output that is most of what a replay costs beyond the kernel and the compare). Small ones
// come from calloc.
class replay_buffer {
 public:
  static constexpr size_t k_huge = size_t{2} << 20;

  replay_buffer() = default;
  replay_buffer(const replay_buffer&) = delete;
  replay_buffer& operator=(const replay_buffer&) = delete;
  replay_buffer(replay_buffer&& o) noexcept : p_(o.p_), n_(o.n_), mapped_(o.mapped_) { o.p_ = nullptr, o.n_ = 0; }
  replay_buffer& operator=(replay_buffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = o.p_, n_ = o.n_, mapped_ = o.mapped_;
      o.p_ = nullptr, o.n_ = 0;
    }
    return *this;
  }
  ~replay_buffer() { release(); }
  bool allocate(size_t bytes) noexcept;
  void* data() const noexcept { return p_; }
  size_t size() const noexcept { return n_; }

 private:
  void release() noexcept;
  void* p_ = nullptr;
  size_t n_ = 0;
  size_t mapped_ = 0;  // bytes mapped at p_ (0: from calloc)
};

struct replay_output_buffer {
  std::string slot;
  const snapshot::tensor_entry* recorded = nullptr;  // nullptr: the snapshot has no such output
  tensor_view view;
  replay_buffer memory;
};

struct replay_attr_slot {
  std::string name;
  attr_value value;
  std::string text;
  std::vector<int64_t> ints;
};

struct replay_state {
  const snapshot::info* snap = nullptr;
  std::vector<tensor> inputs;  // parallel to snap->inputs: recorded or fake values
  std::vector<replay_output_buffer> outputs;  // in the order the kernel asked for them
  std::vector<replay_attr_slot> attrs;

  // The snapshot's attributes, as kernels read them.
  void load_attrs();
  [[noreturn]] void fail(const std::string& what) const;
};

// The kernel for an op: registered under its name, else under its type; nullptr if none.
// *matched says which name it was found under.
PROBE_API const kernel_entry* find_kernel(const std::string& op, const std::string& type, std::string* matched) noexcept;

// How many kernels are registered (for messages).
PROBE_API int kernel_count() noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
