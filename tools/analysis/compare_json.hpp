// The JSON report of `probe compare` (format "probe-compare-1"): settings, counts, per run
// the graph answers and one object per paired key with its metrics. Compact: statistics
// and a per-decade histogram per tensor, never element values. Numbers that are not finite
// (an SNR of identical tensors, a tolerance no value satisfies) are written as null.
// docs/cli-compare.md lists the fields. Standalone header.
#pragma once
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <probe/formats/json_write.hpp>
#include "compare_ranks_json.hpp"
#include "compare_run.hpp"
#include "compare_words.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_json_impl {

inline void opt_string(json::writer& w, const std::string& s) {
  if (s.empty()) w.null(); else w.value(s);
}

// The tensors are most of the report (about 1 KB each, 77 MB for 80,000): they are written
// through a small buffer, member names as literals, values as json::writer writes them, so the
// report is the same bytes for a fraction of the work. `o("...")` appends JSON text, `o.v(x)`
// a value.
class lean {
 public:
  explicit lean(std::string& out) : out_(out) {}
  ~lean() { flush(); }
  lean(const lean&) = delete;
  lean& operator=(const lean&) = delete;

  // Inlined, so that each copy is of a known size: a few moves, no call.
  template <size_t N>
  PROBE_ALWAYS_INLINE lean& operator()(const char (&literal)[N]) {
    static_assert(N - 1 < sizeof buf_, "a literal longer than the buffer");
    room(N - 1);
    memcpy(buf_ + n_, literal, N - 1);
    n_ += N - 1;
    return *this;
  }
  lean& v(std::string_view s) {
    if (s.size() + 2 <= sizeof buf_ && plain(s)) {
      room(s.size() + 2);
      buf_[n_++] = '"';
      if (!s.empty()) memcpy(buf_ + n_, s.data(), s.size());
      n_ += s.size();
      buf_[n_++] = '"';
    } else {
      flush();
      ::probe::detail::append_json_string(out_, s);
    }
    return *this;
  }
  lean& v(const std::string& s) { return v(std::string_view(s)); }
  lean& v(const char*) = delete;  // would be taken for a bool: pass a string_view
  lean& v(bool b) { return b ? (*this)("true") : (*this)("false"); }
  lean& v(int x) { return v(static_cast<long long>(x)); }
  lean& v(long long x) {
    room(24);
    n_ = static_cast<size_t>(::probe::detail::put_int(buf_ + n_, x) - buf_);
    return *this;
  }
  lean& v(unsigned long long x) {
    room(24);
    n_ = static_cast<size_t>(::probe::detail::put_uint(buf_ + n_, x) - buf_);
    return *this;
  }
  lean& v(double x) {
    if (!::probe::detail::fp_finite(x)) return (*this)("null");
    room(::probe::detail::shortest_text_capacity + 24);
    // Whole numbers (zeros and counts, most of a report's values) skip the shortest-digits
    // search: write_shortest prints them as "12.0" below 1e15.
    if (x >= -2147483647.0 && x <= 2147483647.0 && x == static_cast<double>(static_cast<int32_t>(x)) &&
        (x != 0 || !std::signbit(x))) {
      n_ = static_cast<size_t>(::probe::detail::put_int(buf_ + n_, static_cast<int32_t>(x)) - buf_);
      (*this)(".0");
      return *this;
    }
    n_ += ::probe::detail::write_shortest(buf_ + n_, x);
    return *this;
  }
  // A string, or null when empty.
  lean& opt(const std::string& s) { return s.empty() ? (*this)("null") : v(s); }
  lean& dims(const int64_t* d, int n) {
    (*this)("[");
    for (int i = 0; i < n; ++i) {
      if (i) (*this)(",");
      v(static_cast<long long>(d[i]));
    }
    return (*this)("]");
  }
  lean& index(const std::vector<int64_t>& idx) {
    return idx.empty() ? (*this)("null") : dims(idx.data(), static_cast<int>(idx.size()));
  }
  void flush() {
    out_.append(buf_, n_);
    n_ = 0;
  }

 private:
  // What append_json_string copies unchanged.
  static bool plain(std::string_view s) {
    for (char ch : s) {
      const unsigned char c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
    }
    return true;
  }
  PROBE_ALWAYS_INLINE void room(size_t k) {
    if (n_ + k > sizeof buf_) flush();
  }

