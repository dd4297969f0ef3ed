// The timing summary table: one row per name (scopes, timers, ops, GPU ops), sorted by total
// time; then totals by op type and by name pattern (digits collapsed: L3.rope and L7.rope are
// L*.rope), each table cut to its largest rows; then the user metrics. Internal header.
#pragma once
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include <string>
#include <vector>

#include "../util/io_signals.hpp"
#include "../util/ptr_list.hpp"
#include "../util/float_text.hpp"
#include "../util/metric_line.h"  // probe_metric_rank_prefix
#include "timing_stats.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct summary_row {
  std::string name;
  const char* kind = "scope";  // "scope" (scopes and named timers), "op", "gpu op"
  std::string type;            // op type, when the op gave one
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
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++w;
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

// "L3.rope" -> "L*.rope": every run of digits becomes one '*'.
inline std::string name_pattern(const std::string& name) {
  std::string p;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] >= '0' && name[i] <= '9') {
      if (p.empty() || p.back() != '*' || !(i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')) p += '*';
      continue;
    }
    p += name[i];
  }
  return p;
}

// A group of rows: all ops of one type, or all rows of one kind whose names share a pattern.
struct summary_group {
  std::string name;
  const char* kind = "op";
  size_t names = 0;
  uint64_t count = 0;
  double total_ns = 0;
};

// Groups of at least `min_names` rows, largest total first.
template <class Key>
std::vector<summary_group> group_rows(ptr_list<summary_row>& rows, Key key, size_t min_names) {
  std::vector<summary_group> groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    const summary_row& r = rows[i];
    const std::string k = key(r);
    if (k.empty()) continue;
    summary_group* g = nullptr;
    for (summary_group& x : groups)
      if (x.name == k && strcmp(x.kind, r.kind) == 0) g = &x;
    if (!g) {
      groups.push_back(summary_group{k, r.kind, 0, 0, 0});
      g = &groups.back();
    }
    ++g->names;
    g->count += r.stats.count();
    g->total_ns += static_cast<double>(r.stats.total()) * r.ns_per_unit;
  }
  // qsort moves bytes: sort pointers, never the groups (their strings point into themselves).
  std::vector<const summary_group*> order;
  for (const summary_group& g : groups)
    if (g.names >= min_names) order.push_back(&g);
  if (order.size() > 1)
    qsort(order.data(), order.size(), sizeof(const summary_group*), [](const void* pa, const void* pb) {
      const summary_group& a = **static_cast<const summary_group* const*>(pa);
      const summary_group& b = **static_cast<const summary_group* const*>(pb);
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns ? -1 : 1;
      return a.name.compare(b.name);
    });
  std::vector<summary_group> kept;
  for (const summary_group* g : order) kept.push_back(*g);
  return kept;
}

// "  ... 12 more rows: 3.456 ms in total"
inline std::string more_rows_line(size_t n, double total_ns) {
  return "  ... " + std::to_string(n) + " more row" + (n == 1 ? "" : "s") + ": " + format_duration(total_ns) +
         " in total\n";
}

inline void write_group_table(std::string& text, const char* title, const std::vector<summary_group>& groups,
                              size_t name_w, size_t max_rows, double wall_ns) {
  if (groups.empty()) return;
  const size_t col = 12;
  std::string line = "  ";
  pad_to(line, title, name_w, false);
  line += "  ";
  pad_to(line, "kind", 6, false);
  const char* heads[] = {"names", "count", "total", "mean", "wall%"};
  for (const char* h : heads) pad_to(line, h, col, true);
  text += line + "\n";
  double rest = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    const summary_group& g = groups[i];
    if (max_rows && i >= max_rows) {
      rest += g.total_ns;
      continue;
    }
    line = "  ";
    pad_to(line, summary_name(g.name), name_w, false);
    line += "  ";
    pad_to(line, g.kind, 6, false);
    pad_to(line, std::to_string(g.names), col, true);
    pad_to(line, std::to_string(g.count), col, true);
    pad_to(line, format_duration(g.total_ns), col, true);
    pad_to(line, format_duration(g.count ? g.total_ns / static_cast<double>(g.count) : 0), col, true);
    char share[32];
    snprintf(share, sizeof share, "%.1f%%", wall_ns > 0 ? 100.0 * g.total_ns / wall_ns : 0.0);
    pad_to(line, share, col, true);
    text += line + "\n";
  }
  if (max_rows && groups.size() > max_rows) text += more_rows_line(groups.size() - max_rows, rest);
}

