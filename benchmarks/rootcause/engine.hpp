// A small engine as data: buffers, op executions in program order (each with its step, its
// kernel, what it reads and writes, and how it is marked), code outside any op, and the one
// planted bug. The kernels are plain functions of their inputs and attributes, shared by the
// interpreter (rootcause/run.hpp) and the replay kernels, so that replaying an op with the
// engine's own kernel must reproduce its recorded outputs exactly.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace rc {

enum class kind : uint8_t {
  load,     // y from a seeded hash (a: seed, |b|: magnitude); b < 0: rows that cancel in a sum
  affine,   // y = a x0 + b
  tanh_,    // y = tanh(a x0) + b
  add,      // y = x0 + a x1
  fold,     // y[i] = x0[i] + a x0[i + n]: reads a buffer two writers filled
  stencil,  // y[i] = x0[i+1] + a (x0[i] - 2 x0[i+1] + x0[i+2]): x0 has 2 more elements
  matvec,   // y = tanh(a W x0 / sqrt(n)) + b, W (x1) is [n(y), n(x0)]
  reduce,   // y[r] = sum of row r of x0 ([n(y), C]); in reversed order where reassociated
  copy,     // y = x0
};

inline const char* kind_type(kind k) {
  static const char* const names[] = {"Load", "Affine", "Tanh", "Add", "Fold", "Stencil", "MatVec", "Reduce", "Copy"};
  return names[static_cast<int>(k)];
}

// How the output is marked: declared after the kernel; output_at_end before it; inout (the
// region is also the op's input, declared so); implicit in place (input x0 and output y are
// the same bytes, declared as input and output); a local buffer declared after the op,
// written, declared, then moved into the engine's buffer (its old storage freed).
enum class mark : uint8_t { after, at_end, inout, implicit, local };

struct region {
  int buf = -1;
  int off = 0, len = 0;
  int rows = 0;  // > 0: a 2-D view [rows, len / rows]
  // > 0: declared strided, `stride` elements from one element (a 2-D view: one row) to the
  // next (a worker's interleaved rows); the region then spans more than `len` elements
  int stride = 0;
};

struct op_desc {
  std::string name;
  kind k = kind::affine;
  mark m = mark::after;
  std::vector<region> in;  // slots x0, x1; for inout the first is the output region itself
  region out;              // slot y
  double a = 1, b = 0;
  int step = 0;
  int tiles = 0;           // > 0: computed by worker ops on threads adopting this op's context
  std::vector<int> tile_order_a;  // the order A starts the workers in (B: 0, 1, ...)
  // tiles: worker t computes elements (matvec: rows) t, t + tiles, t + 2 tiles, ... of the
  // output and declares strided views of them, as an OpenMP loop with a static schedule of
  // chunk 1 does (else the contiguous block [n t / tiles, n (t + 1) / tiles)); of an output
  // of out.rows rows, rows t, t + tiles, ...: a 2-D view [rows of t, C], strides [tiles C, 1]
  bool interleaved = false;
  // tiles: worker t's op is begun with the index t (C++ probe::op(name, type, t), C
  // probe_op_begin(name, type, t)), so each worker has a name of its own, "L<t>.<name>.tile"
  bool tile_indexed = false;
  int net = -1;            // two copies: which copy (its ops run on that copy's thread)
  bool only_a = false;     // runs in A only (the op sequences differ)
  bool reassoc_a = false;  // reduce: reassociated in A (a rounding-only difference)
  // marked through the C API (probe.h), as a C solver marks: probe_op_begin with the layer
  // index, probe_op_output / _output_at_end / _inout, probe_op_adopt on worker threads; a
  // local is a malloc'd buffer declared, copied into the engine's buffer and freed inside the op
  bool c_api = false;
  // > 0: a block op (a module, a layer) enclosing the next `encloses` ops on its thread: it
  // declares in[0] before them and `out` (written by them) after; it computes nothing itself
  int encloses = 0;
};

// The elements of an op's output that its worker t computes: `count` from `first`, in runs
// of `width` (interleaved rows) that start `stride` apart.
struct tile_span {
  int first = 0, count = 0, stride = 1;
  int width = 1;
  // the index of the worker's k-th element
  int at(int k) const { return first + k / width * stride + k % width; }
};
inline tile_span tile_of(const op_desc& d, int t) {
  const int n = d.out.len, tiles = d.tiles;
  tile_span s;
  if (d.interleaved) {
    const int width = d.out.rows > 0 ? n / d.out.rows : 1, rows = n / width;
    s.first = t * width;
    s.count = t < rows ? (rows - t + tiles - 1) / tiles * width : 0;
    s.stride = tiles * width;
    s.width = width;
  } else {
    s.first = n * t / tiles;
    s.count = n * (t + 1) / tiles - s.first;
  }
  return s;
}
// The name of worker t's op.
inline std::string tile_name(const op_desc& d, int t) {
  return d.tile_indexed ? "L" + std::to_string(t) + "." + d.name + ".tile" : d.name + ".tile";
}

// Code outside any op, right after op `after`: region *= factor (the same in both runs, unless
// it is the planted change); or, with `from` set, region = from (a copy no op records, into a
// buffer no op writes; cast when the buffer holds the other dtype; reordered with `order`).
struct outside_write {
  int after = 0;
  region r;
  double factor = 0.5;
  region from;
  // a copy: 0 as it is, 1 reversed, 2 transposed from [2, len / 2] (a layout conversion);
  // k_derived: no copy, values computed from `from`: factor x + shift, with `normalize`
  // (x - mean) / std over `from` in the run, with `squash` tanh(factor x + shift); with
  // `with` set (a residual), factor x + with_factor w + shift, w the values of `with` (as
  // many, the same dtype, a buffer an earlier op read or wrote: the residual stream)
  int order = 0;
  double shift = 0;
  bool normalize = false, squash = false;
  region with;
  double with_factor = 0;
};

