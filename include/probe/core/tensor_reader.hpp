// Reads any tensor_view's elements in row-major order, in pieces of bounded size, whatever
// its layout (contiguous or strided) or device (host, or an accelerator through
// device_access). Consumers (dump files, health stats, captured prints) see a stream of
// contiguous host chunks and never copy more than a chunk at a time.
// Internal header.
#pragma once
#include <stdlib.h>
#include <string.h>

#include <string>

#include "device_access.hpp"
#include "tensor.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// What is wrong with a view, naming the field ("" when it can be read): "invalid tensor view:
// shape[1] is -3", "... its strides have 2 entries for a 3-d shape", ...
PROBE_API std::string view_problem_text(const tensor_view& v);

class tensor_reader {
 public:
  static constexpr size_t k_chunk = size_t(4) << 20;  // 4 MiB: fits L2/L3, amortizes syscalls

  tensor_reader() = default;
  tensor_reader(const tensor_reader&) = delete;
  tensor_reader& operator=(const tensor_reader&) = delete;
  ~tensor_reader() { release(); }

  // False (with error()) when the view cannot be read: invalid, or on a device with no backend.
  bool open(const tensor_view& v, size_t chunk_bytes = k_chunk) noexcept {
    release();
    v_ = v;
    item_ = v.itemsize();
    total_ = v.valid() ? v.nbytes() : 0;
    done_ = 0;
    try {
      const std::string problem = view_problem_text(v);
      if (!problem.empty()) return fail(problem.c_str());
    } catch (...) {
      return fail("out of memory");
    }
    if (v.batch) return open_batch();
    // Whole elements per chunk, at least one.
    chunk_ = chunk_bytes < item_ ? item_ : chunk_bytes - chunk_bytes % item_;
    if (!v.where.is_host()) {
      dev_ = get_device_access(v.where.kind);
      if (!dev_) return fail("cannot read device memory: probe was built without this device's backend");
      if (!v.is_contiguous()) return open_strided_device();
      return open_device();
    }
    contiguous_ = v.is_contiguous();
    if (!contiguous_) {
      buf_ = static_cast<char*>(malloc(total_ < chunk_ ? total_ + 1 : chunk_));
      if (!buf_) return fail("out of memory for a staging buffer");
    }
    return true;
  }

  // The next chunk; *n == 0 at the end. False on a device error (see error()).
  bool next(const void** data, size_t* n) noexcept {
    *n = 0;
    if (!error_.empty()) return false;
    if (done_ >= total_) return true;
    const size_t want = total_ - done_ < chunk_ ? total_ - done_ : chunk_;
    if (dev_ && !gathered_) return next_device(data, n, want);
    if (gathered_ || contiguous_) {
      const char* base = gathered_ ? gathered_ : static_cast<const char*>(v_.data);
      *data = base + done_;
    } else {
      gather(buf_, want / item_);
      *data = buf_;
    }
    *n = want;
    done_ += want;
    return true;
  }

  const std::string& error() const noexcept { return error_; }
  size_t total_bytes() const noexcept { return total_; }

 private:
  bool fail(const char* why) noexcept {
    try {
      error_ = why;
    } catch (...) {
    }
    return false;
  }

  // Copies `count` elements of a strided host view, continuing the row-major walk.
  void gather(char* out, size_t count) noexcept {
    const char* src = static_cast<const char*>(v_.data);
    for (size_t k = 0; k < count; ++k) {
      int64_t off = 0;
      for (int d = 0; d < v_.ndim; ++d) off += idx_[d] * v_.strides[d];
      memcpy(out + k * item_, src + off * static_cast<int64_t>(item_), item_);
      for (int d = v_.ndim - 1; d >= 0; --d) {
        if (++idx_[d] < v_.shape[d]) break;
        idx_[d] = 0;
      }
    }
  }

  // Contiguous device memory: two staging buffers; the copy of chunk i+1 runs while the
  // consumer works on chunk i.
  bool open_device() noexcept {
    const size_t sz = total_ < chunk_ ? (total_ ? total_ : 1) : chunk_;
    for (auto& s : staging_) {
      s = dev_->alloc_staging(sz);
      if (!s) return fail("cannot allocate pinned staging memory");
    }
    if (total_) return issue(0);
    return true;
  }
  bool issue(size_t offset) noexcept {
    const size_t n = total_ - offset < chunk_ ? total_ - offset : chunk_;
    const char* err = nullptr;
    const int slot = static_cast<int>((offset / chunk_) % 2);
    token_[slot] = dev_->start_copy(staging_[slot], static_cast<const char*>(v_.data) + offset, n,
                                    v_.where, v_.stream, &err);
    if (!token_[slot]) return fail(err ? err : "device copy failed");
    return true;
  }
  bool next_device(const void** data, size_t* n, size_t want) noexcept {
    const int slot = static_cast<int>((done_ / chunk_) % 2);
    const char* err = nullptr;
    if (!dev_->wait_copy(token_[slot], &err)) return fail(err ? err : "device copy failed");
    token_[slot] = 0;
    if (done_ + want < total_ && !issue(done_ + want)) return false;
    *data = staging_[slot];
    *n = want;
    done_ += want;
    return true;
  }

