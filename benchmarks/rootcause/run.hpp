// Runs an engine description (rootcause/engine.hpp) through the public marking API, the way
// engines mark: probe::op per execution, attributes, inputs, outputs declared after the
// kernel or with output_at_end before it, inout, subviews, locals declared after the op,
// worker threads adopting the op context, copies of a network on their own threads, and
// code outside any op. The dump is whatever the flags ask for (probe writes it).
#pragma once
#include <probe/probe.h>
#include <probe/probe.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "engine.hpp"

namespace rc {

// What one run did: each op execution's sequence number (0: it did not run), each worker
// op's, and the names of ops that read bytes code outside any op wrote last.
struct run_record {
  std::vector<uint64_t> seq;
  std::vector<std::vector<uint64_t>> tile_seq;
  std::vector<std::string> stale_readers;
  std::vector<std::string> outside_readers;  // of those, the ops that read bytes code outside any op wrote
  // the values of each copy no op declared (outside any op, or a C local copied into place),
  // in order, with the dtype the copy holds and the op whose result it copies
  std::vector<std::vector<double>> copied;
  std::vector<char> copied_f64;
  std::vector<std::string> copied_from;
  std::vector<char> copy_read;     // an op read some of the copy's bytes
  std::vector<char> copy_outside;  // made by code outside any op (else by an op, into place)
  // the values code outside any op computed from an output (not a copy), in order, the ops
  // whose outputs they were computed from (a residual's writer too: not one per value), and
  // the op that read them
  std::vector<std::vector<double>> derived;
  std::vector<std::string> derived_from, derived_reader;
  // each op's (and worker op's) output differs from itself shifted by one element, and from
  // zero: an off-by-one kernel, or one that computes nothing, can be told from the right one
  std::vector<char> varied;
  std::vector<std::vector<char>> tile_varied;
};

// One op execution marked through the C++ API (probe::op) or, for an op_desc marked c_api,
// through the C API (probe.h), as a C solver marks it: "L<l>.<name>" begun as <name> with
// the layer index l. With `index` >= 0 (a worker's own index), `name` is begun whole with
// that index (probe::op(name, type, index), probe_op_begin(name, type, index)): the op is
// named "L<index>.<name>".
class marker {
 public:
  marker(bool c_api, const std::string& name, const char* type, int64_t worker_index = -1) {
    if (worker_index >= 0) {
      if (!c_api) cxx_.emplace(name.c_str(), type, worker_index);
      else c_ = probe_op_begin(name.c_str(), type, worker_index);
      c_begun_ = c_api;
      return;
    }
    if (!c_api) {
      cxx_.emplace(name.c_str(), type);
      return;
    }
    int64_t index = -1;
    size_t dot = std::string::npos;
    if (name.size() > 2 && name[0] == 'L' && name[1] >= '0' && name[1] <= '9') {
      dot = name.find('.');
      if (dot != std::string::npos) index = std::strtoll(name.c_str() + 1, nullptr, 10);
    }
    c_ = probe_op_begin(index >= 0 ? name.c_str() + dot + 1 : name.c_str(), type, index);
    c_begun_ = true;
  }
  ~marker() {
    if (c_begun_) probe_op_end(c_);
  }
  marker(const marker&) = delete;
  marker& operator=(const marker&) = delete;

