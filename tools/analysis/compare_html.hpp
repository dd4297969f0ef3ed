// The HTML report of `probe compare`: one self-contained page (no scripts, no network
// resources) with the summary and answers, a per-op error plot (worst error relative to the
// tolerance, log scale, one point per op execution in sequence order), the table, and a
// per-decade histogram of the absolute errors of each tensor, as inline SVG. Every mark
// carries a <title> (a tooltip in browsers). Standalone header.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compare_text.hpp"
#include "xml_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace compare_html_impl {

inline std::string px(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// One point of the error plot.
struct plot_point {
  std::string label, tip;
  double ratio = 0;   // worst |a-b| / tolerance; +inf: NaN/Inf disagreement
  bool bad = false;   // out of tolerance, or not comparable (shape, dtype)
  bool blocked = false;  // shape/dtype: no ratio
  bool root = false, first = false;
};

inline std::vector<plot_point> plot_points(const compared_run& run) {
  using compare_text_impl::num;
  std::vector<plot_point> pts;
  std::vector<char> is_root(run.graph.nodes.size(), 0);
  for (const root_cause& r : run.graph.roots)
    if (!r.is_input) is_root[r.node] = 1;
  if (run.graph.available) {
    for (size_t ni = 0; ni < run.graph.nodes.size(); ++ni) {
      const op_node& n = run.graph.nodes[ni];
      plot_point p;
      p.label = n.op_key;
      p.root = is_root[ni] != 0;
      p.first = static_cast<long>(ni) == run.graph.first_divergence;
      bool any = false;
      for (size_t pi : n.outputs) {
        const compared_pair& q = run.pairs[pi];
        if (q.metrics.compared) {
          any = true;
          p.ratio = std::max(p.ratio, q.metrics.worst_ratio);
        }
        if (status_mismatch(q.status)) p.bad = true;
        if (q.status == pair_status::shape || q.status == pair_status::dtype) p.blocked = true;
      }
      if (!any && !p.blocked) continue;
      p.tip = n.op_key + " (seq " + std::to_string(n.seq) + "): worst error / tolerance " + num(p.ratio) +
              (p.root ? " [root cause]" : "") + (p.first ? " [first divergence]" : "");
      pts.push_back(std::move(p));
    }
    return pts;
  }
  for (const compared_pair& q : run.pairs) {
    if (!q.metrics.compared && q.status != pair_status::shape && q.status != pair_status::dtype) continue;
    plot_point p;
    p.label = q.key;
    p.ratio = q.metrics.worst_ratio;
    p.bad = status_mismatch(q.status);
    p.blocked = !q.metrics.compared;
    p.tip = q.key + ": worst error / tolerance " + num(p.ratio);
    pts.push_back(std::move(p));
  }
  return pts;
}

inline std::string error_plot(const compared_run& run) {
  const std::vector<plot_point> pts = plot_points(run);
  const double W = 960, H = 320, left = 64, right = 20, top = 30, bottom = 40, pw = W - left - right, ph = H - top - bottom;
  // log10 range of the finite, positive ratios, always including 1 (the tolerance)
  double lo = 0, hi = 1;
  for (const plot_point& p : pts)
    if (p.ratio > 0 && std::isfinite(p.ratio)) {
      lo = std::min(lo, std::floor(std::log10(p.ratio)));
      hi = std::max(hi, std::ceil(std::log10(p.ratio)));
    }
  lo = std::max(lo, hi - 16);
  const double band = 26;  // top band: NaN/Inf and shape mismatches; bottom band: exactly equal
  auto Y = [&](double ratio) {
    if (!(ratio > 0)) return top + ph - 4;
    if (!std::isfinite(ratio)) return top + band / 2;
    const double l = std::max(lo, std::min(hi, std::log10(ratio)));
    return top + band + (hi - l) / (hi - lo) * (ph - 2 * band);
  };
  const double slot = pw / static_cast<double>(std::max<size_t>(1, pts.size()));
  auto X = [&](size_t i) { return left + (static_cast<double>(i) + 0.5) * slot; };
  std::string s;
  s += "<svg class=\"error-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"320\" viewBox=\"0 0 960 320\" "
       "font-family=\"sans-serif\" font-size=\"11\">\n<rect x=\"0\" y=\"0\" width=\"960\" height=\"320\" fill=\"white\"/>\n";
  s += "<text x=\"" + px(left) + "\" y=\"18\" font-size=\"13\">worst |a-b| / (atol + rtol|b|) per op, in sequence order "
       "(above the red line: out of tolerance)</text>\n";
  for (double d = lo; d <= hi; d += 1) {
    const std::string y = px(Y(std::pow(10.0, d)));
    s += "<line x1=\"" + px(left) + "\" x2=\"" + px(left + pw) + "\" y1=\"" + y + "\" y2=\"" + y + "\" stroke=\"#e4e4e4\"/>";
    s += "<text x=\"" + px(left - 6) + "\" y=\"" + y + "\" dy=\"4\" text-anchor=\"end\">1e" + std::to_string(static_cast<int>(d)) +
         "</text>\n";
  }
  s += "<text x=\"" + px(left - 6) + "\" y=\"" + px(Y(INFINITY)) + "\" dy=\"4\" text-anchor=\"end\">NaN/shape</text>";
  s += "<text x=\"" + px(left - 6) + "\" y=\"" + px(Y(0)) + "\" dy=\"4\" text-anchor=\"end\">equal</text>\n";
  const std::string one = px(Y(1));
  s += "<line class=\"tolerance\" x1=\"" + px(left) + "\" x2=\"" + px(left + pw) + "\" y1=\"" + one + "\" y2=\"" + one +
       "\" stroke=\"#d62728\" stroke-dasharray=\"5,3\"/>\n";
  for (size_t i = 0; i < pts.size(); ++i) {
    const plot_point& p = pts[i];
    const double y = p.blocked ? Y(INFINITY) : Y(p.ratio);
    const char* fill = p.bad ? "#d62728" : "#2a7ab8";
    s += "<circle class=\"op-point" + std::string(p.bad ? " bad" : "") + "\" cx=\"" + px(X(i)) + "\" cy=\"" + px(y) +
         "\" r=\"" + px(std::max(1.5, std::min(4.0, slot / 3))) + "\" fill=\"" + fill + "\"><title>" + xml_escape(p.tip) +
         "</title></circle>";
    if (p.root)
      s += "<circle class=\"root-mark\" cx=\"" + px(X(i)) + "\" cy=\"" + px(y) + "\" r=\"8\" fill=\"none\" stroke=\"#d62728\" "
           "stroke-width=\"2\"><title>root cause: " + xml_escape(p.label) + "</title></circle>";
    s += "\n";
  }
  s += "<line x1=\"" + px(left) + "\" x2=\"" + px(left) + "\" y1=\"" + px(top) + "\" y2=\"" + px(top + ph) + "\" stroke=\"#444\"/>\n";
  s += "<text x=\"" + px(left + pw / 2) + "\" y=\"" + px(H - 10) + "\" text-anchor=\"middle\">" + std::to_string(pts.size()) +
       " op executions; circled: root causes</text>\n</svg>\n";
  return s;
}

// A small bar chart of a tensor's absolute errors per decade.
inline std::string histogram_svg(const compared_pair& q) {
  const decade_histogram& h = q.metrics.hist;
  const double W = 300, H = 120, left = 8, bottom = 28, top = 8;
  const size_t n = std::max<size_t>(1, h.counts.size());
  uint64_t most = 1;
  for (uint64_t c : h.counts) most = std::max(most, c);
  const double bw = (W - 2 * left) / static_cast<double>(n), ph = H - top - bottom;
  std::string s = "<svg class=\"histogram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"120\" "
                  "viewBox=\"0 0 300 120\" font-family=\"sans-serif\" font-size=\"9\">";
  s += "<rect x=\"0\" y=\"0\" width=\"300\" height=\"120\" fill=\"#fafafa\"/>";
  for (size_t i = 0; i < h.counts.size(); ++i) {
    const double frac = static_cast<double>(h.counts[i]) / static_cast<double>(most);
    const double bh = h.counts[i] ? std::max(1.0, frac * ph) : 0;
    const std::string label = i == 0 ? "0" : "1e" + std::to_string(h.lowest + static_cast<int>(i) - 1);
    // a decade above atol is drawn red: its errors exceed the absolute tolerance
    const bool over = i > 0 && std::pow(10.0, h.lowest + static_cast<int>(i)) > q.metrics.tol.atol &&
                      std::pow(10.0, h.lowest + static_cast<int>(i) - 1) >= q.metrics.tol.atol;
    s += "<rect class=\"bar\" x=\"" + px(left + static_cast<double>(i) * bw + 1) + "\" y=\"" + px(top + ph - bh) +
         "\" width=\"" + px(std::max(1.0, bw - 2)) + "\" height=\"" + px(bh) + "\" fill=\"" + (over ? "#d62728" : "#2a7ab8") +
         "\"><title>" + (i == 0 ? std::string("exactly 0") : "[" + label + ", 1e" + std::to_string(h.lowest + static_cast<int>(i)) + ")") +
         ": " + std::to_string(h.counts[i]) + "</title></rect>";
    s += "<text x=\"" + px(left + (static_cast<double>(i) + 0.5) * bw) + "\" y=\"" + px(H - bottom + 11) +
         "\" text-anchor=\"middle\">" + label + "</text>";
  }
  s += "<text x=\"8\" y=\"" + px(H - 4) + "\">|a-b| per decade, " + std::to_string(q.metrics.finite_pairs) + " finite pairs</text>";
  return s + "</svg>";
}

}  // namespace compare_html_impl

