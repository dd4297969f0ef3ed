// The timing summary of a trace file, per process and across processes: for an MPI job's
// merged trace (every rank a process, docs/mpi.md) each row (a scope, op or MPI call name)
// gets its calls and total time on each rank, and the minimum, median and maximum of that total
// over the ranks (the rank holding the maximum is the one the others wait for). `probe show
// TRACE.json` prints it. Standalone header.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <probe/formats/json.hpp>
#include <probe/util/text.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct trace_row {
  std::string name, kind;  // kind: the events' "cat" (scope, op, timer), shown when a name has several
  std::map<int64_t, uint64_t> calls;  // per process (rank)
  std::map<int64_t, double> total_us;
};

struct trace_ranks {
  std::vector<int64_t> processes;             // pid order
  std::map<int64_t, std::string> names;      // pid -> process name ("rank 3")
  std::vector<trace_row> rows;               // by largest total over the ranks first
  std::string clock_alignment;
  uint64_t events_left_out = 0;   // otherData.events_left_out (one process's trace)
  std::vector<int64_t> truncated;  // processes whose trace says it was cut (--probe_trace_max_events)
};

// Whether `text` is a Chrome trace: an object with "traceEvents" (probe writes it first;
// another tool may not), or the JSON array form of the format.
inline bool looks_like_trace(const std::string& text) {
  const size_t at = text.find_first_not_of(" \t\r\n");
  if (at == std::string::npos) return false;
  if (text[at] == '[') return text.find("\"ph\"", at) != std::string::npos;
  return text[at] == '{' && text.find("\"traceEvents\"", at) != std::string::npos;
}

inline bool read_trace_ranks(const std::string& text, trace_ranks* out, std::string* error) {
  json::value doc;
  if (!json::parse(text, doc, error) || !(doc.is_object() || doc.is_array())) {
    if (error->empty()) *error = "not a JSON object";
    return false;
  }
  const json::value& ev = doc.is_array() ? doc : doc.get("traceEvents");
  std::map<std::string, size_t> row_of;  // "kind\nname"
  for (size_t i = 0; i < ev.size(); ++i) {
    const json::value& e = ev[i];
    const int64_t pid = e.get_int("pid");
    const std::string ph = e.get_string("ph"), name = e.get_string("name");
    if (ph == "M") {
      if (name == "process_name") out->names[pid] = e.get("args").get_string("name");
      continue;
    }
    if (ph == "i" && name.compare(0, 22, "probe: trace truncated") == 0 &&
        std::find(out->truncated.begin(), out->truncated.end(), pid) == out->truncated.end())
      out->truncated.push_back(pid);
    if (ph != "X") continue;
    if (std::find(out->processes.begin(), out->processes.end(), pid) == out->processes.end()) out->processes.push_back(pid);
    const std::string kind = e.get_string("cat");
    auto it = row_of.find(kind + "\n" + name);
    if (it == row_of.end()) {
      it = row_of.emplace(kind + "\n" + name, out->rows.size()).first;
      out->rows.emplace_back();
      out->rows.back().name = name;
      out->rows.back().kind = kind;
    }
    trace_row& r = out->rows[it->second];
    ++r.calls[pid];
    const json::value& dur = e.get("dur");
    r.total_us[pid] += dur.is_number() ? dur.as_double() : 0;
  }
  for (const auto& n : out->names)
    if (std::find(out->processes.begin(), out->processes.end(), n.first) == out->processes.end())
      out->processes.push_back(n.first);
  std::sort(out->processes.begin(), out->processes.end());
  out->clock_alignment = doc.get("otherData").get_string("clock_alignment");
  const json::value& left = doc.get("otherData").get("events_left_out");
  if (left.is_number() && left.as_double() > 0)  // another tool's number may be past 2^64
    out->events_left_out = left.as_double() < 18446744073709551616.0 ? static_cast<uint64_t>(left.as_double()) : UINT64_MAX;
  std::sort(out->truncated.begin(), out->truncated.end());
  // a name recorded as several kinds (an op and a scope both called "collide"): one row each
  std::map<std::string, int> kinds;
  for (const trace_row& r : out->rows) ++kinds[r.name];
  for (trace_row& r : out->rows)
    if (kinds[r.name] > 1 && !r.kind.empty()) r.name += " [" + r.kind + "]";
  auto largest = [](const trace_row& r) {
    double m = 0;
    for (const auto& t : r.total_us) m = std::max(m, t.second);
    return m;
  };
  std::stable_sort(out->rows.begin(), out->rows.end(),
                   [&](const trace_row& a, const trace_row& b) { return largest(a) > largest(b); });
  return true;
}