  void attrs(double a, double b, bool f64, bool y_other) {
    if (cxx_) {
      cxx_->attr("a", a).attr("b", b).attr("f64", f64 ? 1 : 0).attr("y_other", y_other ? 1 : 0);
      return;
    }
    probe_op_attr_double(c_, "a", a);
    probe_op_attr_double(c_, "b", b);
    probe_op_attr_int(c_, "f64", f64 ? 1 : 0);
    probe_op_attr_int(c_, "y_other", y_other ? 1 : 0);
  }
  enum class io { in, out, inout, out_at_end };
  // `r` from `p` (its buf and off unused); r.stride > 0: a strided view (strides
  // [r.stride] or [r.stride, 1]), through probe::view with strides or probe_tensor_strided.
  template <class V>
  void tensor(io which, const char* slot, const V* p, const region& r) {
    const int64_t shape[2] = {r.rows > 0 ? r.rows : r.len, r.rows > 0 ? r.len / r.rows : 1};
    const int ndim = r.rows > 0 ? 2 : 1;
    const int64_t strides[2] = {r.stride, 1};
    if (cxx_) {
      const probe::tensor_view v =
          r.stride > 0 ? (ndim == 2 ? probe::view(p, {shape[0], shape[1]}, {strides[0], strides[1]})
                                    : probe::view(p, {shape[0]}, {strides[0]}))
                       : ndim == 2 ? probe::view(p, {shape[0], shape[1]}) : probe::view(p, {shape[0]});
      if (which == io::in) cxx_->input(slot, v);
      else if (which == io::out) cxx_->output(slot, v);
      else if (which == io::inout) cxx_->inout(slot, v);
      else cxx_->output_at_end(slot, v);
      return;
    }
    const probe_dtype t = sizeof(V) == 8 ? PROBE_FLOAT64 : PROBE_FLOAT32;
    if (r.stride > 0) {
      static const probe_io ios[] = {PROBE_IN, PROBE_OUT, PROBE_INOUT, PROBE_OUT_AT_END};
      probe_op_tensor(c_, ios[static_cast<int>(which)], slot, probe_tensor_strided(p, t, ndim, shape, strides));
      return;
    }
    if (which == io::in) probe_op_input(c_, slot, p, t, ndim, shape);
    else if (which == io::out) probe_op_output(c_, slot, p, t, ndim, shape);
    else if (which == io::inout) probe_op_inout(c_, slot, p, t, ndim, shape);
    else probe_op_output_at_end(c_, slot, p, t, ndim, shape);
  }
  uint64_t sequence() const { return cxx_ ? cxx_->sequence() : probe_op_sequence(c_); }

 private:
  std::optional<probe::op> cxx_;
  probe_op* c_ = nullptr;
  bool c_begun_ = false;
};

template <class T>
class interpreter {
  // the other float dtype, which buffers marked other_type hold
  using U = typename std::conditional<std::is_same<T, float>::value, double, float>::type;

 public:
  interpreter(const engine& e, const bug* planted, bool side_a) : e_(e), bug_(planted), side_a_(side_a) {
    for (size_t b = 0; b < e.buf_len.size(); ++b) {
      const size_t n = static_cast<size_t>(e.buf_len[b]);
      const bool other = b < e.other_type.size() && e.other_type[b];
      bufs_.emplace_back(other ? 0 : n, T(0));
      ubufs_.emplace_back(other ? n : 0, U(0));
      stale_.emplace_back(n, 0);
      if (b < e.preset.size() && e.preset[b])
        for (size_t i = 0; i < n; ++i) bufs_[b][i] = static_cast<T>(0.5 * hash_unit(1000.0 + b, static_cast<int64_t>(i)));
    }
    rec_.seq.assign(e.ops.size(), 0);
    rec_.tile_seq.assign(e.ops.size(), {});
    rec_.varied.assign(e.ops.size(), 0);
    rec_.tile_varied.assign(e.ops.size(), {});
  }

  run_record run() {
    int step = -1;
    for (size_t i = 0; i < e_.ops.size();) {
      const op_desc& d = e_.ops[i];
      if (d.step != step) {
        step = d.step;
        probe::set_step(step);
      }
      if (d.net < 0) {
        if (!d.only_a || side_a_) exec(i);  // a block runs the ops it encloses
        const size_t end = i + 1 + static_cast<size_t>(d.encloses);
        for (; i < end; ++i) after_op(i);
        continue;
      }
      // a block of ops of the network copies: each copy's ops on its own thread, the threads
      // started (and joined) one after the other, in the order this run takes
      size_t end = i;
      while (end < e_.ops.size() && e_.ops[end].net >= 0 && e_.ops[end].step == step) ++end;
      const bool swap = side_a_ && e_.swap_nets_in_a;
      for (int k = 0; k < 2; ++k) {
        const int net = swap ? 1 - k : k;
        std::thread t([&, net] {
          for (size_t j = i; j < end; ++j)
            if (e_.ops[j].net == net) exec(j);
        });
        t.join();
      }
      for (size_t j = i; j < end; ++j) after_op(j);
      i = end;
    }
    return rec_;
  }