// Rows sorted in place (largest total first, then by name); wall_ns is the share-of-wall
// denominator. Each table shows its max_rows largest rows (0: all) and a line for the rest.
inline void write_summary_table(FILE* out, ptr_list<summary_row>& rows, ptr_list<summary_metric>& metrics,
                                double wall_ns, const char* clock, double clock_hz, size_t max_rows = 0,
                                long forked_pid = 0) {
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
  char rank[32] = "", who[48] = "", head[256];
  probe_metric_rank_prefix(rank, sizeof rank);  // "[rank N] " under MPI, as a metric line: ranks' tables tell apart
  // A forked child prints its own table at its exit, beside its parent's: say whose it is.
  if (forked_pid) snprintf(who, sizeof who, " (forked child, pid %ld)", forked_pid);
  snprintf(head, sizeof head, "%sprobe timing summary%s: wall %s since timing started, clock %s (%.3f GHz)\n", rank,
           who, format_duration(wall_ns).c_str(), clock, clock_hz / 1e9);
  text += head;

  // Totals by op type (when ops gave types and some type has several ops) and by name pattern
  // (patterns shared by several names).
  std::vector<summary_group> by_type =
      group_rows(rows, [](const summary_row& r) { return r.type; }, 1);
  bool types_group = false;
  for (const summary_group& g : by_type) types_group = types_group || g.names > 1;
  if (!types_group) by_type.clear();
  const std::vector<summary_group> by_pattern = group_rows(
      rows, [](const summary_row& r) {
        const std::string p = name_pattern(r.name);
        return p == r.name ? std::string() : p;
      },
      2);

  size_t name_w = 4;
  auto widen = [&name_w](const std::string& name) {
    const size_t w = display_width(summary_name(name));
    if (w > name_w) name_w = w;
  };
  const size_t shown = max_rows && rows.size() > max_rows ? max_rows : rows.size();
  for (size_t i = 0; i < shown; ++i) widen(rows[i].name);
  for (size_t i = 0; i < metrics.size(); ++i) widen(metrics[i].name);
  const std::vector<summary_group>* tables[] = {&by_type, &by_pattern};
  for (const std::vector<summary_group>* table : tables)
    for (size_t i = 0; i < table->size() && (!max_rows || i < max_rows); ++i) widen((*table)[i].name);
  if (!by_type.empty()) widen("by op type");
  if (!by_pattern.empty()) widen("by name pattern");
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
    double rest = 0;
    for (size_t i = shown; i < rows.size(); ++i)
      rest += static_cast<double>(rows[i].stats.total()) * rows[i].ns_per_unit;
    for (size_t i = 0; i < shown; ++i) {
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
    if (shown < rows.size()) text += more_rows_line(rows.size() - shown, rest);
  }
  write_group_table(text, "by op type", by_type, name_w, max_rows, wall_ns);
  write_group_table(text, "by name pattern", by_pattern, name_w, max_rows, wall_ns);
  if (!metrics.empty()) {
    // Values keep every digit their metric lines have: the columns widen to the longest.
    size_t metric_col = col;
    char v[40];
    for (size_t i = 0; i < metrics.size(); ++i) {
      const metric_stats& ms = metrics[i].stats;
      const double xs[] = {ms.last, ms.mean(), ms.min, ms.max};
      for (double x : xs) {
        const size_t w = write_compact(v, x) + 1;
        if (w > metric_col) metric_col = w;
      }
    }
    std::string line = "  ";
    pad_to(line, "metric", name_w, false);
    line += "  ";
    pad_to(line, "", 6, false);
    pad_to(line, "count", col, true);
    const char* heads[] = {"last", "mean", "min", "max"};
    for (const char* h : heads) pad_to(line, h, metric_col, true);
    text += line + "\n";
    for (size_t i = 0; i < metrics.size(); ++i) {
      const summary_metric& m = metrics[i];
      line = "  ";
      pad_to(line, summary_name(m.name), name_w, false);
      line += "  ";
      pad_to(line, "", 6, false);
      pad_to(line, std::to_string(m.stats.count), col, true);
      const double values[] = {m.stats.last, m.stats.mean(), m.stats.min, m.stats.max};
      for (double x : values) {
        write_compact(v, x);
        line += ' ';
        pad_to(line, v, metric_col - 1, true);
      }
      text += line + "\n";
    }
  }
  io_signal_guard quiet;  // a closed pipe or a full disk loses the table, not the host
  if (fwrite(text.data(), 1, text.size(), out) != text.size() || fflush(out) != 0) note_io_error(errno);
}

}  // namespace detail
PROBE_END_NAMESPACE
