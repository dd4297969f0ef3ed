// The timing summary table: one row per name (scopes, timers, ops, GPU ops), sorted by total
// time, then the user metrics. Internal header.
#pragma once
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include <string>

#include "../util/ptr_list.hpp"
#include "../util/float_text.hpp"
#include "timing_stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct summary_row {
  std::string name;
  const char* kind = "scope";  // "scope" (scopes and named timers), "op", "gpu op"
  double ns_per_unit = 1;      // what one unit of the stats is, in nanoseconds
  duration_stats stats;
};
struct summary_metric {
  std::string name;
  metric_stats stats;
};

inline std::string format_duration(double ns) {
  char buf[32];
  const double a = ns < 0 ? -ns : ns;
  if (a < 1e3) snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (a < 1e6) snprintf(buf, sizeof buf, "%.3f us", ns / 1e3);
  else if (a < 1e9) snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  else snprintf(buf, sizeof buf, "%.3f s", ns / 1e9);
  return buf;
}

// Terminal columns of UTF-8 text (one per code point: good enough to align most scripts).
inline size_t display_width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xc0) != 0x80) ++w;
  return w;
}

// A name as the table shows it: control characters (C0, DEL, C1) and bytes that are not UTF-8 print as '?'
// (a name cannot move the cursor or recolour the terminal), and a name longer than
// k_summary_name_cap columns keeps its head and tail around "..." (one long name must not
// widen every row).
constexpr size_t k_summary_name_cap = 80;
inline std::string summary_name(const std::string& name) {
  constexpr size_t head_cols = k_summary_name_cap / 2, tail_cols = k_summary_name_cap - head_cols - 3;
  std::string out;
  size_t cols = 0, head_bytes = 0;
  size_t starts[tail_cols];  // where each of the last tail_cols columns starts in `out`
  for (size_t i = 0; i < name.size();) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    const size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    bool ok = len > 0 && i + len <= name.size() && c != 0xc0 && c != 0xc1;
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(name[i + k]) & 0xc0) == 0x80;
    starts[cols % tail_cols] = out.size();
    const bool control = (len == 1 && (c < 0x20 || c == 0x7f)) ||
                         (ok && len == 2 && c == 0xc2 && static_cast<unsigned char>(name[i + 1]) < 0xa0);  // C1
    if (ok && !control) {
      out.append(name, i, len);
      i += len;
    } else {
      out += '?';
      i += ok ? len : 1;
    }
    if (++cols == head_cols) head_bytes = out.size();
  }
  if (cols <= k_summary_name_cap) return out;
  return out.substr(0, head_bytes) + "..." + out.substr(starts[cols % tail_cols]);
}

inline void pad_to(std::string& line, const std::string& cell, size_t width, bool right) {
  const size_t w = display_width(cell);
  const std::string fill(w < width ? width - w : 0, ' ');
  if (right) line += fill + cell;
  else line += cell + fill;
}

// Rows sorted in place (largest total first, then by name); wall_ns is the share-of-wall
// denominator.
inline void write_summary_table(FILE* out, ptr_list<summary_row>& rows, ptr_list<summary_metric>& metrics,
                                double wall_ns, const char* clock, double clock_hz) {
  if (rows.size() > 1)
    qsort(rows.data(), rows.size(), sizeof(summary_row*), [](const void* pa, const void* pb) {
      const summary_row& a = **static_cast<summary_row* const*>(pa);
      const summary_row& b = **static_cast<summary_row* const*>(pb);
      const double ta = static_cast<double>(a.stats.total()) * a.ns_per_unit;
      const double tb = static_cast<double>(b.stats.total()) * b.ns_per_unit;
      if (ta != tb) return ta > tb ? -1 : 1;
      return a.name.compare(b.name);
    });
  std::string text;
  char head[160];
  snprintf(head, sizeof head, "probe timing summary: wall %s since timing started, clock %s (%.3f GHz)\n",
           format_duration(wall_ns).c_str(), clock, clock_hz / 1e9);
  text += head;

  size_t name_w = 4;
  auto widen = [&name_w](const std::string& name) {
    const size_t w = display_width(summary_name(name));
    if (w > name_w) name_w = w;
  };
  for (size_t i = 0; i < rows.size(); ++i) widen(rows[i].name);
  for (size_t i = 0; i < metrics.size(); ++i) widen(metrics[i].name);
  const size_t col = 12;

  if (rows.empty()) {
    text += "  (no timed scopes or ops)\n";
  } else {
    std::string line = "  ";
    pad_to(line, "name", name_w, false);
    line += "  ";
    pad_to(line, "kind", 6, false);
    const char* heads[] = {"count", "total", "mean", "min", "median", "p95", "max", "wall%"};
    for (const char* h : heads) pad_to(line, h, col, true);
    text += line + "\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      summary_row& r = rows[i];
      duration_stats& s = r.stats;
      const double ns_per_tick = r.ns_per_unit;
      const char* approx = s.exact() ? "" : "~";
      line = "  ";
      pad_to(line, summary_name(r.name), name_w, false);
      line += "  ";
      pad_to(line, r.kind, 6, false);
      pad_to(line, std::to_string(s.count()), col, true);
      const double total = static_cast<double>(s.total()) * ns_per_tick;
      pad_to(line, format_duration(total), col, true);
      pad_to(line, format_duration(s.mean() * ns_per_tick), col, true);
      pad_to(line, format_duration(static_cast<double>(s.min()) * ns_per_tick), col, true);
      pad_to(line, approx + format_duration(s.quantile(0.5) * ns_per_tick), col, true);
      pad_to(line, approx + format_duration(s.quantile(0.95) * ns_per_tick), col, true);
      pad_to(line, format_duration(static_cast<double>(s.max()) * ns_per_tick), col, true);
      char share[32];
      snprintf(share, sizeof share, "%.1f%%", wall_ns > 0 ? 100.0 * total / wall_ns : 0.0);
      pad_to(line, share, col, true);
      text += line + "\n";
    }
  }
  if (!metrics.empty()) {
    std::string line = "  ";
    pad_to(line, "metric", name_w, false);
    line += "  ";
    pad_to(line, "", 6, false);
    const char* heads[] = {"count", "last", "mean", "min", "max"};
    for (const char* h : heads) pad_to(line, h, col, true);
    text += line + "\n";
    for (size_t i = 0; i < metrics.size(); ++i) {
      const summary_metric& m = metrics[i];
      char v[40];
      line = "  ";
      pad_to(line, summary_name(m.name), name_w, false);
      line += "  ";
      pad_to(line, "", 6, false);
      pad_to(line, std::to_string(m.stats.count), col, true);
      const double values[] = {m.stats.last, m.stats.mean(), m.stats.min, m.stats.max};
      for (double x : values) {
        write_compact(v, x);
        line += ' ';
        pad_to(line, v, col - 1, true);
      }
      text += line + "\n";
    }
  }
  fwrite(text.data(), 1, text.size(), out);
  fflush(out);
}

}  // namespace detail
PROBE_END_NAMESPACE