 private:
  T* at(const region& r) { return bufs_[static_cast<size_t>(r.buf)].data() + r.off; }
  U* at_other(const region& r) { return ubufs_[static_cast<size_t>(r.buf)].data() + r.off; }
  bool other(const region& r) const { return !ubufs_[static_cast<size_t>(r.buf)].empty(); }
  double tol(double v) const { return atol_of(e_.f64) + rtol_of(e_.f64) * std::fabs(v); }
  bool varied(const T* y, int len) const {
    bool shifted = false, nonzero = false;
    for (int i = 0; i < len; ++i) {
      const double v = static_cast<double>(y[i]), next = static_cast<double>(y[(i + 1) % len]);
      shifted = shifted || std::fabs(v - next) > 10 * tol(next);
      nonzero = nonzero || std::fabs(v) > 10 * tol(0);
    }
    return shifted && nonzero;
  }
  // Elements `first` to first + count of those `s` names from y (a worker's interleaved rows:
  // the bug's elements are of the worker's own). `stored_other`: y is cast to the other dtype
  // (casts), so the bug is sized by the looser of the two tolerances, or it would vanish in
  // the cast (a float64 bug of 85 tolerances is within float32's).
  void plant(T* y, const tile_span& s, bool stored_other = false) {
    for (int i = bug_->first; i < bug_->first + bug_->count && i < s.count; ++i) {
      T& v = y[s.at(i)];
      const double x = static_cast<double>(v);
      const double other_tol = atol_of(!e_.f64) + rtol_of(!e_.f64) * std::fabs(x);
      v = static_cast<T>(x + bug_->size * (stored_other ? std::max(tol(x), other_tol) : tol(x)));
    }
  }

  // Code outside any op after op i.
  void after_op(size_t i) {
    for (size_t w = 0; w < e_.outside.size(); ++w) {
      const outside_write& o = e_.outside[w];
      if (o.after != static_cast<int>(i)) continue;
      if (other(o.r)) {  // a cast copy (casts): no bug is planted in it
        U* p = at_other(o.r);
        const T* src = at(o.from);
        for (int k = 0; k < o.r.len; ++k) p[k] = static_cast<U>(src[k]);
        mark_stale(o.r, note_copy(p, o.r.len, !e_.f64, e_.ops[i].name, true));
        continue;
      }
      T* p = at(o.r);
      int copy = -1;
      if (o.from.buf >= 0 && o.order == k_derived) {
        const T* src = at(o.from);
        double a = o.factor, b = o.shift;
        if (o.normalize) {  // by the statistics of this run's values
          double mean = 0, var = 0;
          for (int k = 0; k < o.r.len; ++k) mean += static_cast<double>(src[k]) / o.r.len;
          for (int k = 0; k < o.r.len; ++k) var += (static_cast<double>(src[k]) - mean) * (static_cast<double>(src[k]) - mean) / o.r.len;
          a = 1 / std::sqrt(var + 1e-5);
          b = -mean * a;
        }
        const T* with = o.with.buf >= 0 ? at(o.with) : nullptr;  // a residual stream, added
        for (int k = 0; k < o.r.len; ++k) {
          double v = a * static_cast<double>(src[k]) + b;
          if (with) v += o.with_factor * static_cast<double>(with[k]);
          p[k] = static_cast<T>(o.squash ? std::tanh(v) : v);
        }
        rec_.derived.emplace_back(p, p + o.r.len);
        rec_.derived_from.push_back(e_.ops[i].name);
        // With a residual, the values may be a function of `with` alone (tanh(y) + y of the
        // y that x = tanh(y) was computed from): naming the op that wrote it is true too.
        for (size_t j = i + 1; o.with.buf >= 0 && j-- > 0;)
          if (e_.ops[j].out.buf == o.with.buf) {
            rec_.derived_from.push_back(e_.ops[j].name);
            break;
          }
        rec_.derived_reader.push_back(std::string());  // the op that reads it: set by note_reads
        derived_at_ = static_cast<int>(rec_.derived.size()) - 1;
        derived_region_ = o.r;
      } else if (o.from.buf >= 0) {
        const T* src = at(o.from);
        for (int k = 0; k < o.r.len; ++k) p[k] = src[copy_source_index(o.order, k, o.r.len)];
        copy = note_copy(p, o.r.len, e_.f64, e_.ops[i].name, true);
      } else {
        for (int k = 0; k < o.r.len; ++k) p[k] = static_cast<T>(p[k] * o.factor);
      }
      if (side_a_ && bug_ && bug_->outside == static_cast<int>(w)) plant(p, tile_span{0, o.r.len});
      mark_stale(o.r, copy);
    }
  }

