// Generated engines for the root-cause benchmark: one seed gives one engine (5 to 60 op
// executions over 1 to 4 steps, float32 or float64, marks drawn the way engines mark) of a
// buffer pattern, with one planted difference in run A and what probe compare should answer.
#pragma once
#include <stdint.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine.hpp"

namespace rc {

enum class pattern : uint8_t {
  basic, partial, inplace, scratch, pingpong, halo, weights, workers, two_nets, outside_op, extra_op, rounding, locals,
  copies, casts, slices, gathers, layouts, cast_slices, c_callers, nested, derived, count
};

inline const char* pattern_name(pattern p) {
  static const char* const names[] = {"basic",    "partial",  "inplace",    "scratch",  "pingpong", "halo",  "weights",
                                      "workers",  "two_nets", "outside_op", "extra_op", "rounding", "locals",
                                      "copies",   "casts",    "slices",   "gathers",  "layouts",
                                      "cast_slices", "c_callers", "nested", "derived"};
  return names[static_cast<int>(p)];
}

struct rng {
  uint64_t s;
  explicit rng(uint64_t seed) : s(mix64(seed ^ 0x5DEECE66Dull)) {}
  uint64_t next() { return s = mix64(s); }
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }  // inclusive
  bool chance(double p) { return unit() < p; }
  double sign() { return chance(0.5) ? 1 : -1; }
};

// One generated pair and what a right answer is.
struct gen_case {
  uint64_t seed = 0;
  pattern pat = pattern::basic;
  engine e;
  bug b;
  bool rounding_only = false;  // no bug: one op reassociates a sum in A
  bool outside_change = false;  // the planted change is code outside any op: a hint, no root
  int root_op = -1, root_tile = -1;  // the op execution that is the one root (-1: none)
  int replay_op = -1, replay_tile = -1;  // the op replayed (from run B's snapshots)
};

class builder {
 public:
  builder(rng& r, engine& e) : r_(r), e_(e) {}

  int buf(int n, bool preset = false, bool other_type = false) {
    e_.buf_len.push_back(n);
    e_.preset.push_back(preset ? 1 : 0);
    e_.other_type.push_back(other_type ? 1 : 0);
    return static_cast<int>(e_.buf_len.size()) - 1;
  }
  region whole(int b, int rows = 0) const { return region{b, 0, e_.buf_len[static_cast<size_t>(b)], rows}; }
  static region part(int b, int off, int len) { return region{b, off, len, 0}; }

  // Appends an op with parameters drawn for its kind and a mark drawn among after (half),
  // output_at_end and a local (allow_local), unless `m` is given.
  int op(kind k, const std::string& name, std::vector<region> in, region out, int step, int m = -1,
         bool allow_local = true) {
    op_desc d;
    d.k = k;
    d.name = name;
    d.in = std::move(in);
    d.out = out;
    d.step = step;
    switch (k) {
      case kind::load: d.a = r_.range(1, 1 << 20); d.b = r_.uniform(1, 4); break;
      case kind::affine:
        d.a = r_.sign() * (r_.chance(0.5) ? r_.uniform(0.5, 0.9) : r_.uniform(1.1, 1.3));
        d.b = r_.sign() * r_.uniform(0.1, 1);
        break;
      case kind::tanh_: d.a = r_.sign() * r_.uniform(0.3, 1.5); d.b = r_.sign() * r_.uniform(0.1, 0.5); break;
      case kind::add: case kind::fold: d.a = r_.sign() * r_.uniform(0.3, 1); break;
      case kind::stencil: d.a = r_.uniform(0.1, 0.25); break;
      case kind::matvec: d.a = r_.uniform(0.5, 2); d.b = r_.sign() * r_.uniform(0.1, 0.5); break;
      default: break;
    }
    if (m >= 0) {
      d.m = static_cast<mark>(m);
    } else {
      const double u = r_.unit();
      // a local replaces the whole buffer, so it is declared whole
      const bool whole_out = out.off == 0 && out.len == e_.buf_len[static_cast<size_t>(out.buf)];
      d.m = u < 0.5 ? mark::after : (u < 0.75 || !allow_local || !whole_out) ? mark::at_end : mark::local;
    }
    e_.ops.push_back(std::move(d));
    return static_cast<int>(e_.ops.size()) - 1;
  }

  // A random layer op x -> y (same length): affine, tanh, add (with `other`) or matvec (with W).
  int layer(const std::string& prefix, region x, region y, region other, int w, int step) {
    const double u = r_.unit();
    if (u < 0.3) return op(kind::affine, prefix + ".affine", {x}, y, step);
    if (u < 0.6 || (u >= 0.8 && w < 0)) return op(kind::tanh_, prefix + ".tanh", {x}, y, step);
    if (u < 0.8) return op(kind::add, prefix + ".add", {x, other}, y, step);
    return op(kind::matvec, prefix + ".matvec", {x, whole(w, y.len)}, y, step);
  }

  rng& r() { return r_; }
  engine& e() { return e_; }

 private:
  rng& r_;
  engine& e_;
};

// Draws the planted bug's elements and size on an output of `len` elements.
inline void draw_bug_size(rng& r, int len, bug* b) {
  const double u = r.unit();
  if (u < 0.4 || len < 2) {
    b->count = 1;
    b->first = r.range(0, len - 1);
  } else if (u < 0.7) {
    b->count = r.range(2, len / 2 > 2 ? len / 2 : 2);
    if (b->count > len) b->count = len;
    b->first = r.range(0, len - b->count);
  } else {
    b->first = 0;
    b->count = len;
  }
  b->size = r.sign() * std::pow(10.0, r.uniform(1, 6));  // 10x the tolerance to 1e6x
}

namespace gen_impl {

// Ops per layer of each pattern, to spread 5..60 executions over the steps.
inline int layers_for(rng& r, int steps, int per_layer, int fixed) {
  const int total = r.range(5, 60) - fixed;
  int n = total / (steps * per_layer);
  return n < 1 ? 1 : n;
}

inline std::string layer_name(int l) { return "L" + std::to_string(l); }

}  // namespace gen_impl

}  // namespace rc