  bool fail_sample(int64_t k, const std::string& why) noexcept {
    try {
      return fail(("batch_view sample " + std::to_string(k) + ": " + why).c_str());
    } catch (...) {
      return fail("batch_view: a sample cannot be read");
    }
  }

  // A batch_view: every sample (host or device, any strides) read into one host block.
  bool open_batch() noexcept {
    gathered_ = static_cast<char*>(malloc(total_ ? total_ : 1));
    if (!gathered_) return fail("out of memory gathering a batch_view");
    tensor_view sample = v_;
    sample.batch = nullptr;
    sample.ndim = static_cast<int8_t>(v_.ndim - 1);
    for (int d = 0; d < sample.ndim; ++d) {
      sample.shape[d] = v_.shape[d + 1];
      sample.strides[d] = v_.strides[d + 1];
    }
    sample.shape[sample.ndim] = sample.strides[sample.ndim] = 0;
    char* out = gathered_;
    for (int64_t k = 0; k < v_.shape[0]; ++k) {
      sample.data = v_.batch[k];
      tensor_reader r;
      const void* p;
      size_t n;
      if (!r.open(sample)) return fail_sample(k, r.error());
      while (r.next(&p, &n) && n) {
        memcpy(out, p, n);
        out += n;
      }
      if (!r.error().empty()) return fail_sample(k, r.error());
    }
    return true;
  }

  // A strided device view: copy its bounding byte range to the host once, then gather.
  bool open_strided_device() noexcept {
    int64_t first = 0, last = 0;
    for (int i = 0; i < v_.ndim; ++i) {
      const int64_t span = (v_.shape[i] - 1) * v_.strides[i];
      if (span < 0) first += span; else last += span;
    }
    const size_t span_bytes = static_cast<size_t>(last - first + 1) * item_;
    if (span_bytes > 4 * total_ + (size_t(256) << 20))
      return fail("strided device view spans too much memory to copy; dump a contiguous copy");
    char* host = static_cast<char*>(malloc(span_bytes ? span_bytes : 1));
    if (!host) return fail("out of memory copying a device tensor");
    const char* base = static_cast<const char*>(v_.data) + first * static_cast<int64_t>(item_);
    void* stage = dev_->alloc_staging(chunk_);
    if (!stage) {
      free(host);
      return fail("cannot allocate pinned staging memory");
    }
    for (size_t off = 0; off < span_bytes; off += chunk_) {
      const size_t n = span_bytes - off < chunk_ ? span_bytes - off : chunk_;
      const char* err = nullptr;
      const uintptr_t t = dev_->start_copy(stage, base + off, n, v_.where, v_.stream, &err);
      if (!t || !dev_->wait_copy(t, &err)) {
        dev_->free_staging(stage);
        free(host);
        return fail(err ? err : "device copy failed");
      }
      memcpy(host + off, stage, n);
    }
    dev_->free_staging(stage);
    // Re-point the view at the host copy and gather it contiguous once.
    tensor_view hv = v_.on_host();
    hv.data = host - first * static_cast<int64_t>(item_);
    gathered_ = static_cast<char*>(malloc(total_ ? total_ : 1));
    if (!gathered_) {
      free(host);
      return fail("out of memory copying a device tensor");
    }
    copy_contiguous(hv, gathered_);
    free(host);
    return true;
  }

  void release() noexcept {
    if (dev_) {
      const char* err = nullptr;
      for (int i = 0; i < 2; ++i) {
        if (token_[i]) dev_->wait_copy(token_[i], &err);  // never free memory a copy still writes
        token_[i] = 0;
        if (staging_[i]) dev_->free_staging(staging_[i]);
        staging_[i] = nullptr;
      }
    }
    free(buf_);
    free(gathered_);
    buf_ = gathered_ = nullptr;
    dev_ = nullptr;
    for (auto& i : idx_) i = 0;
    error_.clear();
  }

  tensor_view v_{};
  size_t item_ = 1, total_ = 0, done_ = 0, chunk_ = k_chunk;
  bool contiguous_ = true;
  char* buf_ = nullptr;       // host gather buffer
  char* gathered_ = nullptr;  // whole host copy of a strided device view
  int64_t idx_[max_dims] = {};
  device_access* dev_ = nullptr;
  void* staging_[2] = {nullptr, nullptr};
  uintptr_t token_[2] = {0, 0};
  std::string error_;
};

// A host copy of any view (device or strided, a batch of buffers), as an owning tensor. False
// with *err on failure.
PROBE_API bool read_tensor(const tensor_view& v, tensor* out, std::string* err);

}  // namespace detail
PROBE_END_NAMESPACE
