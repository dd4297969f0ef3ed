// The timing summary table: one row per name (scopes, timers, ops, GPU ops), sorted by total
// time, then the user metrics. Implementation-only header.
#pragma once
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include <string>

#include "../detail/ptr_list.hpp"
#include "../detail/round_trip_double.hpp"
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
    qsort(rows.data(), rows.size(), sizeof(char*), [](const void* pa, const void* pb) {
      const auto& a = *reinterpret_cast<const summary_row*>(*static_cast<char* const*>(pa));
      const auto& b = *reinterpret_cast<const summary_row*>(*static_cast<char* const*>(pb));
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
  for (size_t i = 0; i < rows.size(); ++i)
    if (display_width(rows[i].name) > name_w) name_w = display_width(rows[i].name);
  for (size_t i = 0; i < metrics.size(); ++i)
    if (display_width(metrics[i].name) > name_w) name_w = display_width(metrics[i].name);
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
      pad_to(line, r.name, name_w, false);
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
      pad_to(line, m.name, name_w, false);
      line += "  ";
      pad_to(line, "", 6, false);
      pad_to(line, std::to_string(m.stats.count), col, true);
      const double values[] = {m.stats.last, m.stats.mean(), m.stats.min, m.stats.max};
      for (double x : values) {
        format_double_round_trip(x, v, sizeof v);
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