  std::string& out_;
  char buf_[16384];
  size_t n_ = 0;
};

inline void metrics(lean& o, const tensor_metrics& m) {
  using ll = long long;
  using ull = unsigned long long;
  o("{\"atol\":").v(m.tol.atol)(",\"rtol\":").v(m.tol.rtol);
  o(",\"count\":").v(static_cast<ll>(m.count))(",\"finite_pairs\":").v(static_cast<ll>(m.finite_pairs));
  o(",\"max_abs\":").v(m.max_abs)(",\"mean_abs\":").v(m.mean_abs)(",\"rmse\":").v(m.rmse);
  o(",\"max_rel\":").v(m.max_rel)(",\"mean_rel\":").v(m.mean_rel);
  o(",\"cosine\":").v(m.cosine)(",\"snr_db\":").v(m.snr_db);
  o(",\"max_ulp\":");
  if (m.ulp_valid) o.v(static_cast<ull>(m.max_ulp)); else o("null");
  o(",\"fail\":").v(static_cast<ll>(m.fail))(",\"fail_fraction\":").v(m.fail_fraction);
  o(",\"nan_mismatch\":").v(static_cast<ll>(m.nan_mismatch));
  o(",\"inf_mismatch\":").v(static_cast<ll>(m.inf_mismatch));
  o(",\"first_fail\":").index(m.first_fail);
  o(",\"worst_fail\":").index(m.worst_fail);
  o(",\"worst_ratio\":").v(m.worst_ratio);
  o(",\"quantiles\":{\"p50\":").v(m.p50)(",\"p90\":").v(m.p90)(",\"p99\":").v(m.p99)(",\"max\":").v(m.max_abs)("}");
  o(",\"check_abs\":").v(m.check_abs)(",\"check_rel\":").v(m.check_rel);
  o(",\"min_atol\":").v(m.min_atol)(",\"min_rtol\":").v(m.min_rtol);
  o(",\"pass\":").v(m.pass);
  o(",\"histogram\":{\"lowest_decade\":").v(m.hist.lowest);
  o(",\"zero\":").v(static_cast<ull>(m.hist.counts.empty() ? 0 : m.hist.counts[0]));
  o(",\"counts\":[");
  for (size_t i = 1; i < m.hist.counts.size(); ++i) {
    if (i > 1) o(",");
    o.v(static_cast<ull>(m.hist.counts[i]));
  }
  o("]}}");
}

inline void pair(lean& o, const compared_pair& p) {
  using ll = long long;
  using ull = unsigned long long;
  // a tensor only in B under B's own key (pairing may have given it a fresh one)
  o("{\"key\":").v(p.status == pair_status::only_b && !p.b.own_key.empty() ? p.b.own_key : p.key);
  o(",\"seq\":").v(static_cast<ull>(p.seq));
  if (!p.op.empty()) {
    o(",\"op\":").v(p.op)(",\"type\":").v(p.type)(",\"occurrence\":").v(static_cast<ull>(p.occurrence));
    o(",\"io\":").v(std::string_view(p.is_input ? "in" : "out"))(",\"slot\":").v(p.slot)(",\"step\":").v(static_cast<ll>(p.step));
    o(",\"producer\":").opt(p.producer);
  }
  o(",\"status\":").v(std::string_view(pair_status_name(p.status)));
  o(",\"why\":").opt(p.why);
  for (int side = 0; side < 2; ++side) {
    const pair_side& s = side ? p.b : p.a;
    if (side) o(",\"b\":"); else o(",\"a\":");
    if (!s.present) {
      o("null");
      continue;
    }
    o("{\"dtype\":").v(std::string_view(dtype_name(s.type)))(",\"shape\":").dims(s.shape, s.ndim);
    o(",\"file\":").opt(s.file)("}");
  }
  o(",\"metrics\":");
  if (p.metrics.compared) metrics(o, p.metrics); else o("null");
  o(",\"by_stats\":").v(p.by_stats);
  o(",\"tol_note\":").opt(p.tol_note);
  if (p.is_input) {
    o(",\"inout\":").v(p.inout)(",\"implicit\":").v(p.implicit);
    o(",\"producers\":[");
    for (size_t i = 0; i < p.producers.size(); ++i) {
      const dump_producer& d = p.producers[i];
      if (i) o(",");
      o("{\"key\":").v(d.key)(",\"bytes\":").v(static_cast<ull>(d.bytes));
      o(",\"offset\":").v(static_cast<ull>(d.offset))("}");
    }
    o("]");
    const std::string& stale = !p.a.stale_producer.empty() ? p.a.stale_producer : p.b.stale_producer;
    o(",\"stale\":").opt(stale);
  }
  o(",\"scale\":");
  if (p.scale >= 0) o.v(p.scale); else o("null");
  o(",\"fresh_fail\":");
  if (p.fresh_fail >= 0) o.v(static_cast<ll>(p.fresh_fail)); else o("null");
  o(",\"slice\":");
  if (p.slice_dim >= 0) o("{\"dim\":").v(p.slice_dim)(",\"index\":").v(static_cast<ll>(p.slice_index))("}");
  else o("null");
  o("}");
}