namespace trace_ranks_impl {
inline std::string ms(double us) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", us / 1000);
  return b;
}
inline std::string pad(const std::string& s, size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
}  // namespace trace_ranks_impl

// One table: a row per name; per rank its total (ms) and calls (up to `most_columns` ranks),
// then the minimum, median and maximum total over the ranks (a rank without the row counts 0).
inline std::string trace_ranks_text(const trace_ranks& t, size_t most_columns = 8) {
  using namespace trace_ranks_impl;
  std::string out;
  const size_t n = t.processes.size();
  out += "trace: " + std::to_string(n) + " process" + (n == 1 ? "" : "es");
  if (!t.clock_alignment.empty()) out += ", clocks aligned by " + ::probe::detail::printable(t.clock_alignment);
  out += "; total ms per row";
  out += n > most_columns ? " (" + std::to_string(n) + " processes: the columns per process are left out)\n" : "\n";
  size_t w = 4, cell = 14;  // a rank's cell: "12.345 (678)", as wide as the widest
  for (const trace_row& r : t.rows) {
    w = std::max(w, std::min<size_t>(r.name.size(), 40));
    for (const auto& c : r.calls) {
      auto s = r.total_us.find(c.first);
      cell = std::max(cell, ms(s == r.total_us.end() ? 0 : s->second).size() + 3 + std::to_string(c.second).size());
    }
  }
  out += std::string("name") + std::string(w - 4, ' ');
  auto label = [&](int64_t pid) {
    auto it = t.names.find(pid);
    return it == t.names.end() ? "pid " + std::to_string(pid) : ::probe::detail::printable(it->second);
  };
  if (n <= most_columns)
    for (int64_t pid : t.processes) out += "  " + pad(label(pid), cell);
  out += "  " + pad("min", 10) + "  " + pad("median", 10) + "  " + pad("max", 10) + "  max at\n";
  for (const trace_row& r : t.rows) {
    std::string name = ::probe::detail::printable(r.name);
    if (name.size() > w) name = name.substr(0, w - 1) + "~";
    out += name + std::string(w - name.size(), ' ');
    std::vector<double> totals;
    int64_t at = t.processes.empty() ? 0 : t.processes[0];
    double top = -1;
    for (int64_t pid : t.processes) {
      auto c = r.calls.find(pid);
      auto s = r.total_us.find(pid);
      const double us = s == r.total_us.end() ? 0 : s->second;
      totals.push_back(us);
      if (us > top) top = us, at = pid;
      if (n <= most_columns)
        out += "  " + pad(ms(us) + " (" + std::to_string(c == r.calls.end() ? 0 : c->second) + ")", cell);
    }
    std::sort(totals.begin(), totals.end());
    const size_t k = totals.size();
    const double median = k == 0 ? 0 : k % 2 ? totals[k / 2] : (totals[k / 2 - 1] + totals[k / 2]) / 2;
    out += "  " + pad(ms(k ? totals.front() : 0), 10) + "  " + pad(ms(median), 10) + "  " + pad(ms(k ? totals.back() : 0), 10) +
           "  " + label(at) + "\n";
  }
  // A trace cut at --probe_trace_max_events holds only the events before the cut: so do
  // these totals (the run's own timing summary counts every event).
  if (!t.truncated.empty() || t.events_left_out) {
    out += "note: the trace was cut at --probe_trace_max_events";
    if (t.events_left_out) out += " (" + std::to_string(t.events_left_out) + " events left out)";
    if (t.processes.size() > 1 && !t.truncated.empty()) {
      out += " in ";
      for (size_t i = 0; i < t.truncated.size(); ++i) out += (i ? ", " : "") + label(t.truncated[i]);
    }
    out += ": these totals count only the events kept; --probe_timing_summary counts them all\n";
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
