// Duration statistics of one summary row: count, total, min, max, and quantiles that stay
// exact for the first few thousand samples, then come from a log-linear histogram (relative
// error under 1%, 15 KiB) so that memory stays bounded however long the run.
// Internal header.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../util/config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class duration_stats {
 public:
  static constexpr uint32_t k_exact_samples = 4096;

  duration_stats() = default;
  duration_stats(const duration_stats&) = delete;
  duration_stats& operator=(const duration_stats&) = delete;
  duration_stats& operator=(duration_stats&& o) noexcept {
    if (this != &o) {
      release();
      count_ = o.count_, total_ = o.total_, min_ = o.min_, max_ = o.max_;
      exact_ = o.exact_, exact_n_ = o.exact_n_, exact_cap_ = o.exact_cap_, hist_ = o.hist_;
      sorted_ = o.sorted_;
      o.exact_ = nullptr, o.hist_ = nullptr, o.exact_n_ = o.exact_cap_ = 0;
    }
    return *this;
  }
  ~duration_stats() { release(); }

  // Out of memory: the sample still counts in count, total, min and max.
  void add(uint64_t d) noexcept {
    if (count_ == 0 || d < min_) min_ = d;
    if (d > max_) max_ = d;
    ++count_;
    total_ += d;
    if (!hist_) {
      if (exact_n_ < k_exact_samples) {
        if (exact_n_ == exact_cap_ && !grow_exact()) return;
        exact_[exact_n_++] = d;
        sorted_ = false;
        return;
      }
      hist_ = static_cast<uint32_t*>(calloc(k_buckets, sizeof(uint32_t)));
      if (!hist_) return;
      for (uint32_t i = 0; i < exact_n_; ++i) ++hist_[bucket(exact_[i])];
      free(exact_);
      exact_ = nullptr;
      exact_n_ = exact_cap_ = 0;
    }
    ++hist_[bucket(d)];
  }

  // Adds end - begin of e[0] and of the events after it whose `tagged` equals `tagged` (one
  // scope site's run), up to n; returns how many. Past the exact samples the run's count,
  // total, min and max stay in registers: a few instructions per duration.
  template <class Event>
  uint32_t add_run(const Event* e, uint32_t n, uintptr_t tagged) noexcept {
    uint32_t i = 0;
    while (!hist_) {  // the exact phase (or out of memory for the histogram): one at a time
      add(e[i].end - e[i].begin);
      if (++i == n || e[i].tagged != tagged) return i;
    }
    uint64_t lo = min_, hi = max_, sum = total_;
    uint32_t* h = hist_;
    const uint32_t first = i;
    for (; i < n && e[i].tagged == tagged; ++i) {
      const uint64_t d = e[i].end - e[i].begin;
      lo = d < lo ? d : lo;
      hi = d > hi ? d : hi;
      sum += d;
      ++h[bucket(d)];
    }
    count_ += i - first;
    total_ = sum;
    min_ = lo;
    max_ = hi;
    return i;
  }

  uint64_t count() const { return count_; }
  uint64_t total() const { return total_; }
  uint64_t min() const { return min_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(total_) / static_cast<double>(count_) : 0; }
  bool exact() const { return !hist_ && exact_n_ == count_; }

  // Nearest-rank quantile, p in [0, 1]: the smallest sample with at least p*count samples at
  // or below it.
  double quantile(double p) {
    const uint64_t n = hist_ ? count_ : exact_n_;
    if (n == 0) return 0;
    uint64_t rank = static_cast<uint64_t>(p * static_cast<double>(n) + 0.999999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    if (!hist_) {
      if (!sorted_) {
        // qsort, not std::sort: <algorithm> would double what this header costs to compile.
        qsort(exact_, exact_n_, sizeof(uint64_t), [](const void* a, const void* b) {
          const uint64_t x = *static_cast<const uint64_t*>(a), y = *static_cast<const uint64_t*>(b);
          return x < y ? -1 : x > y ? 1 : 0;
        });
        sorted_ = true;
      }
      return static_cast<double>(exact_[rank - 1]);
    }
    uint64_t seen = 0;
    for (size_t i = 0; i < k_buckets; ++i) {
      seen += hist_[i];
      if (seen >= rank) {
        const double mid = bucket_middle(i);
        if (mid < static_cast<double>(min_)) return static_cast<double>(min_);
        return mid > static_cast<double>(max_) ? static_cast<double>(max_) : mid;
      }
    }
    return static_cast<double>(max_);
  }

  // Bucket layout: values below 128 exactly; above, 64 buckets per power of two.
  static constexpr size_t k_buckets = 128 + 57 * 64;
  static size_t bucket(uint64_t v) {
    if (v < 128) return static_cast<size_t>(v);
    const int e = 63 - __builtin_clzll(v);  // 7..63
    const uint64_t sub = (v >> (e - 6)) & 63;
    return 128 + static_cast<size_t>(e - 7) * 64 + static_cast<size_t>(sub);
  }
  static double bucket_middle(size_t i) {
    if (i < 128) return static_cast<double>(i);
    const int e = static_cast<int>((i - 128) / 64) + 7;
    const double sub = static_cast<double>((i - 128) % 64);
    const double width = static_cast<double>(1ull << (e - 6));
    return (64.0 + sub) * width + width / 2;
  }

 private:
  // Plain buffers rather than std::vector: one less template for every TU to compile.
  bool grow_exact() noexcept {
    const uint32_t cap = exact_cap_ ? exact_cap_ * 2 : 16;
    auto* p = static_cast<uint64_t*>(realloc(exact_, cap * sizeof(uint64_t)));
    if (!p) return false;
    exact_ = p;
    exact_cap_ = cap;
    return true;
  }
  void release() noexcept {
    free(exact_);
    free(hist_);
    exact_ = nullptr;
    hist_ = nullptr;
  }

  uint64_t count_ = 0, total_ = 0, min_ = 0, max_ = 0;
  uint64_t* exact_ = nullptr;  // the first samples, while there are at most k_exact_samples
  uint32_t exact_n_ = 0, exact_cap_ = 0;
  uint32_t* hist_ = nullptr;   // k_buckets counts, once there are more
  bool sorted_ = true;
};

// A user metric's row: how often it was reported and its values.
struct metric_stats {
  uint64_t count = 0;
  double last = 0, sum = 0, min = 0, max = 0;
  void add(double v) {
    if (count == 0 || v < min) min = v;
    if (count == 0 || v > max) max = v;
    ++count;
    last = v;
    sum += v;
  }
  double mean() const { return count ? sum / static_cast<double>(count) : 0; }
};

}  // namespace detail
PROBE_END_NAMESPACE