// `"k":["op#0",...]`, with a comma before it unless it is the object's first member.
inline void node_keys(lean& o, const graph_answers& g, const char* k, const std::vector<size_t>& nodes, bool first = false) {
  if (!first) o(",");
  o.v(std::string_view(k))(":[");
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i) o(",");
    o.v(own_op_key(g.nodes[nodes[i]]));
  }
  o("]");
}

// An op's members, after others unless `first`.
inline void node(lean& o, const compared_run& run, const op_node& n, bool first_member = false) {
  if (!first_member) o(",");
  o("\"op_key\":").v(n.op_key)(",\"op\":").v(n.op)(",\"type\":").v(n.type);
  o(",\"seq\":").v(static_cast<unsigned long long>(n.seq))(",\"mismatching_outputs\":[");
  bool first = true;
  for (size_t pi : n.outputs)
    if (status_mismatch(run.pairs[pi].status)) {
      if (!first) o(",");
      first = false;
      o.v(run.pairs[pi].key);
    }
  o("]");
}

// One run's object: its answers, then every tensor (most of the report).
inline void run(lean& o, const compared_run& r) {
  using ull = unsigned long long;
  o("{\"name\":").opt(r.name);
  const graph_answers& g = r.graph;
  o(",\"graph\":").v(g.available);
  o(",\"first_divergence\":");
  if (g.first_divergence >= 0) {
    o("{");
    node(o, r, g.nodes[static_cast<size_t>(g.first_divergence)], true);
    o("}");
  } else {
    o("null");
  }
  o(",\"roots\":[");
  for (size_t i = 0; i < g.roots.size(); ++i) {
    const root_cause& c = g.roots[i];
    if (i) o(",");
    o("{\"kind\":").v(std::string_view(c.is_input ? "input" : "op"));
    o(",\"cause\":").v(std::string_view(root_kind_name(c.kind)));
    o(",\"severity\":").v(c.severity)(",\"rounding\":").v(c.rounding);
    node(o, r, g.nodes[c.node]);
    o(",\"input\":");
    if (c.is_input) o.opt(r.pairs[c.input].key); else o("null");
    o(",\"producer\":");
    if (c.is_input) o.opt(r.pairs[c.input].producer); else o("null");
    o(",\"reaches\":[");
    for (size_t k = 0; k < c.reaches.size(); ++k) {
      if (k) o(",");
      const op_node& n = g.nodes[c.reaches[k]];
      o("{\"op_key\":").v(n.op_key)(",\"seq\":").v(static_cast<ull>(n.seq))("}");
    }
    o("]}");
  }
  o("]");
  o(",\"unexplained\":[");
  for (size_t i = 0; i < g.unexplained.size(); ++i) {
    if (i) o(",");
    o.v(g.nodes[g.unexplained[i]].op_key);
  }
  o("]");
  // ops whose inputs pass but carry a root's difference, grown past the tolerance again
  o(",\"regrown\":[");
  for (size_t i = 0; i < g.regrown.size(); ++i) {
    if (i) o(",");
    o("{\"op_key\":").v(g.nodes[g.regrown[i].first].op_key)(",\"root\":").v(static_cast<ull>(g.regrown[i].second))("}");
  }
  o("]");
  // the same for a difference that starts at a hint (an index into "hints")
  o(",\"regrown_by_hint\":[");
  for (size_t i = 0; i < g.regrown_by_hint.size(); ++i) {
    if (i) o(",");
    o("{\"op_key\":").v(g.nodes[g.regrown_by_hint[i].first].op_key)(",\"hint\":").v(static_cast<ull>(g.regrown_by_hint[i].second))("}");
  }
  o("]");
  o(",\"hints\":[");
  for (size_t i = 0; i < g.hints.size(); ++i) {
    const graph_hint& h = g.hints[i];
    if (i) o(",");
    o("{\"kind\":").v(std::string_view(hint_kind_name(h.kind)))(",\"producer\":").v(h.producer_key);
    o(",\"consumer_op\":").v(h.consumer_op)(",\"slot\":").v(h.slot)(",\"last_op_before\":").v(h.last_op);
    o(",\"producer_step\":").v(static_cast<long long>(h.producer_step))(",\"only_in\":").v(h.only_in);
    o(",\"converted\":").v(h.converted);
    o(",\"part\":").v(std::string_view(part_relation_name(h.part)));
    if (!h.with_key.empty()) o(",\"with\":").v(h.with_key);
    o(",\"occurrences\":").v(static_cast<ull>(h.inputs.size()));
    o(",\"differing\":").v(static_cast<ull>(h.differing));
    o(",\"carried\":").v(static_cast<ull>(h.carried));
    node_keys(o, g, "reaches", h.reaches);
    o("}");
  }
  o("]");
  const run_findings& f = r.findings;
  o(",\"alignment\":{");
  node_keys(o, g, "only_a", f.align.only_a, true);
  node_keys(o, g, "only_b", f.align.only_b);
  node_keys(o, g, "reordered", f.align.reordered);
  o(",\"paired\":").v(static_cast<ull>(f.align.paired));
  o(",\"counts\":[");
  for (size_t i = 0; i < f.align.count_notes.size(); ++i) {
    if (i) o(",");
    o.v(f.align.count_notes[i]);
  }
  o("]}");
  o(",\"amplifiers\":[");
  for (size_t i = 0; i < f.amplifiers.size(); ++i) {
    const amplifier& a = f.amplifiers[i];
    if (i) o(",");
    o("{\"op_key\":").v(g.nodes[a.node].op_key)(",\"in_error\":").v(a.in_error)(",\"out_error\":").v(a.out_error)("}");
  }
  o("]");
  o(",\"faulty_types\":[");
  for (size_t i = 0; i < f.types.size(); ++i) {
    const type_group& t = f.types[i];
    if (i) o(",");
    o("{\"type\":").v(t.type)(",\"instances\":").v(static_cast<ull>(t.instances));
    node_keys(o, g, "faulty", t.faulty);
    node_keys(o, g, "suspects", t.suspects);
    o(",\"growth\":[");
    for (size_t k = 0; k < t.growth.size(); ++k) {
      if (k) o(",");
      o.v(t.growth[k]);  // null when not finite
    }
    o("]}");
  }
  o("]");
  o(",\"input_groups\":[");
  for (size_t i = 0; i < f.input_groups.size(); ++i) {
    const input_group& ig = f.input_groups[i];
    if (i) o(",");
    o("{\"cause\":").v(std::string_view(root_kind_name(ig.kind)))(",\"op\":").v(ig.op)(",\"slot\":").v(ig.slot);
    o(",\"roots\":").v(static_cast<ull>(ig.roots.size()));
    o(",\"occurrences\":").v(static_cast<ull>(ig.occurrences))("}");
  }
  o("]");
  o(",\"tensors\":[");
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    if (i) o(",");
    pair(o, r.pairs[i]);
  }
  o("]}");
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
  size_t pairs = 0;
  for (const compared_run& cr : r.runs) pairs += cr.pairs.size();
  out.reserve(4096 + pairs * 1024);  // about a tensor's share
  json::writer w(out);
  w.begin_object().member("format", "probe-compare-1");
  w.member("a", r.a).member("b", r.b).member("kind", r.kind).member("same_build", r.same_build);
  strings(w, "environment_differs", r.environment_differs);
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
  // The writer places the array; the runs in it are appended behind its back.
  w.key("runs").raw("[");
  {
    lean o(out);
    for (size_t i = 0; i < r.runs.size(); ++i) {
      if (i) o(",");
      run(o, r.runs[i]);
    }
    o("]");
  }
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
