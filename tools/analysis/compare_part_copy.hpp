// Whether an input holds part of an earlier output's values (a slice copied out: a head split
// from a fused projection, a row of a batch), that output's values among others (outputs
// concatenated, a cache each step appends to), or its values in another order (a layout
// conversion), copied by code outside any op, in both runs, in its dtype or cast to another
// float dtype (values compared rounded to the narrower one); or each of its values a x + b of
// the output's at the same index (a scaling or a normalisation computed outside any op). Its
// bytes are no output's, so neither the hashes nor the statistics of compare_converted.hpp can
// tell: the values are read. Evenly spaced samples of the smaller tensor must each occur, as
// the same value, in the larger one (a sketch of its values, built once per tensor), in both
// runs. In one run at least the samples must be evidence: distinct, finite, mostly not whole
// numbers (a mask or a count is found in any tensor that holds 0 and 1). The other run need
// only agree: a bug may saturate its values to a few. For compare_graph.hpp's copy lookup.
// Standalone header, plain inline.
#pragma once
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <probe/core/half.hpp>
#include "compare_converted.hpp"
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
  affine,     // as many elements, each a x + b of the output's at its index (a scaling, a normalisation)
  monotone,   // as many elements, each a monotone function of the output's at its index (a tanh, an exp)
  combined,   // as many elements, each a x + b y + c of the output's and another tensor's at its index (a residual)
};

inline const char* part_relation_name(part_relation r) {
  switch (r) {
    case part_relation::part_of: return "part";
    case part_relation::among: return "among";
    case part_relation::reordered: return "reordered";
    case part_relation::affine: return "affine";
    case part_relation::monotone: return "monotone";
    case part_relation::combined: return "combined";
    default: return "";
  }
}