  // Returns the copy's index.
  template <class V>
  int note_copy(const V* p, int len, bool f64, const std::string& from, bool outside) {
    rec_.copied.emplace_back(p, p + len);
    rec_.copied_f64.push_back(f64 ? 1 : 0);
    rec_.copied_from.push_back(from);
    rec_.copy_read.push_back(0);
    rec_.copy_outside.push_back(outside ? 1 : 0);
    return static_cast<int>(rec_.copied.size()) - 1;
  }
  // Bytes no op declared: written by copy `copy` (-1: not a copy), 0 once an op declares them.
  void mark_stale(const region& r, int copy, bool clear = false) {
    const int v = clear ? 0 : copy >= 0 ? copy + 1 : -1;
    for (int k = 0; k < r.len; ++k) stale_[static_cast<size_t>(r.buf)][static_cast<size_t>(r.off + k)] = v;
  }

  void note_reads(const op_desc& d) {
    if (derived_at_ >= 0)
      for (const region& r : d.in)
        if (r.buf == derived_region_.buf && r.off < derived_region_.off + derived_region_.len &&
            derived_region_.off < r.off + r.len && rec_.derived_reader[static_cast<size_t>(derived_at_)].empty())
          rec_.derived_reader[static_cast<size_t>(derived_at_)] = d.name;
    bool stale = false, outside = false;
    for (const region& r : d.in)
      for (int k = 0; k < r.len; ++k) {
        const int s = stale_[static_cast<size_t>(r.buf)][static_cast<size_t>(r.off + k)];
        stale = stale || s != 0;
        outside = outside || s < 0 || (s > 0 && rec_.copy_outside[static_cast<size_t>(s - 1)]);
        if (s > 0) rec_.copy_read[static_cast<size_t>(s - 1)] = 1;
      }
    auto note = [&](std::vector<std::string>& readers) {
      readers.push_back(d.name);
      for (int t = 0; t < d.tiles; ++t)  // its workers read parts of it
        if (t == 0 || d.tile_indexed) readers.push_back(tile_name(d, t));
    };
    if (stale) note(rec_.stale_readers);
    if (outside) note(rec_.outside_readers);
  }

