// Whether an input holds part of an earlier output's values (a slice copied out: a head split
// from a fused projection, a row of a batch), that output's values among others (outputs
// concatenated, a cache each step appends to), or its values in another order (a layout
// conversion), copied by code outside any op, in both runs. Its bytes are no output's, so
// neither the hashes nor the statistics of compare_converted.hpp can tell: the values are read.
// Evenly spaced samples of the smaller tensor must each occur, as the same value, in the
// larger one, in both runs. In one run at least the samples must be evidence: distinct, finite,
// mostly not whole numbers (a mask or a count is found in any tensor that holds 0 and 1). The
// other run need only agree: a bug may saturate its values to a few. For compare_graph.hpp's copy lookup.
// Standalone header, plain inline.
#pragma once
#include <math.h>
#include <stdint.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compare_details.hpp"
#include "compare_inputs.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// One side's values as doubles, read in blocks.
class side_values {
 public:
  virtual ~side_values() = default;
  // Values [at, at + n) into out; false when they cannot be read.
  virtual bool read(int64_t at, size_t n, std::vector<double>* out) = 0;
};
// Opens a side's values (nullptr: it has none to read). compare_run reads the .npy files;
// tests hand values in.
using open_side_values = std::function<std::unique_ptr<side_values>(const pair_side&)>;

// The values of a side's .npy file, as compare's second look reads them.
inline std::unique_ptr<side_values> open_npy_values(const pair_side& s) {
  struct from_file : side_values {
    explicit from_file(const pair_side& s) : stream(s) {}
    bool read(int64_t at, size_t n, std::vector<double>* out) override { return stream.read(at, n, out); }
    details_impl::value_stream stream;
  };
  std::unique_ptr<from_file> f(new from_file(s));
  if (!f->stream.ok()) return nullptr;
  return std::unique_ptr<side_values>(std::move(f));
}

enum class part_relation : uint8_t {
  none,
  part_of,    // the input holds part of the output's values
  among,      // the input holds the output's values among others
  reordered,  // as many elements, the same values in another order
};

inline const char* part_relation_name(part_relation r) {
  switch (r) {
    case part_relation::part_of: return "part";
    case part_relation::among: return "among";
    case part_relation::reordered: return "reordered";
    default: return "";
  }
}

namespace part_copy_impl {

constexpr size_t k_samples = 64;
constexpr size_t k_block = 65536;

inline bool float_type(dtype t) {
  return t == dtype::float16 || t == dtype::bfloat16 || t == dtype::float32 || t == dtype::float64;
}

inline int64_t numel(const pair_side& s) {
  int64_t n = 1;
  for (int i = 0; i < s.ndim && i < max_dims; ++i) n *= s.shape[i];
  return n;
}

// The range of `small`'s finite values lies within `big`'s (from the manifest's statistics;
// true when either has none).
inline bool range_within(const pair_side& small, const pair_side& big) {
  if (!small.have_stats || !big.have_stats) return true;
  if (small.stats.finite == 0) return true;  // nothing to place: the other run must show it
  return big.stats.finite > 0 && small.stats.min >= big.stats.min && small.stats.max <= big.stats.max;
}

}  // namespace part_copy_impl

// The lookup over one compare run: reads values only up to a budget of elements, so that a
// run whose every input differs (other weights) reads at most that much more.
class part_copy_finder {
 public:
  part_copy_finder(open_side_values open, uint64_t budget) : open_(std::move(open)), budget_(budget) {}

  // How input `in` relates to output `out` in both runs.
  part_relation relation(const compared_pair& in, const compared_pair& out) {
    using namespace part_copy_impl;
    if (!open_ || !in.a.present || !in.b.present || !out.a.present || !out.b.present) return part_relation::none;
    if (in.a.type != out.a.type || in.b.type != out.b.type || !float_type(in.a.type) || !float_type(in.b.type))
      return part_relation::none;
    const int64_t ni = numel(in.a), no = numel(out.a);
    if (ni != numel(in.b) || no != numel(out.b) || ni <= 0 || no <= 0) return part_relation::none;
    const bool in_smaller = ni <= no;
    const pair_side* sides[2][2] = {{&in.a, &out.a}, {&in.b, &out.b}};
    for (auto& s : sides)
      if (!range_within(in_smaller ? *s[0] : *s[1], in_smaller ? *s[1] : *s[0])) return part_relation::none;
    ++checks_;
    bool evidence = false;
    for (auto& s : sides) {
      const int c = contained(in_smaller ? *s[0] : *s[1], in_smaller ? *s[1] : *s[0]);
      if (c == 0) return part_relation::none;
      evidence = evidence || c == 2;
    }
    if (!evidence) return part_relation::none;
    return ni == no ? part_relation::reordered : in_smaller ? part_relation::part_of : part_relation::among;
  }

  bool can_read() const { return static_cast<bool>(open_); }
  uint64_t checks() const { return checks_; }     // pairs of tensors whose values were read
  uint64_t values_read() const { return read_; }  // elements read, samples included

 private:
  // Whether evenly spaced samples of `small` each occur in `big`: 0 no (or unread), 1 yes, 2 yes
  // and the samples are evidence.
  int contained(const pair_side& small, const pair_side& big) {
    using namespace part_copy_impl;
    const int64_t ns = numel(small), nb = numel(big);
    const size_t k = static_cast<size_t>(std::min<int64_t>(ns, static_cast<int64_t>(k_samples)));
    if (read_ + k + static_cast<uint64_t>(nb) > budget_) return 0;
    std::unique_ptr<side_values> s = open_(small), b = open_(big);
    if (!s || !b) return 0;
    std::vector<double> want, block;
    for (size_t j = 0; j < k; ++j) {
      const int64_t at = static_cast<int64_t>(static_cast<uint64_t>(j) * static_cast<uint64_t>(ns) / k);
      if (!s->read(at, 1, &block) || block.size() != 1) return 0;
      ++read_;
      if (isfinite(block[0])) want.push_back(block[0] == 0 ? 0.0 : block[0]);  // -0 finds 0
    }
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    size_t fractional = 0;
    for (double v : want) fractional += v != floor(v);
    const size_t needed = std::min<size_t>(8, std::max<size_t>(4, k));
    const int yes = want.size() >= needed && 2 * fractional >= want.size() ? 2 : 1;
    std::vector<char> found(want.size(), 0);
    size_t left = want.size();
    for (int64_t at = 0; at < nb && left; at += static_cast<int64_t>(k_block)) {
      const size_t n = static_cast<size_t>(std::min<int64_t>(nb - at, static_cast<int64_t>(k_block)));
      if (!b->read(at, n, &block)) return 0;
      read_ += n;
      for (double v : block) {
        if (!(v >= want.front() && v <= want.back())) continue;
        const auto it = std::lower_bound(want.begin(), want.end(), v);
        if (it == want.end() || *it != v) continue;
        char& f = found[static_cast<size_t>(it - want.begin())];
        left -= !f;
        f = 1;
      }
    }
    return left == 0 ? yes : 0;
  }

  open_side_values open_;
  uint64_t budget_ = 0, read_ = 0, checks_ = 0;
};

}  // namespace analysis
PROBE_END_NAMESPACE
