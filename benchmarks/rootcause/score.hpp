// Runs one generated pair through the library and scores what probe compare and replay say,
// from their structured results (the root list, the hints, the rounding flag, the replay
// row's outcome), never from their text.
#pragma once
#include <dirent.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <probe/probe.hpp>
#include <probe/effects/replay_run.hpp>
#include <probe/formats/snapshot.hpp>

#include "analysis/compare_run.hpp"
#include "patterns.hpp"
#include "run.hpp"

namespace rc {

// What the replay kernels compute: the engine's kernel, nothing, or the right values one
// element off.
enum class replay_mode : int { engine, nothing, off_by_one };
inline replay_mode& current_replay_mode() {
  static replay_mode m = replay_mode::engine;
  return m;
}

// The output, in T or (casts: a buffer of the other dtype) in U; the kernel computes in T.
template <class T, class U>
void replay_kernel_as(probe::replay_context& ctx, kind k) {
  const double a = ctx.attr<double>("a"), b = ctx.attr<double>("b");
  const bool out_other = ctx.attr<int>("y_other") != 0;
  probe::typed_view<T> y = out_other ? probe::typed_view<T>() : ctx.output<T>("y");
  probe::typed_view<U> y_other = out_other ? ctx.output<U>("y") : probe::typed_view<U>();
  const int64_t ny = out_other ? y_other.size() : y.size();
  const std::vector<T> prior = out_other ? std::vector<T>() : std::vector<T>(y.begin(), y.end());  // an inout's state
  const T* x0 = prior.data();
  int64_t n0 = ny, n1 = 0;
  const T* x1 = nullptr;
  std::vector<T> x0_cast;  // x0 recorded in U (casts), converted as the engine does
  if (ctx.has_input("x0")) {
    if (ctx.input_view("x0").type == probe::dtype_of<U>::value) {
      probe::typed_view<const U> v = ctx.input<U>("x0");
      x0_cast.assign(v.begin(), v.end());
      x0 = x0_cast.data();
      n0 = v.size();
    } else {
      probe::typed_view<const T> v = ctx.input<T>("x0");
      x0 = v.data();
      n0 = v.size();
    }
  }
  if (ctx.has_input("x1")) {
    probe::typed_view<const T> v = ctx.input<T>("x1");
    x1 = v.data();
    n1 = v.size();
  }
  if (k == kind::load) n1 = (out_other ? y_other.ndim() : y.ndim()) == 2 ? (out_other ? y_other.shape(1) : y.shape(1)) : 0;
  if (current_replay_mode() == replay_mode::nothing) return;
  std::vector<T> out(static_cast<size_t>(ny));
  compute<T>(k, a, b, x0, n0, x1, n1, out.data(), ny, false);
  const int64_t shift = current_replay_mode() == replay_mode::off_by_one ? 1 : 0;
  for (int64_t i = 0; i < ny; ++i) {
    if (out_other) y_other[(i + shift) % ny] = static_cast<U>(out[static_cast<size_t>(i)]);
    else y[(i + shift) % ny] = out[static_cast<size_t>(i)];
  }
}

inline void replay_kernel(probe::replay_context& ctx) {
  const std::string type = ctx.op_type();
  for (int k = 0; k <= static_cast<int>(kind::copy); ++k)
    if (type == kind_type(static_cast<kind>(k))) {
      if (ctx.attr<int>("f64")) replay_kernel_as<double, float>(ctx, static_cast<kind>(k));
      else replay_kernel_as<float, double>(ctx, static_cast<kind>(k));
      return;
    }
}

inline void register_replay_kernels() {
  for (int k = 0; k <= static_cast<int>(kind::copy); ++k) probe::register_kernel(kind_type(static_cast<kind>(k)), replay_kernel);
}

// The score of one pair.
struct verdict {
  std::string error;  // compare or replay could not answer (counted as a crash)
  bool exact = false, false_root = false, false_hint = false, hinted = false;
  bool rounding_labelled = false, bug_called_rounding = false, no_mismatch = false;
  bool copy_differs = false, copy_hinted = false;  // a copy outside any op carried the difference; hinted
  bool derived_differs = false, derived_hinted = false;  // so did values computed outside any op
  int replay_right = 0, replay_total = 0;
  int implicit_wrong = 0;  // executions A's dump gave an implicit prior state that only overwrite
  std::string expected, reported;  // in words, for a failing case
};

namespace score_impl {

inline std::string node_words(const probe::analysis::graph_answers& g, size_t n) {
  return g.nodes[n].op_key + " (seq " + std::to_string(g.nodes[n].seq) + ")";
}

// The snapshot folder of run B's execution `seq` (snapshots/op_<seq>.<name>).
inline std::string snapshot_dir(const std::string& dump, uint64_t seq) {
  char prefix[40];
  std::snprintf(prefix, sizeof prefix, "op_%06llu.", static_cast<unsigned long long>(seq));
  const std::string dir = dump + "/snapshots";
  std::string found;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* ent = readdir(d))
      if (std::string(ent->d_name).rfind(prefix, 0) == 0) found = dir + "/" + ent->d_name;
    closedir(d);
  }
  return found;
}

}  // namespace score_impl