  void exec(size_t i) {
    const op_desc& d = e_.ops[i];
    const bool planted = side_a_ && bug_ && bug_->op == static_cast<int>(i);
    using io = marker::io;
    note_reads(d);
    marker o(d.c_api, d.name, d.encloses > 0 ? "Block" : kind_type(d.k));
    o.attrs(d.a, d.b, e_.f64, other(d.out));
    if (d.encloses > 0) {  // a block: its input, the ops it encloses, then its output
      o.tensor(io::in, "x0", at(d.in[0]), d.in[0]);
      if (d.m == mark::at_end) o.tensor(io::out_at_end, "y", at(d.out), d.out);
      for (size_t j = i + 1; j <= i + static_cast<size_t>(d.encloses); ++j) exec(j);
      if (d.m != mark::at_end) o.tensor(io::out, "y", at(d.out), d.out);
      rec_.seq[i] = o.sequence();
      rec_.varied[i] = varied(at(d.out), d.out.len);
      return;
    }
    static const char* const slots[] = {"x0", "x1"};
    // casts: an input or output in a buffer of the other dtype converts at the op's edge (the
    // kernel computes in T, as a mixed-precision engine's would)
    std::vector<T> cast_in, cast_out;
    for (size_t j = 0; j < d.in.size() && j < 2; ++j) {
      if (j == 0 && d.m == mark::inout) continue;  // the output region, declared below
      if (other(d.in[j])) {
        const U* u = at_other(d.in[j]);
        o.tensor(io::in, slots[j], u, d.in[j]);
        if (j == 0) cast_in.assign(u, u + d.in[j].len);
      } else {
        o.tensor(io::in, slots[j], at(d.in[j]), d.in[j]);
      }
    }
    if (d.m == mark::inout) o.tensor(io::inout, "y", at(d.out), d.out);
    if (d.m == mark::at_end) o.tensor(io::out_at_end, "y", at(d.out), d.out);
    // A local declared after the op: the kernel writes it, it is declared, then it becomes
    // the engine's buffer (the old storage is freed when it goes out of scope, before the op
    // ends, as in a function that returns its result). Through the C API: a buffer of its
    // own, declared, copied into the engine's buffer and freed before the op ends.
    std::vector<T> local;
    const bool out_other = other(d.out);  // an op of casts writing the other dtype: marked after, untiled
    if (out_other) cast_out.assign(static_cast<size_t>(d.out.len), T(0));
    T* y = out_other ? cast_out.data() : at(d.out);
    if (d.m == mark::local) {
      if (d.c_api) local.assign(static_cast<size_t>(d.out.len), T(0));
      else local = bufs_[static_cast<size_t>(d.out.buf)];
      y = local.data() + (d.c_api ? 0 : d.out.off);
    }
    const T* x0 = d.in.empty() ? nullptr : !cast_in.empty() ? cast_in.data() : at(d.in[0]);
    const T* x1 = d.in.size() > 1 ? at(d.in[1]) : nullptr;
    const int64_t n0 = d.in.empty() ? 0 : d.in[0].len;
    const int64_t n1 = d.k == kind::load ? (d.out.rows > 0 ? d.out.len / d.out.rows : 0) : d.in.size() > 1 ? d.in[1].len : 0;
    const bool reassoc = side_a_ && d.reassoc_a;
    if (d.tiles > 0) {
      run_tiles(i, d, x0, n0, x1, y);
    } else {
      compute<T>(d.k, d.a, d.b, x0, n0, x1, n1, y, d.out.len, reassoc);
      if (planted) plant(y, tile_span{0, d.out.len}, out_other);
    }
    rec_.varied[i] = varied(y, d.out.len);
    if (out_other) {
      U* u = at_other(d.out);
      for (int k = 0; k < d.out.len; ++k) u[k] = static_cast<U>(y[k]);
      o.tensor(io::out, "y", static_cast<const U*>(u), d.out);
    } else if (d.m == mark::after || d.m == mark::implicit || d.m == mark::local) {
      o.tensor(io::out, "y", static_cast<const T*>(y), d.out);
    }
    const bool copied_into_place = d.m == mark::local && d.c_api;  // bytes no op declares
    if (copied_into_place) {
      std::copy(local.begin(), local.end(), at(d.out));
      std::vector<T>().swap(local);
      mark_stale(d.out, note_copy(at(d.out), d.out.len, e_.f64, d.name, false));
    } else {
      if (d.m == mark::local) bufs_[static_cast<size_t>(d.out.buf)].swap(local);
      mark_stale(d.out, -1, true);
    }
    rec_.seq[i] = o.sequence();
  }

