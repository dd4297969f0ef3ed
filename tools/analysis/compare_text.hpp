// The terminal report of `probe compare`: a table in sequence order (one row per paired
// key), then the answers in plain words: counts, first divergence, root causes and what
// each reaches. Colour (ANSI) only when asked, which the CLI does on a tty; every text that
// came from a file is escaped (probe::detail::printable), so the colour codes are the only
// control characters the report holds. Standalone header.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <probe/util/text.hpp>
#include "compare_run.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct compare_text_options {
  bool color = false;
  bool all_rows = false;       // every row, even past max_rows
  size_t max_rows = 200;       // above this many pairs, rows within tolerance are left out
};

namespace compare_text_impl {

inline std::string num(double v, int digits = 3) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char b[32];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

// Cosine near 1 as "1-4.8e-11": the distance from 1 is what tells runs apart.
inline std::string cosine_text(double c) {
  if (c == 1) return "1";
  if (c > 0.9999) return "1-" + num(1 - c, 2);
  return num(c, 6);
}

inline std::string index_text(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

inline std::string fit(const std::string& s, size_t width) {
  if (s.size() <= width) return s + std::string(width - s.size(), ' ');
  const size_t keep = width - 1, head = keep / 3;
  return s.substr(0, head) + "~" + s.substr(s.size() - (keep - head));
}

inline std::string right(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

inline std::string dtype_text(const compared_pair& p) {
  const dtype a = p.a.present ? p.a.type : p.b.type, b = p.b.present ? p.b.type : p.a.type;
  return a == b ? std::string(dtype_name(a)) : std::string(dtype_name(a)) + "/" + dtype_name(b);
}

inline std::string shape_text(const compared_pair& p) {
  const pair_side& s = p.a.present ? p.a : p.b;
  return shape_string(s.shape, s.ndim);
}

struct paint {
  bool on;
  std::string operator()(const std::string& s, const char* code) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

inline std::string status_text(const compared_pair& p) {
  switch (p.status) {
    case pair_status::ok: return "ok";
    case pair_status::mismatch: return "MISMATCH";
    case pair_status::shape: return "SHAPE " + p.why.substr(p.why.find(' ') + 1);
    case pair_status::dtype: return "DTYPE " + p.why.substr(p.why.find(' ') + 1);
    case pair_status::only_a: return "only in A";
    case pair_status::only_b: return "only in B";
    default: return "no data (" + ::probe::detail::printable(p.why) + ")";
  }
}

inline std::string node_name(const op_node& n) {
  return ::probe::detail::printable(n.op_key) + (n.type.empty() ? "" : " (" + ::probe::detail::printable(n.type) + ")") + " at seq " + std::to_string(n.seq);
}

inline std::string failing_words(const compared_pair& p) {
  const tensor_metrics& m = p.metrics;
  if (p.status != pair_status::mismatch) return ::probe::detail::printable(p.why);
  std::string s = std::to_string(m.fail) + " of " + std::to_string(m.count) + " elements fail";
  if (m.nan_mismatch || m.inf_mismatch)
    s += " (" + std::to_string(m.nan_mismatch) + " NaN, " + std::to_string(m.inf_mismatch) + " Inf disagreements)";
  if (m.finite_pairs) s += ", max abs err " + num(m.max_abs, 4);
  if (!m.worst_fail.empty()) s += ", worst at " + index_text(m.worst_fail);
  s += " (atol " + num(m.tol.atol) + ", rtol " + num(m.tol.rtol) + ")";
  return s;
}

inline void list_nodes(std::string& out, const graph_answers& g, const std::vector<size_t>& nodes, size_t most = 12) {
  for (size_t i = 0; i < nodes.size() && i < most; ++i) {
    const op_node& n = g.nodes[nodes[i]];
    out += (i ? ", " : "") + ::probe::detail::printable(n.op_key) + " (seq " + std::to_string(n.seq) + ")";
  }
  if (nodes.size() > most) out += ", and " + std::to_string(nodes.size() - most) + " more";
}

inline void answers(std::string& out, const compared_run& run, const paint& p) {
  const graph_answers& g = run.graph;
  const std::string prefix = run.name.empty() ? "" : ::probe::detail::printable(run.name) + ": ";
  if (!g.available) return;
  if (g.first_divergence < 0 && g.roots.empty()) {
    out += prefix + "no op diverges.\n";
    return;
  }
  if (g.first_divergence >= 0) {
    const op_node& n = g.nodes[static_cast<size_t>(g.first_divergence)];
    out += prefix + p("First divergence:", "1") + " op " + node_name(n) + ".";
    for (size_t pi : n.outputs)
      if (status_mismatch(run.pairs[pi].status)) {
        out += " Output " + ::probe::detail::printable(run.pairs[pi].key) + ": " + failing_words(run.pairs[pi]) + ".";
        break;
      }
    out += "\n";
  }
  for (const root_cause& r : g.roots) {
    const op_node& n = g.nodes[r.node];
    out += prefix + p("Root cause:", "1;31") + " ";
    if (r.is_input) {
      const compared_pair& in = run.pairs[r.input];
      out += "input " + ::probe::detail::printable(in.slot) + " of op " + node_name(n) + " (" + ::probe::detail::printable(in.key) + ") differs, ";
      if (in.producer.empty())
        out += "and it is a graph input: the runs were fed different data.";
      else {
        bool dumped = false;
        for (const compared_pair& q : run.pairs) dumped = dumped || (!q.is_input && q.key == in.producer);
        const std::string producer = ::probe::detail::printable(in.producer);
        out += dumped ? "but its producer's output " + producer + " matched: the buffer changed in between."
                      : "and its producer " + producer + " was not dumped.";
      }
    } else {
      out += "op " + node_name(n) + ": its inputs match, and";
      bool first = true;
      for (size_t pi : n.outputs)
        if (status_mismatch(run.pairs[pi].status)) {
          out += std::string(first ? "" : ";") + " output " + ::probe::detail::printable(run.pairs[pi].key) + " does not: " +
                 failing_words(run.pairs[pi]);
          first = false;
        }
      out += ".";
    }
    if (r.reaches.empty()) {
      out += " Its error reaches no other op.\n";
    } else {
      out += " Its error reaches " + std::to_string(r.reaches.size()) + " op" + (r.reaches.size() > 1 ? "s" : "") + ": ";
      list_nodes(out, g, r.reaches);
      out += ".\n";
    }
  }
  if (!g.unexplained.empty()) {
    out += prefix + "Mismatching ops no root explains: ";
    list_nodes(out, g, g.unexplained);
    out += ".\n";
  }
}

}  // namespace compare_text_impl

inline std::string tolerance_words(const compare_settings& s) {
  std::string t;
  if (s.tol.atol >= 0 && s.tol.rtol >= 0)
    t = "atol " + compare_text_impl::num(s.tol.atol) + ", rtol " + compare_text_impl::num(s.tol.rtol);
  else
    t = std::string("per-dtype defaults") + (s.tol.atol >= 0 ? " with atol " + compare_text_impl::num(s.tol.atol) : "") +
        (s.tol.rtol >= 0 ? " with rtol " + compare_text_impl::num(s.tol.rtol) : "");
  if (!s.overrides.empty()) t += ", " + std::to_string(s.overrides.size()) + " --tol override(s)";
  std::string check = check_mode_name(s.check.mode);
  if (s.check.mode == check_mode::quantile) check += ":" + compare_text_impl::num(s.check.quantile);
  return t + "; check " + check + "; NaN " + (s.check.equal_nan ? "==" : "!=") + " NaN; Inf " +
         (s.check.inf_equal ? "==" : "!=") + " Inf";
}

// The answers in words: notes, counts, first divergence, root causes.
inline std::string compare_summary_text(const compare_report& r, bool color = false) {
  using namespace compare_text_impl;
  const paint p{color};
  std::string out;
  for (const std::string& n : r.notes) out += "note: " + ::probe::detail::printable(n) + "\n";
  const compare_counts& k = r.counts;
  out += std::to_string(k.pairs) + " tensors: " + std::to_string(k.ok) + " within tolerance, " +
         std::to_string(k.mismatch) + " out of tolerance";
  if (k.shape) out += ", " + std::to_string(k.shape) + " with different shapes";
  if (k.dtype) out += ", " + std::to_string(k.dtype) + " with incomparable dtypes";
  if (k.only_a) out += ", " + std::to_string(k.only_a) + " only in A";
  if (k.only_b) out += ", " + std::to_string(k.only_b) + " only in B";
  if (k.no_data) out += ", " + std::to_string(k.no_data) + " without data";
  out += ".\n";
  for (const std::string& n : r.runs_only_a) out += "Run folder " + ::probe::detail::printable(n) + " is only in A.\n";
  for (const std::string& n : r.runs_only_b) out += "Run folder " + ::probe::detail::printable(n) + " is only in B.\n";
  for (const compared_run& run : r.runs) answers(out, run, p);
  if (r.kind == "npy folders" || r.kind == "npy files") {
    for (const compared_run& run : r.runs)
      for (const compared_pair& q : run.pairs)
        if (status_mismatch(q.status)) {
          out += "First mismatching file (in name order): " + ::probe::detail::printable(q.key) + ": " + failing_words(q) + ".\n";
          break;
        }
  }
  out += r.exit_code() == 0 ? p("All within tolerance.", "32") + "\n" : "";
  return out;
}

inline std::string compare_text(const compare_report& r, const compare_text_options& o = compare_text_options()) {
  using namespace compare_text_impl;
  const paint p{o.color};
  std::string out;
  out += "probe compare: A = " + ::probe::detail::printable(r.a) + " (under test), B = " + ::probe::detail::printable(r.b) +
         " (reference), " + r.kind + "\n";
  if (!r.error.empty()) return out + "error: " + ::probe::detail::printable(r.error) + "\n";
  out += "tolerance: " + tolerance_words(r.settings) + (r.settings.has_step ? "; step " + std::to_string(r.settings.step) : "") + "\n";
  const bool hide_ok = !o.all_rows && r.counts.pairs > o.max_rows;
  size_t hidden = 0;
  for (const compared_run& run : r.runs) {
    size_t width = 6, dw = 5, sw = 5;
    for (const compared_pair& q : run.pairs) {
      width = std::max(width, ::probe::detail::printable(q.key).size());
      dw = std::max(dw, dtype_text(q).size());
      sw = std::max(sw, shape_text(q).size());
    }
    width = std::min<size_t>(width, 44);
    sw = std::min<size_t>(sw, 20);
    out += "\n";
    if (!run.name.empty()) out += p("== " + ::probe::detail::printable(run.name) + " ==", "1") + "\n";
    out += right("seq", 6) + "  " + fit("tensor", width) + "  " + fit("dtype", dw) + "  " + fit("shape", sw) + "  " +
           right("max abs", 9) + "  " + right("max rel", 9) + "  " + right("p99 abs", 9) + "  " + right("cosine", 9) +
           "  " + right("ulp", 6) + "  " + right("fail", 14) + "  status\n";
    for (const compared_pair& q : run.pairs) {
      if (hide_ok && q.status == pair_status::ok) {
        ++hidden;
        continue;
      }
      const tensor_metrics& m = q.metrics;
      std::string row = right(std::to_string(q.seq), 6) + "  " + fit(::probe::detail::printable(q.key), width) + "  " + fit(dtype_text(q), dw) + "  " +
                        fit(shape_text(q), sw) + "  ";
      if (m.compared) {
        std::string fail = "0";
        if (m.fail) {
          char pct[16];
          const double f = 100 * m.fail_fraction;
          std::snprintf(pct, sizeof pct, f >= 10 ? "%.0f" : "%.2g", f);
          fail = std::to_string(m.fail) + " (" + pct + "%)";
        }
        row += right(num(m.max_abs), 9) + "  " + right(num(m.max_rel), 9) + "  " + right(num(m.p99), 9) + "  " +
               right(cosine_text(m.cosine), 9) + "  " + right(m.ulp_valid ? std::to_string(m.max_ulp) : "-", 6) + "  " +
               right(fail, 14) + "  ";
      } else {
        row += right("-", 9) + "  " + right("-", 9) + "  " + right("-", 9) + "  " + right("-", 9) + "  " + right("-", 6) +
               "  " + right("-", 14) + "  ";
      }
      const std::string st = status_text(q);
      row += q.status == pair_status::ok ? p(st, "32") : q.status == pair_status::no_data ? p(st, "33") : p(st, "1;31");
      out += row + "\n";
    }
  }
  if (hidden) out += "(" + std::to_string(hidden) + " rows within tolerance not shown; --all shows them)\n";
  out += "\n";
  return out + compare_summary_text(r, o.color);
}

}  // namespace analysis
PROBE_END_NAMESPACE
