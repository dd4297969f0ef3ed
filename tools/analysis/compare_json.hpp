// The JSON report of `probe compare` (format "probe-compare-1"): settings, counts, per run
// the graph answers and one object per paired key with its metrics. Compact: statistics
// and a per-decade histogram per tensor, never element values. Numbers that are not finite
// (an SNR of identical tensors, a tolerance no value satisfies) are written as null.
// docs/cli-compare.md lists the fields. Standalone header.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include <probe/formats/json_write.hpp>
#include "compare_ranks_json.hpp"
#include "compare_run.hpp"
#include "compare_words.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_json_impl {

inline void dims(json::writer& w, const int64_t* d, int n) {
  w.begin_array();
  for (int i = 0; i < n; ++i) w.value(static_cast<long long>(d[i]));
  w.end_array();
}
inline void index(json::writer& w, const std::vector<int64_t>& idx) {
  if (idx.empty()) {
    w.null();
    return;
  }
  dims(w, idx.data(), static_cast<int>(idx.size()));
}
inline void opt_string(json::writer& w, const std::string& s) {
  if (s.empty()) w.null(); else w.value(s);
}

inline void metrics(json::writer& w, const tensor_metrics& m) {
  w.begin_object();
  w.member("atol", m.tol.atol).member("rtol", m.tol.rtol);
  w.member("count", static_cast<long long>(m.count)).member("finite_pairs", static_cast<long long>(m.finite_pairs));
  w.member("max_abs", m.max_abs).member("mean_abs", m.mean_abs).member("rmse", m.rmse);
  w.member("max_rel", m.max_rel).member("mean_rel", m.mean_rel);
  w.member("cosine", m.cosine).member("snr_db", m.snr_db);
  w.key("max_ulp");
  if (m.ulp_valid) w.value(static_cast<unsigned long long>(m.max_ulp)); else w.null();
  w.member("fail", static_cast<long long>(m.fail)).member("fail_fraction", m.fail_fraction);
  w.member("nan_mismatch", static_cast<long long>(m.nan_mismatch));
  w.member("inf_mismatch", static_cast<long long>(m.inf_mismatch));
  w.key("first_fail"), index(w, m.first_fail);
  w.key("worst_fail"), index(w, m.worst_fail);
  w.member("worst_ratio", m.worst_ratio);
  w.key("quantiles").begin_object().member("p50", m.p50).member("p90", m.p90).member("p99", m.p99);
  w.member("max", m.max_abs).end_object();
  w.member("check_abs", m.check_abs).member("check_rel", m.check_rel);
  w.member("min_atol", m.min_atol).member("min_rtol", m.min_rtol);
  w.member("pass", m.pass);
  w.key("histogram").begin_object().member("lowest_decade", m.hist.lowest);
  w.member("zero", static_cast<unsigned long long>(m.hist.counts.empty() ? 0 : m.hist.counts[0]));
  w.key("counts").begin_array();
  for (size_t i = 1; i < m.hist.counts.size(); ++i) w.value(static_cast<unsigned long long>(m.hist.counts[i]));
  w.end_array().end_object();
  w.end_object();
}

inline void pair(json::writer& w, const compared_pair& p) {
  w.begin_object();
  w.member("key", p.key).member("seq", static_cast<unsigned long long>(p.seq));
  if (!p.op.empty()) {
    w.member("op", p.op).member("type", p.type).member("occurrence", static_cast<unsigned long long>(p.occurrence));
    w.member("io", p.is_input ? "in" : "out").member("slot", p.slot).member("step", static_cast<long long>(p.step));
    w.key("producer"), opt_string(w, p.producer);
  }
  w.member("status", pair_status_name(p.status));
  w.key("why"), opt_string(w, p.why);
  for (int side = 0; side < 2; ++side) {
    const pair_side& s = side ? p.b : p.a;
    const char* tag = side ? "b" : "a";
    w.key(tag);
    if (!s.present) {
      w.null();
      continue;
    }
    w.begin_object().member("dtype", dtype_name(s.type)).key("shape"), dims(w, s.shape, s.ndim);
    w.key("file"), opt_string(w, s.file);
    w.end_object();
  }
  w.key("metrics");
  if (p.metrics.compared) metrics(w, p.metrics); else w.null();
  w.member("by_stats", p.by_stats);
  w.key("tol_note"), opt_string(w, p.tol_note);
  if (p.is_input) {
    w.member("inout", p.inout).member("implicit", p.implicit);
    w.key("producers").begin_array();
    for (const dump_producer& d : p.producers)
      w.begin_object().member("key", d.key).member("bytes", static_cast<unsigned long long>(d.bytes))
          .member("offset", static_cast<unsigned long long>(d.offset)).end_object();
    w.end_array();
    const std::string& stale = !p.a.stale_producer.empty() ? p.a.stale_producer : p.b.stale_producer;
    w.key("stale"), opt_string(w, stale);
  }
  w.key("scale");
  if (p.scale >= 0) w.value(p.scale); else w.null();
  w.key("fresh_fail");
  if (p.fresh_fail >= 0) w.value(static_cast<long long>(p.fresh_fail)); else w.null();
  w.key("slice");
  if (p.slice_dim >= 0)
    w.begin_object().member("dim", p.slice_dim).member("index", static_cast<long long>(p.slice_index)).end_object();
  else
    w.null();
  w.end_object();
}