  // Worker ops: each computes its rows of the output (tile_of: a block [lo, hi), or every
  // tiles-th element or row from t, declared as strided views, 1-D or [rows, C]) on its own
  // thread, inside the op (through the C API: probe_op_adopt of the op current on the
  // spawning thread).
  void run_tiles(size_t i, const op_desc& d, const T* x0, int64_t n0, const T* x1, T* y) {
    const probe::op_context ctx = probe::current_op_context();
    probe_op* const c_parent = d.c_api ? probe_op_current() : nullptr;
    const int tiles = d.tiles;
    rec_.tile_seq[i].assign(static_cast<size_t>(tiles), 0);
    rec_.tile_varied[i].assign(static_cast<size_t>(tiles), 0);
    // One worker at a time, in an order drawn for run A: a seed reproduces its pair, and the
    // two runs still start the same computations in different orders.
    using io = marker::io;
    for (int k = 0; k < tiles; ++k) {
      const int t = side_a_ && k < static_cast<int>(d.tile_order_a.size()) ? d.tile_order_a[static_cast<size_t>(k)] : k;
      std::thread worker([&, t] {
        std::optional<probe::adopt_op_context> adopt;
        probe_op* adopted = nullptr;
        if (d.c_api) adopted = probe_op_adopt(c_parent);
        else adopt.emplace(ctx);
        {
          const tile_span s = tile_of(d, t);
          const int64_t lo = s.first, rows = s.count, step = s.stride;
          // the name of today's workers, or begun whole with the worker's index
          marker w(d.c_api, d.tile_indexed ? d.name + ".tile" : tile_name(d, t), kind_type(d.k), d.tile_indexed ? t : -1);
          w.attrs(d.a, d.b, e_.f64, false);
          const region out{-1, 0, s.count, s.width > 1 ? s.count / s.width : 0, s.stride > 1 ? s.stride : 0};
          if (d.k == kind::matvec) {
            // W's rows of the worker: [rows, n0], rows step * n0 elements apart
            const int nc = static_cast<int>(n0);
            w.tensor(io::in, "x0", x0, region{-1, 0, nc, 0});
            w.tensor(io::in, "x1", x1 + lo * n0, region{-1, 0, s.count * nc, s.count, s.stride > 1 ? s.stride * nc : 0});
            if (step == 1) {
              compute<T>(d.k, d.a, d.b, x0, n0, x1 + lo * n0, rows * n0, y + lo, rows, false);
            } else {  // row by row: each row's value depends on that row of W and x0 only
              for (int64_t q = 0; q < rows; ++q)
                compute<T>(d.k, d.a, d.b, x0, n0, x1 + (lo + q * step) * n0, n0, y + lo + q * step, 1, false);
            }
          } else {
            w.tensor(io::in, "x0", x0 + lo, out);
            if (x1) w.tensor(io::in, "x1", x1 + lo, out);
            if (step == 1) {
              compute<T>(d.k, d.a, d.b, x0 + lo, rows, x1 ? x1 + lo : nullptr, rows, y + lo, rows, false);
            } else {  // element by element (the kernels of split ops are elementwise)
              for (int q = 0; q < s.count; ++q) {
                const int64_t at = s.at(q);
                compute<T>(d.k, d.a, d.b, x0 + at, 1, x1 ? x1 + at : nullptr, 1, y + at, 1, false);
              }
            }
          }
          if (side_a_ && bug_ && bug_->op == static_cast<int>(i) && bug_->tile == t) plant(y, s);
          w.tensor(io::out, "y", static_cast<const T*>(y + lo), out);
          rec_.tile_seq[i][static_cast<size_t>(t)] = w.sequence();
          std::vector<T> mine(static_cast<size_t>(s.count));
          for (int q = 0; q < s.count; ++q) mine[static_cast<size_t>(q)] = y[s.at(q)];
          rec_.tile_varied[i][static_cast<size_t>(t)] = varied(mine.data(), s.count);
        }
        if (d.c_api) probe_op_unadopt(adopted);
      });
      worker.join();
    }
  }

  const engine& e_;
  const bug* bug_;
  bool side_a_;
  std::vector<std::vector<T>> bufs_;
  std::vector<std::vector<U>> ubufs_;  // buffers of the other dtype (empty for the rest)
  std::vector<std::vector<int>> stale_;  // per element: 0, -1 (written outside any op) or 1 + the copy that wrote it
  int derived_at_ = -1;     // the latest values computed outside any op (rec_.derived), and where
  region derived_region_;
  run_record rec_;
};

// One run of the engine with the flags given (a dump folder, snapshots), closed when it
// returns. `planted` is applied in run A only.
inline run_record run_engine(const engine& e, const bug* planted, bool side_a, const std::string& flags) {
  probe::set_flags(flags.c_str());
  run_record r = e.f64 ? interpreter<double>(e, planted, side_a).run() : interpreter<float>(e, planted, side_a).run();
  probe::set_flags("");
  probe::set_step(0);
  return r;
}

}  // namespace rc
