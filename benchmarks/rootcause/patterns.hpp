// The buffer patterns of the generated engines (rootcause/generate.hpp): each builds the op
// executions of its engine, then one difference is planted (a bug in one op execution, a
// changed line of code outside any op, or a reassociated sum) and the right answer noted.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "generate.hpp"

namespace rc {
namespace gen_impl {

// An input load per step, then `layers` random layer ops over buffers act[0..layers]; W (when
// >= 0) is read by the matvec layers; an add layer also reads the step's input (fresh variation). Returns the op index of each layer op.
inline std::vector<int> chain(builder& g, int L, int layers, int w, int net, std::vector<int>* act_out = nullptr,
                              int step_only = -1) {
  std::vector<int> act, ops;
  for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
  for (int s = 0; s < g.e().steps; ++s) {
    if (step_only >= 0 && s != step_only) continue;
    const int in = g.op(kind::load, "input", {}, g.whole(act[0]), s);
    g.e().ops[static_cast<size_t>(in)].net = net;
    for (int l = 0; l < layers; ++l) {
      const int o = g.layer(layer_name(l), g.whole(act[static_cast<size_t>(l)]), g.whole(act[static_cast<size_t>(l) + 1]),
                            g.whole(act[0]), w, s);
      g.e().ops[static_cast<size_t>(o)].net = net;
      ops.push_back(o);
    }
  }
  if (act_out) *act_out = act;
  return ops;
}

// 2-4 worker ops compute the op's rows, started in an order drawn for run A; its output is
// then declared after them (a local would free what they wrote). Half the splits give each
// worker interleaved rows (t, t + tiles, ...: strided views), and, drawn apart, half name each
// worker op with its index; both drawn from `layout`, a stream of their own, so that the
// rest of the engine is what it was before they were drawn. With `cols` > 1, an interleaved
// output is [len / cols, cols] and a worker's rows are a 2-D view (an elementwise op's only:
// a matvec's output is a vector).
inline void split_over_workers(rng& r, rng& layout, op_desc& d, int cols) {
  d.tiles = r.range(2, 4);
  for (int t = 0; t < d.tiles; ++t) d.tile_order_a.push_back(t);
  for (int t = d.tiles - 1; t > 0; --t) std::swap(d.tile_order_a[static_cast<size_t>(t)], d.tile_order_a[static_cast<size_t>(r.range(0, t))]);
  if (d.m == mark::local) d.m = mark::after;
  d.interleaved = layout.chance(0.5);
  d.tile_indexed = layout.chance(0.5);
  if (d.interleaved && cols > 1 && d.k != kind::matvec) d.out.rows = d.out.len / cols;
}

// derived: the buffer a residual adds to layer `l`'s output at a step (`layer_ops`: that
// step's layer ops, from `first`): one of act[0..l], which the step's ops wrote and read
// before. Never one that is an affine function of the output alone (a x + b y + c of two
// tensors on one line is a x + b of either); with `own` the layer's own input when it can be
// (the residual stream: after an elementwise layer, a x + b y + c is then a function of the
// output alone), else the latest that is no elementwise function of the output (nor it of
// that one), else the latest that can be. Each act[k] is classed by the tensor it is an
// affine (lin) or elementwise (fn) function of. buf -1: none (the layers up to l all affine).
inline region residual_stream(const engine& e, const std::vector<int>& layer_ops, int first, int l, bool own) {
  auto layer = [&](int k) -> const op_desc& { return e.ops[static_cast<size_t>(layer_ops[static_cast<size_t>(first + k)])]; };
  auto act = [&](int k) { return k == 0 ? layer(0).in[0] : layer(k - 1).out; };
  std::vector<int> lin(static_cast<size_t>(l) + 2, 0), fn(static_cast<size_t>(l) + 2, 0);
  int next = 1;
  for (int k = 0; k <= l; ++k) {
    const kind kk = layer(k).k;
    const size_t i = static_cast<size_t>(k);
    // affine: its input's classes; tanh: its input's fn class; add (x + a x0, x0 the step's
    // input): x's classes where x is a function of x0 (class 0); matvec: new ones
    lin[i + 1] = kk == kind::affine || (kk == kind::add && lin[i] == 0) ? lin[i] : next++;
    fn[i + 1] = kk == kind::affine || kk == kind::tanh_ || (kk == kind::add && fn[i] == 0) ? fn[i] : next++;
  }
  const size_t o = static_cast<size_t>(l) + 1;
  if (own && lin[static_cast<size_t>(l)] != lin[o]) return act(l);
  for (int k = l; k >= 0; --k)
    if (fn[static_cast<size_t>(k)] != fn[o]) return act(k);
  for (int k = l; k >= 0; --k)
    if (lin[static_cast<size_t>(k)] != lin[o]) return act(k);
  return region{};
}

inline int weights(builder& g, int L, bool produced) {
  const int w = g.buf(L * L, !produced);
  if (produced) g.op(kind::load, "load_weights", {}, g.whole(w, L), 0);
  return w;
}

}  // namespace gen_impl

inline gen_case generate(uint64_t seed, pattern p) {
  using namespace gen_impl;
  gen_case c;
  c.seed = seed;
  c.pat = p;
  rng r(seed * 64 + static_cast<uint64_t>(p));
  rng layout(mix64(seed * 64 + static_cast<uint64_t>(p)) ^ 0x1A7E41EAull);  // the workers' layout and names
  rng residual(mix64(seed * 64 + static_cast<uint64_t>(p)) ^ 0x2E51D0A1ull);  // derived: the residuals
  engine& e = c.e;
  e.f64 = r.chance(0.5);
  e.steps = r.range(1, 4);
  builder g(r, e);
  const int L = 2 * r.range(4, 32);  // 8..64 elements, even
  std::vector<int> favored;           // op executions a bug prefers (the pattern's own)
  double favor = 0.6;
  switch (p) {
    case pattern::basic:
    case pattern::locals:
    case pattern::workers:
    case pattern::outside_op:
    case pattern::extra_op:
    case pattern::copies:
    case pattern::casts:
    case pattern::layouts:
    case pattern::derived:
    case pattern::c_callers: {
      const int w = r.chance(0.5) ? weights(g, L, r.chance(0.7)) : -1;
      const bool copies = p == pattern::copies || p == pattern::casts || p == pattern::layouts || p == pattern::derived;
      const int layers = std::max(p == pattern::outside_op || p == pattern::extra_op || copies ? 2 : 1,
                                  layers_for(r, e.steps, 1, 1 + e.steps));
      // workers, c_callers: in half the engines without weights (W would grow as the square),
      // the layers are [160-200, 2-4], so that an interleaved split gives each of its 2-4
      // workers 40-100 rows: more runs than the producer map keeps apart (k_most_runs, 32).
      // Drawn from `layout`: r's draws stay as they were.
      int cols = 0, n = L;
      if ((p == pattern::workers || p == pattern::c_callers) && w < 0 && layout.chance(0.5)) {
        cols = layout.range(2, 4);
        n = cols * layout.range(160, 200);
      }
      std::vector<int> ops = chain(g, n, layers, w, -1);
      if (p == pattern::locals)
        for (op_desc& d : e.ops)
          if (d.k != kind::load && r.chance(0.8) && d.out.off == 0 && d.out.len == e.buf_len[static_cast<size_t>(d.out.buf)])
            d.m = mark::local;
      if (p == pattern::workers)
        for (int o : ops) {
          op_desc& d = e.ops[static_cast<size_t>(o)];
          if (!r.chance(0.5)) continue;
          split_over_workers(r, layout, d, cols);
          favored.push_back(o);
        }
      if (p == pattern::c_callers) {
        // most ops marked through the C API (the rest through C++, as in a C solver with a
        // C++ part); a third of the layers split over worker threads (probe_op_adopt)
        for (op_desc& d : e.ops) d.c_api = r.chance(0.8);
        for (int o : ops) {
          op_desc& d = e.ops[static_cast<size_t>(o)];
          if (r.chance(0.3)) split_over_workers(r, layout, d, cols);
        }
        for (int o : ops)
          if (e.ops[static_cast<size_t>(o)].c_api) favored.push_back(o);
      }
      if (p == pattern::outside_op) {
        // after a layer op whose output the next layer reads
        std::vector<int> fed;
        for (size_t k = 0; k + 1 < ops.size(); ++k)
          if (e.ops[static_cast<size_t>(ops[k + 1])].step == e.ops[static_cast<size_t>(ops[k])].step) fed.push_back(ops[k]);
        const int at = fed[static_cast<size_t>(r.range(0, static_cast<int>(fed.size()) - 1))];
        outside_write w2;
        w2.after = at;
        w2.r = e.ops[static_cast<size_t>(at)].out;
        w2.r.off = r.range(0, L / 2);
        w2.r.len = r.range(1, L / 2);
        w2.r.rows = 0;
        w2.factor = 0.5;
        e.outside.push_back(w2);
        if (r.chance(0.5)) {
          c.outside_change = true;
          c.b.outside = 0;
          draw_bug_size(r, w2.r.len, &c.b);
        }
      }
      if (copies) {
        // Every step, plain code copies layer l's output into another buffer (at its start or
        // inside it), and layer l + 1 reads the copy: nothing links the two ops. In half the
        // engines an op filled that buffer once, before the first step (its bytes then stale).
        // casts: the buffer holds the other float dtype, so the copy casts (float32 widened to
        // float64, or float64 narrowed to float32) and its bytes are no output's.
        // layouts: the copy reorders the values (reversed, or transposed from [2, L / 2]), so
        // its bytes are no output's either. derived: the plain code computes from the output
        // (a x + b, a normalisation by the output's own mean and deviation, or a tanh, done
        // between kernels), or adds it to a residual stream (a x + b y + c, y a buffer as
        // large that the step's ops read or wrote before: the layer's input): no copy at all.
        const bool cast = p == pattern::casts;
        const int l = r.range(0, layers - 2), off = r.chance(0.5) ? 0 : r.range(1, L / 2);
        const int z = g.buf(off + L + (r.chance(0.5) ? r.range(1, L / 2) : 0), false, cast);
        // drawn only here: the other patterns keep their engines
        const int order = p == pattern::layouts ? r.range(1, 2) : p == pattern::derived ? k_derived : 0;
        if (r.chance(0.5)) {
          const int fill = g.op(kind::load, "fill", {}, g.whole(z), 0, cast ? static_cast<int>(mark::after) : -1);
          e.ops.insert(e.ops.begin(), e.ops[static_cast<size_t>(fill)]);
          e.ops.pop_back();
          for (int& o : ops) ++o;
        }
        for (int s = 0; s < e.steps; ++s) {
          const int src = ops[static_cast<size_t>(s * layers + l)], dst = ops[static_cast<size_t>(s * layers + l + 1)];
          outside_write cp;
          cp.after = src;
          cp.from = e.ops[static_cast<size_t>(src)].out;
          cp.r = builder::part(z, off, L);
          cp.order = order;
          if (order == k_derived) {  // drawn only here: the other patterns keep their engines
            cp.normalize = r.chance(0.3);
            cp.squash = !cp.normalize && r.chance(0.4);
            cp.factor = r.sign() * r.uniform(0.25, 2);
            cp.shift = r.uniform(-1, 1);
            // a residual (about 30% of the buffers: 38% drawn, where the layers up to l are
            // all affine none can be), drawn from a stream of its own: r's draws stay as they were
            if (residual.chance(0.38)) {
              const region y = residual_stream(e, ops, s * layers, l, residual.chance(0.5));
              if (y.buf >= 0) {
                const bool plain = residual.chance(0.5);  // h + f
                const double a = residual.sign() * residual.uniform(0.25, 2), b = residual.sign() * residual.uniform(0.25, 2);
                const double c0 = residual.uniform(-1, 1);
                cp.with = y;
                cp.normalize = cp.squash = false;
                cp.factor = plain ? 1 : a;
                cp.with_factor = plain ? 1 : b;
                cp.shift = plain ? 0 : c0;
              }
            }
          }
          e.outside.push_back(cp);
          e.ops[static_cast<size_t>(dst)].in[0] = cp.r;
          favored.push_back(src);
        }
      }
      if (p == pattern::extra_op) {
        // run A has one more op: a new one, or one more execution of an existing op's name
        const int j = ops[static_cast<size_t>(r.range(0, static_cast<int>(ops.size()) - 1))];
        op_desc x = e.ops[static_cast<size_t>(j)];
        x.out = g.whole(g.buf(L));
        x.m = mark::after;
        x.only_a = true;
        x.tiles = 0;
        if (r.chance(0.5)) {
          x.name = "debug.check";
          x.k = kind::copy;
          x.in.resize(1);
          x.in[0] = e.ops[static_cast<size_t>(j)].out;
        }
        e.ops.insert(e.ops.begin() + j + 1, x);
      }
      break;
    }
    case pattern::slices:
    case pattern::gathers:
    case pattern::cast_slices: {
      // Every step, plain code copies part of layer l's output into another buffer (a head
      // split from a fused projection), and an op reads that slice; or (gathers) copies the
      // outputs of layers l and l + 1 side by side into one buffer (a concatenation, a cache a
      // step appends to), and an op folds the two halves. Nothing links the reader to the
      // layers, and its bytes are no output's. In half the engines an op filled the buffer
      // once, before the first step (its bytes then stale). cast_slices: slices into a buffer
      // of the other float dtype, so the copy casts.
      const bool gather = p == pattern::gathers, cast = p == pattern::cast_slices;
      const int w = r.chance(0.5) ? weights(g, L, r.chance(0.7)) : -1;
      const int layers = std::max(2, layers_for(r, e.steps, 1, 2 + e.steps));
      std::vector<int> act;
      for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
      const int l_at = r.range(0, layers - 2);
      const int len = gather ? L : r.range(4, L / 2), from_off = gather ? 0 : r.range(0, L - len);
      const int z_off = r.chance(0.5) ? 0 : r.range(1, L / 2);
      const int z = g.buf(z_off + (gather ? 2 * L : len) + (r.chance(0.5) ? r.range(1, L / 2) : 0), false, cast);
      const int h = g.buf(len);
      if (r.chance(0.5)) g.op(kind::load, "fill", {}, g.whole(z), 0, cast ? static_cast<int>(mark::after) : -1);
      for (int s = 0; s < e.steps; ++s) {
        g.op(kind::load, "input", {}, g.whole(act[0]), s);
        for (int l = 0; l < layers; ++l) {
          const int o = g.layer(layer_name(l), g.whole(act[static_cast<size_t>(l)]), g.whole(act[static_cast<size_t>(l) + 1]),
                                g.whole(act[0]), w, s);
          if (l != l_at && (!gather || l != l_at + 1)) continue;
          outside_write cp;
          cp.after = o;
          cp.from = builder::part(act[static_cast<size_t>(l) + 1], from_off, len);
          cp.r = builder::part(z, z_off + (l == l_at ? 0 : L), len);
          e.outside.push_back(cp);
          favored.push_back(o);
          if (!gather)
            g.op(r.chance(0.5) ? kind::affine : kind::tanh_, layer_name(l) + ".head", {cp.r}, g.whole(h), s);
          else if (l == l_at + 1)
            g.op(kind::fold, layer_name(l_at) + ".gather", {builder::part(z, z_off, 2 * L)}, g.whole(h), s);
        }
      }
      break;
    }
    case pattern::nested: {
      // Each layer is a block op (a module) enclosing its kernels on the same thread: one into
      // a scratch buffer, one from it into the layer's output, and in some layers an update of
      // that output in place. The block declares the layer's input before its kernels and its
      // output after them, or before them to be read at its end; some blocks are marked
      // through the C API. A bug is in a kernel: the block that encloses it must yield to it.
      const int w = r.chance(0.5) ? weights(g, L, r.chance(0.7)) : -1;
      const int layers = layers_for(r, e.steps, 3, e.steps);
      std::vector<int> act;
      for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
      const int sc = g.buf(L);
      for (int s = 0; s < e.steps; ++s) {
        g.op(kind::load, "input", {}, g.whole(act[0]), s);
        for (int l = 0; l < layers; ++l) {
          const region x = g.whole(act[static_cast<size_t>(l)]), y = g.whole(act[static_cast<size_t>(l) + 1]);
          const int blk = g.op(kind::copy, layer_name(l), {x}, y, s, static_cast<int>(r.chance(0.7) ? mark::after : mark::at_end));
          e.ops[static_cast<size_t>(blk)].c_api = r.chance(0.3);
          favored.push_back(g.layer(layer_name(l) + ".pre", x, g.whole(sc), x, w, s));
          favored.push_back(g.layer(layer_name(l) + ".post", g.whole(sc), y, x, -1, s));
          // a block that declared its output before its kernels holds a view of the buffer: a
          // kernel moving a local into that buffer would free the memory the view reads
          if (e.ops[static_cast<size_t>(blk)].m == mark::at_end && e.ops.back().m == mark::local) e.ops.back().m = mark::after;
          if (r.chance(0.3))
            favored.push_back(g.op(kind::affine, layer_name(l) + ".scale", {y}, y, s,
                                   static_cast<int>(r.chance(0.5) ? mark::inout : mark::implicit)));
          e.ops[static_cast<size_t>(blk)].encloses = static_cast<int>(e.ops.size()) - 1 - blk;
        }
      }
      break;
    }
    case pattern::rounding: {
      // one op execution sums rows that cancel, in another order in A
      const int layers = std::max(2, layers_for(r, e.steps, 1, 1 + e.steps));
      const int s_at = r.range(0, e.steps - 1), l_at = r.range(0, layers - 1);
      std::vector<int> act;
      for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
      const int cols = 128, big = g.buf(L * cols);
      for (int s = 0; s < e.steps; ++s) {
        g.op(kind::load, "input", {}, g.whole(act[0]), s);
        for (int l = 0; l < layers; ++l) {
          const region x = g.whole(act[static_cast<size_t>(l)]), y = g.whole(act[static_cast<size_t>(l) + 1]);
          if (s != s_at || l != l_at) {
            g.layer(layer_name(l), x, y, g.whole(act[0]), -1, s);
            continue;
          }
          const int ld = g.op(kind::load, layer_name(l) + ".terms", {}, g.whole(big, L), s);
          e.ops[static_cast<size_t>(ld)].b = e.f64 ? -1e8 : -1e3;
          const int red = g.op(kind::reduce, layer_name(l) + ".sum", {g.whole(big, L)}, y, s);
          e.ops[static_cast<size_t>(red)].reassoc_a = true;
          c.root_op = c.replay_op = red;
        }
      }
      c.rounding_only = true;
      break;
    }
    case pattern::partial: {
      const int layers = layers_for(r, e.steps, 3, e.steps);
      std::vector<int> act, pbuf;
      for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
      for (int l = 0; l < layers; ++l) pbuf.push_back(g.buf(2 * L));
      for (int s = 0; s < e.steps; ++s) {
        g.op(kind::load, "input", {}, g.whole(act[0]), s);
        for (int l = 0; l < layers; ++l) {
          const region x = g.whole(act[static_cast<size_t>(l)]);
          const int pb = pbuf[static_cast<size_t>(l)];
          favored.push_back(g.op(r.chance(0.5) ? kind::affine : kind::tanh_, layer_name(l) + ".left", {x}, builder::part(pb, 0, L), s));
          favored.push_back(g.op(r.chance(0.5) ? kind::affine : kind::tanh_, layer_name(l) + ".right", {x}, builder::part(pb, L, L), s));
          g.op(kind::fold, layer_name(l) + ".fold", {g.whole(pb)}, g.whole(act[static_cast<size_t>(l) + 1]), s);
        }
      }
      favor = 0.7;
      break;
    }
    case pattern::inplace: {
      const int layers = layers_for(r, e.steps, 3, e.steps);
      std::vector<int> act;
      for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
      for (int s = 0; s < e.steps; ++s) {
        g.op(kind::load, "input", {}, g.whole(act[0]), s);
        for (int l = 0; l < layers; ++l) {
          const region x = g.whole(act[static_cast<size_t>(l)]), y = g.whole(act[static_cast<size_t>(l) + 1]);
          g.layer(layer_name(l), x, y, x, -1, s);
          const int updates = r.range(1, 2);
          for (int u = 0; u < updates; ++u) {
            const int m = static_cast<int>(r.chance(0.5) ? mark::inout : mark::implicit);
            if (r.chance(0.5)) favored.push_back(g.op(kind::affine, layer_name(l) + ".scale", {y}, y, s, m));
            else favored.push_back(g.op(kind::add, layer_name(l) + ".acc", {y, x}, y, s, m));
          }
        }
      }
      break;
    }
    case pattern::scratch: {
      const int layers = layers_for(r, e.steps, 2, e.steps);
      std::vector<int> act;
      for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
      const int sc = g.buf(L);
      for (int s = 0; s < e.steps; ++s) {
        g.op(kind::load, "input", {}, g.whole(act[0]), s);
        for (int l = 0; l < layers; ++l) {
          const region x = g.whole(act[static_cast<size_t>(l)]);
          g.layer(layer_name(l) + ".pre", x, g.whole(sc), x, -1, s);
          g.op(kind::add, layer_name(l) + ".post", {g.whole(sc), x}, g.whole(act[static_cast<size_t>(l) + 1]), s);
        }
      }
      break;
    }
    case pattern::pingpong: {
      const int u[2] = {g.buf(L + 2), g.buf(L + 2)};
      g.op(kind::load, "init_a", {}, g.whole(u[0]), 0);
      g.op(kind::load, "init_b", {}, g.whole(u[1]), 0);
      const int iters = layers_for(r, e.steps, 1, 2);
      int cur = 0;
      for (int s = 0; s < e.steps; ++s)
        for (int it = 0; it < iters; ++it, cur = 1 - cur)
          g.op(kind::stencil, "stencil", {g.whole(u[cur])}, builder::part(u[1 - cur], 1, L), s);
      favor = 0;
      break;
    }
    case pattern::halo: {
      const int n = L / 2;
      int lb[2], rb[2];
      for (int k = 0; k < 2; ++k) {
        lb[k] = g.buf(n + 4);
        rb[k] = g.buf(n + 4);
        g.op(kind::load, "init_left", {}, g.whole(lb[k]), 0);
        g.op(kind::load, "init_right", {}, g.whole(rb[k]), 0);
      }
      const int iters = layers_for(r, e.steps, 4, 4);
      int cur = 0;
      for (int s = 0; s < e.steps; ++s)
        for (int it = 0; it < iters; ++it, cur = 1 - cur) {
          favored.push_back(g.op(kind::copy, "halo_lr", {builder::part(lb[cur], n, 2)}, builder::part(rb[cur], 0, 2), s));
          favored.push_back(g.op(kind::copy, "halo_rl", {builder::part(rb[cur], 2, 2)}, builder::part(lb[cur], n + 2, 2), s));
          g.op(kind::stencil, "stencil_left", {builder::part(lb[cur], 1, n + 2)}, builder::part(lb[1 - cur], 2, n), s);
          g.op(kind::stencil, "stencil_right", {builder::part(rb[cur], 1, n + 2)}, builder::part(rb[1 - cur], 2, n), s);
        }
      favor = 0.5;
      break;
    }
    case pattern::weights: {
      const bool produced = r.chance(0.7);
      const int w = weights(g, L, produced);
      if (produced) favored.push_back(0);
      favor = 0.25;
      const int layers = layers_for(r, e.steps, 1, 1 + e.steps);
      std::vector<int> act;
      for (int l = 0; l <= layers; ++l) act.push_back(g.buf(L));
      for (int s = 0; s < e.steps; ++s) {
        g.op(kind::load, "input", {}, g.whole(act[0]), s);
        for (int l = 0; l < layers; ++l) {
          const region x = g.whole(act[static_cast<size_t>(l)]), y = g.whole(act[static_cast<size_t>(l) + 1]);
          if (r.chance(0.75)) g.op(kind::matvec, layer_name(l) + ".matvec", {x, g.whole(w, L)}, y, s);
          else g.op(kind::tanh_, layer_name(l) + ".tanh", {x}, y, s);
        }
      }
      break;
    }
    case pattern::two_nets: {
      // two copies of one network (same op names, their own buffers and data) on two threads
      const int w = weights(g, L, true);
      const int layers = layers_for(r, e.steps, 2, 1 + 2 * e.steps);
      std::vector<std::vector<int>> act(2);
      for (int net = 0; net < 2; ++net)
        for (int l = 0; l <= layers; ++l) act[static_cast<size_t>(net)].push_back(g.buf(L));
      for (int s = 0; s < e.steps; ++s)
        for (int net = 0; net < 2; ++net) {
          const std::vector<int>& a = act[static_cast<size_t>(net)];
          e.ops[static_cast<size_t>(g.op(kind::load, "input", {}, g.whole(a[0]), s))].net = net;
          for (int l = 0; l < layers; ++l) {
            const int o = g.layer(layer_name(l), g.whole(a[static_cast<size_t>(l)]), g.whole(a[static_cast<size_t>(l) + 1]),
                                  g.whole(a[0]), w, s);
            e.ops[static_cast<size_t>(o)].net = net;
          }
        }
      e.swap_nets_in_a = r.chance(0.5);
      favor = 0;
      break;
    }
    case pattern::count: break;
  }
  // the bug: one op execution, of the pattern's own ops with chance `favor`
  if (!c.rounding_only && !c.outside_change) {
    std::vector<int> pool;
    for (size_t i = 0; i < e.ops.size(); ++i)
      if (!e.ops[i].only_a && !e.ops[i].encloses) pool.push_back(static_cast<int>(i));
    const std::vector<int>& from = !favored.empty() && r.chance(favor) ? favored : pool;
    c.b.op = from[static_cast<size_t>(r.range(0, static_cast<int>(from.size()) - 1))];
    const op_desc& d = e.ops[static_cast<size_t>(c.b.op)];
    int len = d.out.len;
    if (d.tiles > 0) {
      c.b.tile = r.range(0, d.tiles - 1);
      len = tile_of(d, c.b.tile).count;  // first and count: of the tile's own elements
    }
    draw_bug_size(r, len, &c.b);
    c.root_op = c.b.op;
    c.root_tile = c.b.tile;
  }
  // the op replayed: the root when it writes 2 elements or more, else one drawn that does
  if (c.replay_op < 0) {
    if (c.root_op >= 0 && e.ops[static_cast<size_t>(c.root_op)].out.len >= 2) {
      c.replay_op = c.root_op;
      c.replay_tile = c.root_tile;
    } else {
      std::vector<int> pool;
      for (size_t i = 0; i < e.ops.size(); ++i)
        if (!e.ops[i].only_a && !e.ops[i].encloses && e.ops[i].out.len >= 2) pool.push_back(static_cast<int>(i));
      c.replay_op = pool[static_cast<size_t>(r.range(0, static_cast<int>(pool.size()) - 1))];
      if (e.ops[static_cast<size_t>(c.replay_op)].tiles > 0) c.replay_tile = 0;
    }
  }
  return c;
}

}  // namespace rc
