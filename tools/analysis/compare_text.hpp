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
#include "compare_words.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct compare_text_options {
  bool color = false;
  bool all_rows = false;       // every row, even past max_rows, and every root cause in full
  size_t max_rows = 200;       // above this many pairs, rows within tolerance are left out
  size_t max_roots = 50;       // root-cause paragraphs per run; the others in one line
};

// Lines stay within compare_text_width columns: the table keeps the columns a person scans
// (the rest is in --json and --html), and the words wrap.
inline std::string compare_text(const compare_report& r, const compare_text_options& o = compare_text_options()) {
  using namespace compare_text_impl;
  const paint p{o.color};
  std::string out;
  out += "probe compare: A = " + ::probe::detail::printable(r.a) + " (under test), B = " + ::probe::detail::printable(r.b) +
         " (reference), " + r.kind + "\n";
  if (!r.error.empty()) return wrap_lines(out + "error: " + ::probe::detail::printable(r.error) + "\n");
  out += "tolerance: " + tolerance_words(r.settings) + (r.settings.has_step ? "; step " + std::to_string(r.settings.step) : "") + "\n";
  out = wrap_lines(out);
  const bool hide_ok = !o.all_rows && r.counts.pairs > o.max_rows;
  size_t hidden = 0;
  for (const compared_run& run : r.runs) {
    // The cells that vary in width, made once: the widths come from every pair, the rows from
    // those shown (up to one per pair: a report of 80,000 rows is written in a few passes).
    struct cells {
      size_t pair;
      std::string key, dtype, shape, status;
    };
    std::vector<cells> rows;
    size_t width = 6, dw = 5, sw = 5, stw = 6, run_hidden = 0;
    for (size_t pi = 0; pi < run.pairs.size(); ++pi) {
      const compared_pair& q = run.pairs[pi];
      // a tensor only in B under B's own key (pairing may have given it a fresh one)
      const std::string& key = q.status == pair_status::only_b && !q.b.own_key.empty() ? q.b.own_key : q.key;
      cells c{pi, ::probe::detail::printable(key), dtype_text(q), shape_text(q), status_text(q)};
      width = std::max(width, c.key.size());
      dw = std::max(dw, c.dtype.size());
      sw = std::max(sw, c.shape.size());
      stw = std::max(stw, c.status.size());
      if (hide_ok && q.status == pair_status::ok) ++run_hidden;
      else rows.push_back(std::move(c));
    }
    if (rows.empty() && run_hidden) {  // a rank with nothing to show says so, under no empty table
      out += "\n";
      if (!run.name.empty()) out += p("== " + ::probe::detail::printable(run.name) + " ==", "1") + "\n";
      out += "(" + std::to_string(run_hidden) + (run_hidden == 1 ? " row" : " rows") +
             " within tolerance not shown; --all shows them)\n";
      continue;
    }
    hidden += run_hidden;
    dw = std::min<size_t>(dw, 16);
    sw = std::min<size_t>(sw, 16);
    stw = std::min<size_t>(stw, 32);
    // seq, dtype, shape, max abs, max rel, fail and the gaps around them
    const size_t fixed = 6 + dw + sw + 9 + 9 + 14 + 2 * 7;
    const size_t room = compare_text_width > fixed + stw ? compare_text_width - fixed - stw : 16;
    width = std::max<size_t>(16, std::min(width, std::min<size_t>(room, 44)));
    const size_t status_room = compare_text_width > fixed + width ? compare_text_width - fixed - width : 8;
    out += "\n";
    if (!run.name.empty()) out += p("== " + ::probe::detail::printable(run.name) + " ==", "1") + "\n";
    out += right("seq", 6) + "  " + fit("tensor", width) + "  " + fit("dtype", dw) + "  " + fit("shape", sw) + "  " +
           right("max abs", 9) + "  " + right("max rel", 9) + "  " + right("fail", 14) + "  status\n";
    out.reserve(out.size() + rows.size() * (fixed + width + 16));
    for (cells& c : rows) {
      const compared_pair& q = run.pairs[c.pair];
      const tensor_metrics& m = q.metrics;
      pad_left(out, std::to_string(q.seq), 6);
      out += "  ";
      pad_right(out, c.key, width);
      out += "  ";
      pad_right(out, c.dtype, dw);
      out += "  ";
      pad_right(out, c.shape, sw);
      out += "  ";
      if (m.compared) {
        std::string fail = "0";
        if (m.fail) {
          char pct[16];
          const double f = 100 * m.fail_fraction;
          std::snprintf(pct, sizeof pct, f >= 10 ? "%.0f" : "%.2g", f);
          fail = std::to_string(m.fail) + " (" + pct + "%)";
        }
        pad_left(out, num(m.max_abs), 9);
        out += "  ";
        pad_left(out, num(m.max_rel), 9);
        out += "  ";
        pad_left(out, fail, 14);
        out += "  ";
      } else {
        static const std::string none = right("-", 9) + "  " + right("-", 9) + "  " + right("-", 14) + "  ";
        out += none;
      }
      std::string& st = c.status;
      if (st.size() > status_room) st = fit(st, status_room);
      while (!st.empty() && st.back() == ' ') st.pop_back();
      if (p.on) out += q.status == pair_status::ok ? p(st, "32") : q.status == pair_status::no_data ? p(st, "33") : p(st, "1;31");
      else out += st;
      out += '\n';
    }
  }
  if (hidden) out += "(" + std::to_string(hidden) + " rows within tolerance not shown; --all shows them)\n";
  out += "\n";
  return out + compare_summary_text(r, o.color, o.all_rows ? SIZE_MAX : o.max_roots);
}

}  // namespace analysis
PROBE_END_NAMESPACE