namespace part_copy_impl {

constexpr size_t k_samples = 64;
constexpr size_t k_block = 65536;
constexpr uint64_t k_sketch_bytes = uint64_t{256} << 20;  // kept at once, and the largest one

inline uint64_t value_hash(double v) {
  uint64_t x;
  memcpy(&x, &v, sizeof x);
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline bool float_type(dtype t) {
  return t == dtype::float16 || t == dtype::bfloat16 || t == dtype::float32 || t == dtype::float64;
}

// Values of two float dtypes are compared rounded to the narrower one (a copy that casts).
inline dtype narrower(dtype x, dtype y) {
  return converted_impl::unit_roundoff(x) >= converted_impl::unit_roundoff(y) ? x : y;
}
inline double round_to(dtype t, double v) {
  if (t == dtype::float64 || v != v) return v;
  if (!(fabs(v) <= 3.4028234663852886e38)) return v > 0 ? HUGE_VAL : -HUGE_VAL;  // past float: inf
  const float f = static_cast<float>(v);
  if (t == dtype::float16) return static_cast<double>(to_float(to_float16(f)));
  if (t == dtype::bfloat16) return static_cast<double>(to_float(to_bfloat16(f)));
  return static_cast<double>(f);
}

// Elements of a side; -1 for a shape past 2^62 elements or with a negative extent (a
// damaged header).
inline int64_t numel(const pair_side& s) {
  uint64_t n = 1;
  for (int i = 0; i < s.ndim && i < max_dims; ++i) {
    if (s.shape[i] < 0) return -1;
    const uint64_t d = static_cast<uint64_t>(s.shape[i]);
    if (d && n > (uint64_t{1} << 62) / d) return -1;
    n *= d;
  }
  return static_cast<int64_t>(n);
}

// The range of `small`'s finite values lies within `big`'s, within the rounding to `narrow`
// (from the manifest's statistics; true when either has none).
inline bool range_within(const pair_side& small, const pair_side& big, dtype narrow) {
  if (!small.have_stats || !big.have_stats) return true;
  if (small.stats.finite == 0) return true;  // nothing to place: the other run must show it
  const double u = converted_impl::unit_roundoff(narrow);
  auto slack = [&](double x) { return u * fabs(x) + converted_impl::smallest_step(narrow); };
  return big.stats.finite > 0 && small.stats.min >= big.stats.min - slack(big.stats.min) &&
         small.stats.max <= big.stats.max + slack(big.stats.max);
}

// Whether two pairs' values can be held against each other: one dtype, or float dtypes.
inline bool values_comparable(const compared_pair& x, const compared_pair& y) {
  if (x.a.type != x.b.type || y.a.type != y.b.type) return false;
  return float_type(x.a.type) && float_type(y.a.type);
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
    if (!values_comparable(in, out)) return part_relation::none;
    const dtype narrow = narrower(in.a.type, out.a.type);
    const int64_t ni = numel(in.a), no = numel(out.a);
    if (ni != numel(in.b) || no != numel(out.b) || ni <= 0 || no <= 0) return part_relation::none;
    const bool in_smaller = ni <= no;
    const pair_side* sides[2][2] = {{&in.a, &out.a}, {&in.b, &out.b}};
    for (auto& s : sides)
      if (!range_within(in_smaller ? *s[0] : *s[1], in_smaller ? *s[1] : *s[0], narrow)) return part_relation::none;
    ++checks_;
    bool evidence = false;
    for (auto& s : sides) {
      const int c = contained(in_smaller ? *s[0] : *s[1], in_smaller ? *s[1] : *s[0], narrow);
      if (c == 0) return part_relation::none;
      evidence = evidence || c == 2;
    }
    if (!evidence) return part_relation::none;
    return ni == no ? part_relation::reordered : in_smaller ? part_relation::part_of : part_relation::among;
  }

  // Whether input `in` holds, element by element, a function of output `out`'s values, in
  // both runs, at evenly spaced samples at the same indices: `affine`, a x + b within the
  // rounding of the coarser dtype (a and b fitted to each run: a normalisation by the tensor's
  // own statistics differs between runs); else `monotone`, the samples in the same order (or
  // the reverse) as the output's (a tanh, an exp, a softmax). In one run at least the samples
  // must be evidence: for a line, 8 distinct values, mostly not whole numbers, in each tensor
  // (two ramps of whole numbers fit any line); for an order, 8 distinct values in each and an
  // output that turns up and down at least 4 times along its indices (two sorted tensors
  // share any order).
  part_relation elementwise(const compared_pair& in, const compared_pair& out) {
    using namespace part_copy_impl;
    if (!open_ || !in.a.present || !in.b.present || !out.a.present || !out.b.present) return part_relation::none;
    if (!values_comparable(in, out)) return part_relation::none;
    const int64_t n = numel(in.a);
    if (n <= 0 || n != numel(in.b) || n != numel(out.a) || n != numel(out.b)) return part_relation::none;
    const double u = std::max(converted_impl::unit_roundoff(in.a.type), converted_impl::unit_roundoff(out.a.type));
    const double step = converted_impl::smallest_step(narrower(in.a.type, out.a.type));
    ++checks_;
    int line[2], order[2];
    for (int run = 0; run < 2; ++run) {
      const std::vector<double>& y = indexed_samples(run ? in.b : in.a);
      const std::vector<double>& x = indexed_samples(run ? out.b : out.a);
      if (y.empty() || y.size() != x.size()) return part_relation::none;
      line[run] = fits_line(x, y, u, step);
      order[run] = line[run] ? std::max(line[run], same_order(x, y, u)) : same_order(x, y, u);
      if (!order[run]) return part_relation::none;  // the other run's values are not read
    }
    if (line[0] && line[1] && (line[0] == 2 || line[1] == 2)) return part_relation::affine;
    if (order[0] && order[1] && (order[0] == 2 || order[1] == 2)) return part_relation::monotone;
    return part_relation::none;
  }

  // Whether input `in` holds, element by element, a x + b y + c of output `out`'s values (x)
  // and another tensor `with`'s (y), in both runs, at the same samples as `elementwise`'s: a
  // residual added outside any op (h + f), a blend. a, b and c are fitted to each run; every
  // residual within 64 roundings of its terms. Evidence, in one run at least: x's and y's
  // samples each 8 distinct values, mostly not whole numbers, not on one line, and each term
  // spread at least a thousandth of the input's (a term that adds nothing is not named).
  // `with`'s values are read only where `out`'s fit could not be ruled out.
  bool combined(const compared_pair& in, const compared_pair& out, const compared_pair& with) {
    using namespace part_copy_impl;
    if (!open_ || !with.a.present || !with.b.present || !values_comparable(with, in)) return false;
    if (!in.a.present || !in.b.present || !out.a.present || !out.b.present || !values_comparable(in, out)) return false;
    const int64_t n = numel(in.a);
    if (n <= 0 || n != numel(in.b) || n != numel(out.a) || n != numel(out.b) || n != numel(with.a) || n != numel(with.b))
      return false;
    double u = std::max(converted_impl::unit_roundoff(in.a.type), converted_impl::unit_roundoff(out.a.type));
    u = std::max(u, converted_impl::unit_roundoff(with.a.type));
    const double step = converted_impl::smallest_step(narrower(narrower(in.a.type, out.a.type), with.a.type));
    ++checks_;
    int fit[2];
    for (int run = 0; run < 2; ++run) {
      const std::vector<double>& z = indexed_samples(run ? in.b : in.a);
      const std::vector<double>& x = indexed_samples(run ? out.b : out.a);
      if (z.empty() || z.size() != x.size()) return false;
      const std::vector<double>& y = indexed_samples(run ? with.b : with.a);
      if (y.size() != x.size()) return false;
      fit[run] = fits_plane(x, y, z, u, step);
      if (!fit[run]) return false;  // the other run's values are not read
    }
    return fit[0] == 2 || fit[1] == 2;
  }

  bool can_read() const { return static_cast<bool>(open_); }
  uint64_t checks() const { return checks_; }     // pairs of tensors whose values were read
  uint64_t values_read() const { return read_; }  // elements read, samples included

 private:
  // Evenly spaced samples of a side, distinct and finite, sorted; `strength` 0: unread, 1:
  // read, 2: read and evidence.
  struct samples {
    std::vector<double> values;
    int strength = 0;
    bool tried = false;  // read once, whatever came of it
  };
  // Which values a side holds: a Bloom filter of 8 bits per element and 3 probes (a value it
  // does not hold passes for one with odds of 3%, so 8 samples of another tensor all pass
  // with odds below 1e-12).
  struct sketch {
    std::vector<uint64_t> bits;
    uint64_t mask = 0;
    bool holds(double v) const {
      uint64_t h = part_copy_impl::value_hash(v);
      const uint64_t step = (h >> 32) | 1;
      for (int i = 0; i < 3; ++i, h += step)
        if (!(bits[(h & mask) >> 6] >> (h & 63) & 1)) return false;
      return true;
    }
    void add(double v) {
      uint64_t h = part_copy_impl::value_hash(v);
      const uint64_t step = (h >> 32) | 1;
      for (int i = 0; i < 3; ++i, h += step) bits[(h & mask) >> 6] |= uint64_t{1} << (h & 63);
    }
  };

  // Whether the samples of `small` each occur in `big`: 0 no (or unread), 1 yes, 2 yes and the
  // samples are evidence.
  int contained(const pair_side& small, const pair_side& big, dtype narrow) {
    const samples& want = samples_of(small, narrow);
    if (!want.strength) return 0;
    const sketch* held = sketch_of(big, narrow);
    if (!held) return 0;
    for (double v : want.values)
      if (!held->holds(v)) return 0;
    return want.strength;
  }

  // The samples of a side, read once: the whole tensor in one read when it is small, else one
  // read per sample.
  const samples& samples_of(const pair_side& side, dtype narrow) {
    using namespace part_copy_impl;
    const std::string key = side.file + "\n" + dtype_name(narrow);
    samples& out = samples_[key];
    if (out.tried) return out;
    out.tried = true;
    const std::vector<double>& raw = indexed_samples(side);
    if (raw.empty()) return out;
    std::vector<double> picked;
    for (double v : raw) {
      v = round_to(narrow, v);
      if (isfinite(v)) picked.push_back(v == 0 ? 0.0 : v);  // -0 finds 0
    }
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    size_t fractional = 0;
    for (double v : picked) fractional += v != floor(v);
    const size_t needed = std::min<size_t>(8, std::max<size_t>(4, raw.size()));
    out.strength = picked.size() >= needed && 2 * fractional >= picked.size() ? 2 : 1;
    out.values = std::move(picked);
    return out;
  }

  // Where sample j of k lies among n elements: j * n / k, without overflow.
  static int64_t sample_index(size_t j, size_t k, int64_t n) {
    const uint64_t un = static_cast<uint64_t>(n);
    return static_cast<int64_t>(j * (un / k) + j * (un % k) / k);
  }

  // Evenly spaced samples of a side at fixed indices, unsorted, non-finite ones kept (empty:
  // unread, past the budget or unreadable). Read once per file: the sorted samples of a part
  // and the sketch's read take them too.
  const std::vector<double>& indexed_samples(const pair_side& side) {
    using namespace part_copy_impl;
    auto known = indexed_.find(side.file);
    if (known != indexed_.end()) return known->second;
    std::vector<double>& out = indexed_[side.file];
    const int64_t n = numel(side);
    const size_t k = static_cast<size_t>(std::min<int64_t>(n, static_cast<int64_t>(k_samples)));
    const bool whole = n <= static_cast<int64_t>(k_block);
    if (n <= 0 || read_ + (whole ? static_cast<uint64_t>(n) : k) > budget_) return out;
    std::unique_ptr<side_values> values = open_(side);
    if (!values) return out;
    std::vector<double> block, picked;
    if (whole) {
      if (!values->read(0, static_cast<size_t>(n), &block) || block.size() != static_cast<size_t>(n)) return out;
      read_ += static_cast<uint64_t>(n);
    }
    for (size_t j = 0; j < k; ++j) {
      const int64_t at = sample_index(j, k, n);
      if (whole) {
        picked.push_back(block[static_cast<size_t>(at)]);
        continue;
      }
      std::vector<double> one;
      if (!values->read(at, 1, &one) || one.size() != 1) return out;
      ++read_;
      picked.push_back(one[0]);
    }
    out = std::move(picked);
    return out;
  }

  // Whether y[i] = a x[i] + b for every sample (least squares, then each residual within 64
  // roundings of its terms: the fitted a and b carry rounding of their own): 0 no, 1 yes, 2
  // yes and the samples are evidence. A run whose x
  // holds one value need only have y hold one too (a bug may saturate a run).
  static int fits_line(const std::vector<double>& x, const std::vector<double>& y, double u, double step) {
    size_t m = 0;
    double mx = 0, my = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!isfinite(x[i]) || !isfinite(y[i])) {
        if (!(x[i] != x[i] && y[i] != y[i]) && !(isinf(x[i]) && isinf(y[i]))) return 0;  // NaN to NaN, Inf to Inf
        continue;
      }
      ++m;
      mx += x[i];
      my += y[i];
    }
    if (m == 0) return 0;
    mx /= static_cast<double>(m);
    my /= static_cast<double>(m);
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (isfinite(x[i]) && isfinite(y[i])) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
      }
    const double a = sxx > 0 ? sxy / sxx : 0, b = my - a * mx;
    // b is a difference of means: its rounding is relative to them, not to b (a zero of y
    // where b should be 0 but came out 1e-17)
    const double around = fabs(my) + fabs(a * mx);
    for (size_t i = 0; i < x.size(); ++i)
      if (isfinite(x[i]) && isfinite(y[i]) &&
          !(fabs(y[i] - (a * x[i] + b)) <= 64 * u * (fabs(y[i]) + fabs(a * x[i]) + fabs(b) + around) + step))
        return 0;
    if (a == 0) return sxx > 0 ? 0 : 1;  // y constant while x varies: no map of x; both constant: agrees
    size_t fx = 0, fy = 0;
    const size_t nx = distinct_finite(x, &fx), ny = distinct_finite(y, &fy);
    return nx >= 8 && 2 * fx >= nx && ny >= 8 && 2 * fy >= ny ? 2 : 1;
  }

  // Whether z[i] = a x[i] + b y[i] + c for every sample (least squares over the samples where
  // all three are finite; a non-finite z only where x or y is one): 0 no, 1 yes, 2 yes and the
  // samples are evidence (see `combined`).
  static int fits_plane(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& z,
                        double u, double step) {
    size_t m = 0;
    double mx = 0, my = 0, mz = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const bool inputs_finite = isfinite(x[i]) && isfinite(y[i]);
      if (inputs_finite != static_cast<bool>(isfinite(z[i]))) return 0;
      if (!inputs_finite) continue;
      ++m;
      mx += x[i], my += y[i], mz += z[i];
    }
    if (m < 3) return 0;
    mx /= static_cast<double>(m), my /= static_cast<double>(m), mz /= static_cast<double>(m);
    double sxx = 0, syy = 0, sxy = 0, sxz = 0, syz = 0, szz = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!isfinite(z[i])) continue;
      const double dx = x[i] - mx, dy = y[i] - my, dz = z[i] - mz;
      sxx += dx * dx, syy += dy * dy, sxy += dx * dy, sxz += dx * dz, syz += dy * dz, szz += dz * dz;
    }
    const double det = sxx * syy - sxy * sxy;
    // x and y on one line (or one constant) in this run (a tanh of small values is linear to
    // float32's precision): no plane to fit, but the run agrees when the input lies on that
    // line too; the other run must give the evidence
    if (!(det > 1e-9 * sxx * syy)) return fits_line(x, z, u, step) ? 1 : 0;
    double a = (sxz * syy - syz * sxy) / det, b = (syz * sxx - sxz * sxy) / det, c = mz - a * mx - b * my;
    // The normal equations square the conditioning of correlated x and y (a and b came out 100
    // roundings off): solved once more for what the fit leaves, they give back those digits.
    double mr = 0, sxr = 0, syr = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (isfinite(z[i])) mr += z[i] - (a * x[i] + b * y[i] + c);
    mr /= static_cast<double>(m);
    for (size_t i = 0; i < x.size(); ++i) {
      if (!isfinite(z[i])) continue;
      const double r = z[i] - (a * x[i] + b * y[i] + c) - mr;
      sxr += (x[i] - mx) * r, syr += (y[i] - my) * r;
    }
    const double da = (sxr * syy - syr * sxy) / det, db = (syr * sxx - sxr * sxy) / det;
    a += da, b += db, c += mr - da * mx - db * my;
    const double around = fabs(mz) + fabs(a * mx) + fabs(b * my);  // c's rounding, as fits_line's b
    for (size_t i = 0; i < x.size(); ++i)
      if (isfinite(z[i]) &&
          !(fabs(z[i] - (a * x[i] + b * y[i] + c)) <=
            64 * u * (fabs(z[i]) + fabs(a * x[i]) + fabs(b * y[i]) + fabs(c) + around) + step))
        return 0;
    // each term must move the input: a term spread a thousandth of its own is no part of it
    if (!(a * a * sxx > 1e-6 * szz) || !(b * b * syy > 1e-6 * szz)) return 0;
    size_t fx = 0, fy = 0;
    const size_t nx = distinct_finite(x, &fx), ny = distinct_finite(y, &fy);
    return nx >= 8 && 2 * fx >= nx && ny >= 8 && 2 * fy >= ny ? 2 : 1;
  }

  // How many distinct finite values v holds; *fractional (when given): how many of them are
  // not whole numbers. Non-finite values are left out before sorting (a NaN has no order).
  static size_t distinct_finite(const std::vector<double>& v, size_t* fractional) {
    std::vector<double> f;
    for (double t : v)
      if (isfinite(t)) f.push_back(t);
    std::sort(f.begin(), f.end());
    f.erase(std::unique(f.begin(), f.end()), f.end());
    if (fractional) {
      *fractional = 0;
      for (double t : f) *fractional += t != floor(t);
    }
    return f.size();
  }

  // Whether y's samples are in x's order, or in its reverse, within 4 roundings (a function
  // computed in floating point may step back by an ulp): 0 no, 1 yes, 2 yes and the samples
  // are evidence. Non-finite values must sit at the same samples.
  static int same_order(const std::vector<double>& x, const std::vector<double>& y, double u) {
    std::vector<std::pair<double, double>> xy;
    for (size_t i = 0; i < x.size(); ++i) {
      if (isfinite(x[i]) != isfinite(y[i])) return 0;
      if (isfinite(x[i])) xy.emplace_back(x[i], y[i]);
    }
    if (xy.size() < 2) return 0;
    std::sort(xy.begin(), xy.end());
    bool up = true, down = true;
    for (size_t i = 1; i < xy.size(); ++i) {
      const double slack = 4 * u * std::max(fabs(xy[i].second), fabs(xy[i - 1].second));
      if (xy[i].first == xy[i - 1].first && xy[i].second != xy[i - 1].second) return 0;  // a function
      up = up && xy[i].second >= xy[i - 1].second - slack;
      down = down && xy[i].second <= xy[i - 1].second + slack;
    }
    if (!up && !down) return 0;
    int turns = 0, last = 0;  // changes of direction of x along its indices
    for (size_t i = 1; i < x.size(); ++i) {
      if (!isfinite(x[i]) || !isfinite(x[i - 1]) || x[i] == x[i - 1]) continue;
      const int dir = x[i] > x[i - 1] ? 1 : -1;
      turns += last != 0 && dir != last;
      last = dir;
    }
    // x and y are finite at the same samples (above)
    return distinct_finite(x, nullptr) >= 8 && distinct_finite(y, nullptr) >= 8 && turns >= 4 ? 2 : 1;
  }

  // The sketch of a side, built once by reading it whole (nullptr: past the budget, too large
  // to keep, or unreadable). Sketches kept past k_sketch_bytes are dropped, all at once.
  const sketch* sketch_of(const pair_side& side, dtype narrow) {
    using namespace part_copy_impl;
    const std::string key = side.file + "\n" + dtype_name(narrow);
    auto known = sketches_.find(key);
    if (known != sketches_.end()) return known->second.bits.empty() ? nullptr : &known->second;
    const int64_t n = numel(side);
    if (n < 0 || static_cast<uint64_t>(n) > k_sketch_bytes) return nullptr;
    uint64_t bits = 64;
    while (bits < 8 * static_cast<uint64_t>(n)) bits *= 2;
    if (bits / 8 > k_sketch_bytes || read_ + static_cast<uint64_t>(n) > budget_) return nullptr;
    if (sketch_bytes_ + bits / 8 > k_sketch_bytes) {
      sketches_.clear();
      sketch_bytes_ = 0;
    }
    sketch& made = sketches_[key];  // empty until built: a failed read is not tried again
    std::unique_ptr<side_values> values = open_(side);
    if (!values) return nullptr;
    sketch s;
    s.bits.assign(static_cast<size_t>(bits / 64), 0);
    s.mask = bits - 1;
    std::vector<double> block, picked;
    const size_t k = static_cast<size_t>(std::min<int64_t>(n, static_cast<int64_t>(k_samples)));
    const bool pick = indexed_.find(side.file) == indexed_.end();  // the samples, on the way
    size_t next = 0;
    for (int64_t at = 0; at < n; at += static_cast<int64_t>(k_block)) {
      const size_t m = static_cast<size_t>(std::min<int64_t>(n - at, static_cast<int64_t>(k_block)));
      if (!values->read(at, m, &block) || block.size() != m) return nullptr;
      read_ += m;
      for (; pick && next < k && sample_index(next, k, n) < at + static_cast<int64_t>(m); ++next)
        picked.push_back(block[static_cast<size_t>(sample_index(next, k, n) - at)]);
      for (double v : block) {
        v = round_to(narrow, v);
        if (isfinite(v)) s.add(v == 0 ? 0.0 : v);
      }
    }
    made = std::move(s);
    sketch_bytes_ += bits / 8;
    if (pick && picked.size() == k) indexed_[side.file] = std::move(picked);
    return &made;
  }

  open_side_values open_;
  uint64_t budget_ = 0, read_ = 0, checks_ = 0, sketch_bytes_ = 0;
  std::unordered_map<std::string, samples> samples_;  // by data file and the dtype rounded to
  std::unordered_map<std::string, sketch> sketches_;  // by data file and the dtype rounded to
  std::unordered_map<std::string, std::vector<double>> indexed_;  // by data file
};

}  // namespace analysis
PROBE_END_NAMESPACE