inline void node_keys(json::writer& w, const graph_answers& g, const char* k, const std::vector<size_t>& nodes) {
  w.key(k).begin_array();
  for (size_t ni : nodes) w.value(g.nodes[ni].op_key);
  w.end_array();
}

inline void node(json::writer& w, const compared_run& run, const op_node& n) {
  w.member("op_key", n.op_key).member("op", n.op).member("type", n.type).member("seq", static_cast<unsigned long long>(n.seq));
  w.key("mismatching_outputs").begin_array();
  for (size_t pi : n.outputs)
    if (status_mismatch(run.pairs[pi].status)) w.value(run.pairs[pi].key);
  w.end_array();
}

inline void run(json::writer& w, const compared_run& r) {
  w.begin_object();
  w.key("name"), opt_string(w, r.name);
  const graph_answers& g = r.graph;
  w.member("graph", g.available);
  w.key("first_divergence");
  if (g.first_divergence >= 0) {
    w.begin_object();
    node(w, r, g.nodes[static_cast<size_t>(g.first_divergence)]);
    w.end_object();
  } else {
    w.null();
  }
  w.key("roots").begin_array();
  for (const root_cause& c : g.roots) {
    w.begin_object().member("kind", c.is_input ? "input" : "op").member("cause", root_kind_name(c.kind));
    w.member("severity", c.severity).member("rounding", c.rounding);
    node(w, r, g.nodes[c.node]);
    w.key("input");
    if (c.is_input) opt_string(w, r.pairs[c.input].key); else w.null();
    w.key("producer");
    if (c.is_input) opt_string(w, r.pairs[c.input].producer); else w.null();
    w.key("reaches").begin_array();
    for (size_t ni : c.reaches)
      w.begin_object().member("op_key", g.nodes[ni].op_key).member("seq", static_cast<unsigned long long>(g.nodes[ni].seq)).end_object();
    w.end_array().end_object();
  }
  w.end_array();
  w.key("unexplained").begin_array();
  for (size_t ni : g.unexplained) w.value(g.nodes[ni].op_key);
  w.end_array();
  // ops whose inputs pass but carry a root's difference, grown past the tolerance again
  w.key("regrown").begin_array();
  for (const auto& x : g.regrown)
    w.begin_object().member("op_key", g.nodes[x.first].op_key).member("root", static_cast<unsigned long long>(x.second)).end_object();
  w.end_array();
  w.key("hints").begin_array();
  for (const graph_hint& h : g.hints) {
    w.begin_object().member("kind", hint_kind_name(h.kind)).member("producer", h.producer_key);
    w.member("consumer_op", h.consumer_op).member("slot", h.slot).member("last_op_before", h.last_op);
    w.member("producer_step", static_cast<long long>(h.producer_step)).member("only_in", h.only_in);
    w.member("occurrences", static_cast<unsigned long long>(h.inputs.size()));
    w.member("differing", static_cast<unsigned long long>(h.differing));
    node_keys(w, g, "reaches", h.reaches);
    w.end_object();
  }
  w.end_array();
  const run_findings& f = r.findings;
  w.key("alignment").begin_object();
  node_keys(w, g, "only_a", f.align.only_a);
  node_keys(w, g, "only_b", f.align.only_b);
  node_keys(w, g, "reordered", f.align.reordered);
  w.member("paired", static_cast<unsigned long long>(f.align.paired));
  w.key("counts").begin_array();
  for (const std::string& c : f.align.count_notes) w.value(c);
  w.end_array().end_object();
  w.key("amplifiers").begin_array();
  for (const amplifier& a : f.amplifiers)
    w.begin_object().member("op_key", g.nodes[a.node].op_key).member("in_error", a.in_error)
        .member("out_error", a.out_error).end_object();
  w.end_array();
  w.key("faulty_types").begin_array();
  for (const type_group& t : f.types) {
    w.begin_object().member("type", t.type).member("instances", static_cast<unsigned long long>(t.instances));
    node_keys(w, g, "faulty", t.faulty);
    node_keys(w, g, "suspects", t.suspects);
    w.key("growth").begin_array();
    for (double x : t.growth) {
      if (std::isfinite(x)) w.value(x); else w.null();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.key("input_groups").begin_array();
  for (const input_group& ig : f.input_groups) {
    w.begin_object().member("cause", root_kind_name(ig.kind)).member("op", ig.op).member("slot", ig.slot);
    w.member("roots", static_cast<unsigned long long>(ig.roots.size()));
    w.member("occurrences", static_cast<unsigned long long>(ig.occurrences)).end_object();
  }
  w.end_array();
  w.key("tensors").begin_array();
  for (const compared_pair& p : r.pairs) pair(w, p);
  w.end_array();
  w.end_object();
}

inline void strings(json::writer& w, const char* k, const std::vector<std::string>& v) {
  w.key(k).begin_array();
  for (const std::string& s : v) w.value(s);
  w.end_array();
}

}  // namespace compare_json_impl

inline std::string compare_json(const compare_report& r) {
  using namespace compare_json_impl;
  std::string out;
  json::writer w(out);
  w.begin_object().member("format", "probe-compare-1");
  w.member("a", r.a).member("b", r.b).member("kind", r.kind).member("same_build", r.same_build);
  w.key("error"), opt_string(w, r.error);
  const compare_settings& s = r.settings;
  w.key("settings").begin_object();
  w.key("atol");
  if (s.tol.atol >= 0) w.value(s.tol.atol); else w.null();
  w.key("rtol");
  if (s.tol.rtol >= 0) w.value(s.tol.rtol); else w.null();
  w.member("check", check_mode_name(s.check.mode)).member("quantile", s.check.quantile);
  w.member("equal_nan", s.check.equal_nan).member("inf_equal", s.check.inf_equal);
  w.member("accept_rounding", s.accept_rounding);
  w.key("step");
  if (s.has_step) w.value(static_cast<long long>(s.step)); else w.null();
  w.key("overrides").begin_array();
  for (const auto& o : s.overrides) {
    w.begin_object().member("pattern", o.pattern);
    w.key("atol");
    if (o.tol.atol >= 0) w.value(o.tol.atol); else w.null();
    w.key("rtol");
    if (o.tol.rtol >= 0) w.value(o.tol.rtol); else w.null();
    w.end_object();
  }
  w.end_array().end_object();
  const compare_counts& k = r.counts;
  w.key("summary").begin_object();
  w.member("tensors", static_cast<unsigned long long>(k.pairs)).member("ok", static_cast<unsigned long long>(k.ok));
  w.member("mismatch", static_cast<unsigned long long>(k.mismatch)).member("shape", static_cast<unsigned long long>(k.shape));
  w.member("dtype", static_cast<unsigned long long>(k.dtype)).member("only_a", static_cast<unsigned long long>(k.only_a));
  w.member("only_b", static_cast<unsigned long long>(k.only_b)).member("no_data", static_cast<unsigned long long>(k.no_data));
  w.member("by_stats", static_cast<unsigned long long>(k.by_stats));
  w.key("rounding");
  const std::string rounding = compare_text_impl::rounding_words(r);
  if (rounding.empty()) w.null(); else w.value(rounding);
  w.member("all_rounding", r.all_rounding);
  w.member("exit", r.exit_code()).member("bytes", static_cast<unsigned long long>(r.bytes)).member("seconds", r.seconds);
  w.end_object();
  strings(w, "notes", r.notes);
  strings(w, "runs_only_a", r.runs_only_a);
  strings(w, "runs_only_b", r.runs_only_b);
  w.key("ranks"), ranks_json(w, r);  // across MPI ranks; null for one run
  w.key("runs").begin_array();
  for (const compared_run& cr : r.runs) run(w, cr);
  w.end_array().end_object();
  out += '\n';
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