inline std::string compare_html(const compare_report& r, size_t max_histograms = 300) {
  using namespace compare_html_impl;
  using compare_text_impl::num;
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>probe compare</title>\n";
  h += "<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 20px;"
       "font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}td.n{text-align:right;"
       "font-family:monospace}tr.bad td{background:#fde8e8}tr.warn td{background:#fff6db}.answers{background:#f4f4f4;"
       "padding:8px 12px;white-space:pre-wrap;font-family:monospace;font-size:13px}.hist{display:inline-block;"
       "margin:6px;vertical-align:top;font-size:12px;max-width:300px;word-break:break-all}</style>\n</head>\n<body>\n";
  h += "<h1>probe compare</h1>\n<p>A = " + xml_escape(r.a) + " (under test), B = " + xml_escape(r.b) + " (reference), " +
       xml_escape(r.kind) + ".<br>Tolerance: " + xml_escape(tolerance_words(r.settings)) + ".</p>\n";
  if (!r.error.empty()) return h + "<p class=\"error\">" + xml_escape(r.error) + "</p>\n</body>\n</html>\n";
  // the answers in words: the end of the text report
  h += "<h2>Summary</h2>\n<div class=\"answers\">" + xml_escape(compare_summary_text(r)) + "</div>\n";
  size_t shown = 0, skipped = 0;
  for (const compared_run& run : r.runs) {
    if (!run.name.empty()) h += "<h2>" + xml_escape(run.name) + "</h2>\n";
    h += "<h3>Error per op</h3>\n" + error_plot(run);
    h += "<h3>Tensors</h3>\n<table>\n<tr><th>seq</th><th>tensor</th><th>dtype</th><th>shape</th><th>max abs</th>"
         "<th>max rel</th><th>mean abs</th><th>p99 abs</th><th>cosine</th><th>SNR dB</th><th>ulp</th><th>fail</th>"
         "<th>worst at</th><th>min atol</th><th>min rtol</th><th>status</th></tr>\n";
    for (const compared_pair& q : run.pairs) {
      const tensor_metrics& m = q.metrics;
      const char* cls = status_mismatch(q.status) || q.status == pair_status::only_a || q.status == pair_status::only_b ? "bad"
                        : q.status == pair_status::no_data ? "warn" : "ok";
      h += "<tr class=\"" + std::string(cls) + "\"><td class=\"n\">" + std::to_string(q.seq) + "</td><td>" + xml_escape(q.key) +
           "</td><td>" + xml_escape(compare_text_impl::dtype_text(q)) + "</td><td>" + xml_escape(compare_text_impl::shape_text(q)) + "</td>";
      if (m.compared) {
        for (double v : {m.max_abs, m.max_rel, m.mean_abs, m.p99}) h += "<td class=\"n\">" + num(v, 4) + "</td>";
        h += "<td class=\"n\">" + xml_escape(compare_text_impl::cosine_text(m.cosine)) + "</td><td class=\"n\">" +
             num(m.snr_db, 4) + "</td><td class=\"n\">" + (m.ulp_valid ? std::to_string(m.max_ulp) : "-") +
             "</td><td class=\"n\">" + std::to_string(m.fail) + "</td><td>" +
             (m.worst_fail.empty() ? "" : compare_text_impl::index_text(m.worst_fail)) + "</td><td class=\"n\">" +
             num(m.min_atol) + "</td><td class=\"n\">" + num(m.min_rtol) + "</td>";
      } else {
        h += "<td colspan=\"11\"></td>";
      }
      h += "<td>" + xml_escape(compare_text_impl::status_text(q)) + "</td></tr>\n";
    }
    h += "</table>\n<h3>Error histograms</h3>\n<div>\n";
    // mismatching tensors first
    for (int pass = 0; pass < 2; ++pass)
      for (const compared_pair& q : run.pairs) {
        if (!q.metrics.compared || (pass == 0) != (q.status == pair_status::mismatch)) continue;
        if (shown >= max_histograms) {
          ++skipped;
          continue;
        }
        ++shown;
        h += "<div class=\"hist\"><div>" + xml_escape(q.key) + " (" + pair_status_name(q.status) + ")</div>" +
             histogram_svg(q) + "</div>\n";
      }
    h += "</div>\n";
  }
  if (skipped) h += "<p>" + std::to_string(skipped) + " more histograms not drawn.</p>\n";
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace analysis
PROBE_END_NAMESPACE