// Runs the pair into `dir` (folders a and b) and scores it; `report` (optional) keeps the
// compare report for printing.
// `flags` are added to both runs' (the writer threads: --probe_dump_threads).
inline verdict score_case(const gen_case& c, const std::string& dir, const std::string& flags,
                          probe::analysis::compare_report* report = nullptr) {
  namespace pa = probe::analysis;
  verdict v;
  const std::string a = dir + "/a", b = dir + "/b";
  const run_record rb =
      run_engine(c.e, nullptr, false, "--probe_dump_to=" + b + " --probe_dump_as_npy --probe_dump_snapshots " + flags);
  const run_record ra = run_engine(c.e, &c.b, true, "--probe_dump_to=" + a + " --probe_dump_as_npy " + flags);
  pa::compare_settings s;
  s.threads = 1;
  pa::compare_report r = pa::compare_paths(a, b, s);
  if (!r.error.empty() || r.runs.size() != 1) {
    v.error = "compare: " + (r.error.empty() ? std::string("not one run") : r.error);
    if (report) *report = std::move(r);
    return v;
  }
  const pa::graph_answers& g = r.runs[0].graph;
  uint64_t want = 0;
  if (c.root_op >= 0) {
    const size_t op = static_cast<size_t>(c.root_op);
    want = c.root_tile >= 0 ? ra.tile_seq[op][static_cast<size_t>(c.root_tile)] : ra.seq[op];
    const std::string who = c.root_tile >= 0
                                ? tile_name(c.e.ops[op], c.root_tile) + " (worker " + std::to_string(c.root_tile) + ")"
                                : c.e.ops[op].name;
    v.expected = "one root: " + who + " at step " + std::to_string(c.e.ops[op].step) + " (seq " + std::to_string(want) + " in A)";
  } else {
    v.expected = "no root; a hint at the code outside any op";
  }
  if (c.rounding_only) v.expected += ", labelled rounding";
  // roots
  bool found = false;
  for (const pa::root_cause& root : g.roots) {
    const bool right = !root.is_input && want && g.nodes[root.node].seq == want;
    found = found || right;
    if (!right) v.false_root = true;
    v.reported += std::string(v.reported.empty() ? "" : ", ") + (root.is_input ? "input of " : "root ") +
                  score_impl::node_words(g, root.node) + (root.is_input ? " [" + std::string(pa::root_kind_name(root.kind)) + "]" : "") +
                  (root.rounding ? " [rounding]" : "");
  }
  if (g.roots.empty()) v.reported = "no root";
  // hints about code outside any op: only where such code wrote, and "it differs" only when
  // that code is the planted change
  std::set<std::string> stale(ra.stale_readers.begin(), ra.stale_readers.end());
  stale.insert(rb.stale_readers.begin(), rb.stale_readers.end());
  // an outside-op hint is true only where code outside any op wrote (not an op's copy into place)
  std::set<std::string> outside(ra.outside_readers.begin(), ra.outside_readers.end());
  outside.insert(rb.outside_readers.begin(), rb.outside_readers.end());
  // a copy no op declared (outside any op, or a C local copied into place) carries the
  // difference when its values differ past the tolerance of the dtype it holds, as compare
  // judges the buffer (casts: the other one)
  std::set<std::string> copied_from(ra.copied_from.begin(), ra.copied_from.end());
  copied_from.insert(rb.copied_from.begin(), rb.copied_from.end());
  for (size_t k = 0; k < ra.copied.size() && k < rb.copied.size() && k < rb.copied_f64.size(); ++k) {
    if (!ra.copy_read[k] && !rb.copy_read[k]) continue;  // no op read it: nothing to hint at
    const bool f64 = rb.copied_f64[k] != 0;
    for (size_t i = 0; i < ra.copied[k].size() && i < rb.copied[k].size(); ++i)
      if (std::fabs(ra.copied[k][i] - rb.copied[k][i]) > atol_of(f64) + rtol_of(f64) * std::fabs(rb.copied[k][i]))
        v.copy_differs = true;
  }
  if (v.copy_differs) v.expected += ", an unlinked-copy hint";
  // values code outside any op computed from an output carry the difference when they differ
  // past the tolerance; a hint at their reader is then right (none is a root)
  std::set<std::string> derived_readers, derived_from(rb.derived_from.begin(), rb.derived_from.end());
  for (size_t k = 0; k < ra.derived.size() && k < rb.derived.size(); ++k) {
    if (!rb.derived_reader[k].empty()) derived_readers.insert(rb.derived_reader[k]);
    for (size_t i = 0; i < ra.derived[k].size() && i < rb.derived[k].size(); ++i)
      if (std::fabs(ra.derived[k][i] - rb.derived[k][i]) > atol_of(c.e.f64) + rtol_of(c.e.f64) * std::fabs(rb.derived[k][i]))
        v.derived_differs = true;
  }
  if (v.derived_differs) v.expected += ", a hint at the reader of values computed outside any op";
  for (const pa::graph_hint& h : g.hints) {
    if (h.kind == pa::hint_kind::unlinked_copy && (h.part == pa::part_relation::affine || h.part == pa::part_relation::monotone ||
                                                   h.part == pa::part_relation::combined)) {
      // values computed from an output (combined: and another tensor, a residual stream):
      // right at their reader, naming that output's op (or the residual's) as the producer
      const bool place = derived_readers.count(h.consumer_op) > 0 && derived_from.count(h.producer_op) > 0;
      v.reported += "; computed-outside hint at " + h.consumer_op + "/" + h.slot + " from " + h.producer_op +
                    (h.with_key.empty() ? "" : " and " + h.with_key) + " [" + pa::part_relation_name(h.part) + "]" +
                    (h.differing ? " (differs)" : " (matches)");
      if (!place || (h.differing && !v.derived_differs)) v.false_hint = true;
      else if (h.differing) v.derived_hinted = true;
      continue;
    }
    if (h.kind == pa::hint_kind::unlinked_copy) {
      const bool place = stale.count(h.consumer_op) > 0 && copied_from.count(h.producer_op) > 0;
      v.reported += "; unlinked-copy hint at " + h.consumer_op + "/" + h.slot + " from " + h.producer_op +
                    (h.differing ? " (differs)" : " (matches)");
      // at its place: one that differs where the copy carried the difference; one that
      // matches names a copy, which is true wherever the copy matched
      if (!place || (h.differing && !v.copy_differs)) v.false_hint = true;
      else if (h.differing) v.copy_hinted = true;
      continue;
    }
    if (h.kind != pa::hint_kind::outside_op) continue;
    const bool place = outside.count(h.consumer_op) > 0;
    v.reported += "; outside-op hint at " + h.consumer_op + "/" + h.slot + (h.differing ? " (differs)" : " (matches)");
    if (place && h.differing && c.outside_change) v.hinted = true;
    else if (place && h.differing && v.derived_differs && derived_readers.count(h.consumer_op)) v.derived_hinted = true;
    else if (!place || h.differing) v.false_hint = true;
  }
  // The dump says an op writes in place what it did not declare as input (an implicit prior
  // state): never true of a block or of an op split over workers, whose outputs the ops they
  // enclose wrote.
  std::set<uint64_t> enclosing;  // their executions in A, by sequence number
  for (size_t i = 0; i < c.e.ops.size(); ++i)
    if ((c.e.ops[i].encloses > 0 || c.e.ops[i].tiles > 0) && ra.seq[i]) enclosing.insert(ra.seq[i]);
  for (const pa::compared_pair& p : r.runs[0].pairs)
    if (p.implicit && p.a.present && enclosing.count(p.seq)) {
      v.false_hint = true;
      v.reported += "; the dump says " + p.op + " writes '" + p.slot + "' in place";
      break;
    }
  // Any other op given an implicit prior state that only overwrites the bytes: counted, not a
  // false hint (the dump cannot see reads, and its note does not say the op reads them)
  std::set<uint64_t> updates;  // executions in A that update their output in place undeclared
  for (size_t i = 0; i < c.e.ops.size(); ++i)
    if (c.e.ops[i].m == mark::implicit && ra.seq[i]) updates.insert(ra.seq[i]);
  std::set<uint64_t> wrong;
  for (const pa::compared_pair& p : r.runs[0].pairs)
    if (p.implicit && p.a.present && !updates.count(p.seq) && wrong.insert(p.seq).second)
      v.reported += "; an implicit prior state at " + p.op + " (seq " + std::to_string(p.seq) + "), which overwrites '" +
                    p.slot + "'";
  v.implicit_wrong = static_cast<int>(wrong.size());
  if (c.outside_change) v.exact = g.roots.empty() && v.hinted;
  else v.exact = found && g.roots.size() == 1 && v.copy_hinted == v.copy_differs && v.derived_hinted == v.derived_differs;
  if (c.rounding_only) v.rounding_labelled = v.exact && g.roots[0].rounding;
  else if (v.exact && !c.outside_change) v.bug_called_rounding = g.roots[0].rounding;
  v.no_mismatch = r.counts.bad() == 0;
  // replay of one op of run B with the engine's kernel (must match), a kernel that computes
  // nothing and an off-by-one kernel (must mismatch)
  // (the op drawn, or when its output in B cannot tell those kernels apart, the first that can)
  size_t rop = static_cast<size_t>(c.replay_op);
  int rtile = c.replay_tile;
  auto tells = [&](size_t op, int tile) {
    return c.e.ops[op].out.len >= 2 && !c.e.ops[op].only_a && !c.e.ops[op].encloses &&
           (tile >= 0 ? rb.tile_varied[op][static_cast<size_t>(tile)] != 0 : rb.varied[op] != 0);
  };
  for (size_t op = 0; !tells(rop, rtile) && op < c.e.ops.size(); ++op) {
    rop = op;
    rtile = c.e.ops[op].tiles > 0 ? 0 : -1;
  }
  const uint64_t seq_b = rtile >= 0 ? rb.tile_seq[rop][static_cast<size_t>(rtile)] : rb.seq[rop];
  const std::string snap = score_impl::snapshot_dir(b, seq_b);
  probe::snapshot::info info;
  std::string error;
  if (snap.empty() || !probe::snapshot::read(snap, &info, &error)) {
    v.error = "replay: no snapshot of seq " + std::to_string(seq_b) + " " + error;
  } else {
    for (replay_mode m : {replay_mode::engine, replay_mode::nothing, replay_mode::off_by_one}) {
      current_replay_mode() = m;
      const probe::detail::replay_row row = probe::detail::replay_one(info, probe::detail::replay_settings());
      const bool right = m == replay_mode::engine ? row.outcome == probe::detail::replay_outcome::ok
                                                  : row.outcome == probe::detail::replay_outcome::mismatch;
      v.replay_right += right;
      ++v.replay_total;
      if (!right)
        v.reported += "; replay of " + info.key() + " with the " +
                      (m == replay_mode::engine ? "engine's" : m == replay_mode::nothing ? "do-nothing" : "off-by-one") +
                      " kernel: " + (row.outcome == probe::detail::replay_outcome::ok ? "ok" : row.outcome == probe::detail::replay_outcome::mismatch ? "mismatch" : "error " + row.error);
    }
    current_replay_mode() = replay_mode::engine;
  }
  if (report) *report = std::move(r);
  return v;
}

}  // namespace rc