constexpr int k_derived = 3;

// The index of `from` that element k of a copy of n elements reads, in `order`.
inline int copy_source_index(int order, int k, int n) {
  if (order == 1) return n - 1 - k;
  if (order == 2 && n % 2 == 0) return (k % 2) * (n / 2) + k / 2;
  return k;
}

// The one planted difference of run A: `count` elements from `first` of the op's output (of
// tile `tile` when tiled) move by `size` times their tolerance; or, with outside >= 0, the
// code outside any op writes those elements so.
struct bug {
  int op = -1, tile = -1, outside = -1;
  int first = 0, count = 0;
  double size = 0;  // multiple of the element's tolerance, signed
};

struct engine {
  bool f64 = false;
  std::vector<int> buf_len;
  std::vector<char> preset;  // per buffer: holds seeded values before any op (weights loaded unmarked)
  // per buffer: holds the other float dtype (float64 in a float32 engine, and the reverse); a
  // copy outside any op into it casts, and an op reading or writing it converts at its edge
  std::vector<char> other_type;
  std::vector<op_desc> ops;
  std::vector<outside_write> outside;
  int steps = 1;
  bool swap_nets_in_a = false;  // two copies: A starts copy 1's thread first
};

// The default tolerance of probe compare for the engine's dtype (core/tolerance.hpp).
inline double atol_of(bool f64) { return f64 ? 1e-8 : 1e-5; }
inline double rtol_of(bool f64) { return f64 ? 1e-7 : 1e-5; }

inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// A value in [-1, 1) from (seed, i).
inline double hash_unit(double seed, int64_t i) {
  const uint64_t h = mix64(static_cast<uint64_t>(seed) * 0x100000001B3ull + static_cast<uint64_t>(i));
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// The kernel of one op on one slice: y (ny elements) from x0 (n0) and x1 (n1). `rows` is the
// output's row count for reduce. Values are computed in T, as an engine would.
template <class T>
void compute(kind k, double a, double b, const T* x0, int64_t n0, const T* x1, int64_t n1, T* y, int64_t ny,
             bool reassoc, int64_t y_offset = 0) {
  const T ta = static_cast<T>(a), tb = static_cast<T>(b);
  switch (k) {
    case kind::load: {
      // b < 0 and rows of n1 values: every third row sums to almost nothing (its second half
      // cancels its first), so that a reassociated sum fails there by rounding alone
      const double eps = sizeof(T) == 8 ? 1e-12 : 1e-6, mag = std::fabs(b);
      for (int64_t i = 0; i < ny; ++i) {
        const int64_t g = i + y_offset;
        if (b >= 0 || n1 <= 0) {
          y[i] = static_cast<T>(mag * hash_unit(a, g));
          continue;
        }
        const int64_t r = g / n1, c = g % n1, half = n1 / 2;
        if (r % 3 == 0 && c >= half)
          y[i] = static_cast<T>(-mag * hash_unit(a, r * n1 + c - half) * (1 + eps * hash_unit(a + 1, g)));
        else
          y[i] = static_cast<T>(mag * hash_unit(a, g));
      }
      break;
    }
    case kind::affine:
      for (int64_t i = 0; i < ny; ++i) y[i] = ta * x0[i] + tb;
      break;
    case kind::tanh_:
      for (int64_t i = 0; i < ny; ++i) y[i] = static_cast<T>(std::tanh(ta * x0[i])) + tb;
      break;
    case kind::add:
      for (int64_t i = 0; i < ny; ++i) y[i] = x0[i] + ta * x1[i];
      break;
    case kind::fold:
      for (int64_t i = 0; i < ny; ++i) y[i] = x0[i] + ta * x0[i + ny];
      break;
    case kind::stencil:
      for (int64_t i = 0; i < ny; ++i) y[i] = x0[i + 1] + ta * (x0[i] - 2 * x0[i + 1] + x0[i + 2]);
      break;
    case kind::matvec: {
      const T scale = static_cast<T>(a / std::sqrt(static_cast<double>(n0 > 0 ? n0 : 1)));
      for (int64_t r = 0; r < ny; ++r) {
        T s = 0;
        for (int64_t c = 0; c < n0; ++c) s += x1[r * n0 + c] * x0[c];
        y[r] = static_cast<T>(std::tanh(scale * s)) + tb;
      }
      (void)n1;
      break;
    }
    case kind::reduce: {
      const int64_t cols = ny > 0 ? n0 / ny : 0;
      for (int64_t r = 0; r < ny; ++r) {
        T s = 0;
        if (reassoc)
          for (int64_t c = cols; c-- > 0;) s += x0[r * cols + c];
        else
          for (int64_t c = 0; c < cols; ++c) s += x0[r * cols + c];
        y[r] = s;
      }
      break;
    }
    case kind::copy:
      for (int64_t i = 0; i < ny; ++i) y[i] = x0[i];
      break;
  }
}

// The elements an output region holds, and those of its inputs, per kind.
inline int64_t input_len_for(kind k, int64_t ny, int64_t n0) {
  switch (k) {
    case kind::fold: return 2 * ny;
    case kind::stencil: return ny + 2;
    default: return n0;
  }
}

}  // namespace rc
