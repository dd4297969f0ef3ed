// replay_report: definitions (see replay_report.hpp).
#pragma once
#include <stdlib.h>

#include <stdarg.h>
#include <stdio.h>

#include "../formats/json_read.hpp"
#include "../formats/json_write.hpp"
#include "../util/text.hpp"
#include "replay_report.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API int replay_report::exit_code() const noexcept {
  if (rows.empty()) return 2;  // nothing replayed (every op without a kernel)
  int code = 0;
  for (const replay_row& r : rows) {
    if (r.outcome == replay_outcome::error) return 2;
    if (r.outcome == replay_outcome::mismatch) code = 1;
  }
  return code;
}

PROBE_API std::string replay_row_json(const replay_row& r) {
  std::string out;
  json::writer w(out, json::writer::nonfinite::tokens);
  w.begin_object().member("dir", r.dir).member("key", r.key).member("type", r.type).member("status", r.status);
  w.member("kernel", r.kernel).member("outcome", static_cast<int>(r.outcome)).member("error", r.error);
  w.key("outputs").begin_array();
  for (const replay_output_row& o : r.outputs) {
    w.begin_object().member("slot", o.slot).member("shape", o.shape).member("result", o.result);
    w.member("compared", o.compared).member("comparable", o.c.comparable);
    w.member("count", static_cast<long long>(o.c.count)).member("fail", static_cast<long long>(o.c.fail));
    w.member("nan_mismatch", static_cast<long long>(o.c.nan_mismatch));
    w.member("inf_mismatch", static_cast<long long>(o.c.inf_mismatch));
    w.member("max_abs", o.c.max_abs).member("max_rel", o.c.max_rel).member("worst_ratio", o.c.worst_ratio);
    w.member("atol", o.c.tol.atol).member("rtol", o.c.tol.rtol).member("pass", o.c.pass);
    w.member("worst_at", o.worst_at).member("nan", static_cast<long long>(o.nan)).member("inf", static_cast<long long>(o.inf));
    w.member("min", o.min).member("max", o.max).member("mean", o.mean);
    w.member("written", o.written).end_object();
  }
  w.end_array().key("times_ns").begin_array();
  for (int64_t t : r.times_ns) w.value(static_cast<long long>(t));
  w.end_array().key("notes").begin_array();
  for (const std::string& n : r.notes) w.value(n);
  w.end_array().end_object();
  return out;
}

PROBE_API bool replay_row_from_json(const std::string& text, replay_row* r) {
  json::value v;
  if (!json::parse(text, v) || !v.is_object()) return false;
  r->dir = v.get_string("dir");
  r->key = v.get_string("key");
  r->type = v.get_string("type");
  r->status = v.get_string("status");
  r->kernel = v.get_string("kernel");
  const int64_t outcome = v.get_int("outcome", 2);
  r->outcome = outcome == 0 ? replay_outcome::ok : outcome == 1 ? replay_outcome::mismatch : replay_outcome::error;
  r->error = v.get_string("error");
  const json::value& notes = v.get("notes");
  for (size_t i = 0; i < notes.size(); ++i) r->notes.push_back(notes[i].as_string());
  const json::value& outs = v.get("outputs");
  for (size_t i = 0; i < outs.size(); ++i) {
    const json::value& o = outs[i];
    replay_output_row row;
    row.slot = o.get_string("slot");
    row.shape = o.get_string("shape");
    row.result = o.get_string("result");
    row.compared = o.get("compared").as_bool();
    row.c.comparable = o.get("comparable").as_bool();
    row.c.count = o.get_int("count");
    row.c.fail = o.get_int("fail");
    row.c.nan_mismatch = o.get_int("nan_mismatch");
    row.c.inf_mismatch = o.get_int("inf_mismatch");
    row.c.max_abs = o.get_double("max_abs");
    row.c.max_rel = o.get_double("max_rel");
    row.c.worst_ratio = o.get_double("worst_ratio");
    row.c.tol.atol = o.get_double("atol");
    row.c.tol.rtol = o.get_double("rtol");
    row.c.pass = o.get("pass").as_bool();
    row.worst_at = o.get_string("worst_at");
    row.nan = o.get_int("nan");
    row.inf = o.get_int("inf");
    row.min = o.get_double("min");
    row.max = o.get_double("max");
    row.mean = o.get_double("mean");
    row.written = o.get_string("written");
    r->outputs.push_back(std::move(row));
  }
  const json::value& times = v.get("times_ns");
  for (size_t i = 0; i < times.size(); ++i) r->times_ns.push_back(times[i].as_int());
  return true;
}

namespace replay_table {
// The report is assembled with snprintf: probe::format's templates, instantiated for each
// combination of argument types, would cost every header-only TU far more than this text.
PROBE_PRINTF_LIKE(1, 2) inline std::string text(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return std::string(buf, n < 0 ? 0 : static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n) : sizeof buf - 1);
}
inline std::string num(long long v) { return std::to_string(v); }
}  // namespace replay_table

PROBE_API std::string shortest_text(double v) {
  char b[shortest_text_capacity];
  return std::string(b, write_shortest(b, v));
}

PROBE_API std::string duration_text(int64_t ns) {
  using replay_table::text;
  const double v = static_cast<double>(ns);
  if (ns < 1000) return text("%lld ns", static_cast<long long>(ns));
  if (ns < 1000000) return text("%.3g us", v * 1e-3);
  if (ns < 1000000000) return text("%.3g ms", v * 1e-6);
  return text("%.3g s", v * 1e-9);
}

namespace replay_table {

inline int compare_times(const void* a, const void* b) noexcept {
  const int64_t x = *static_cast<const int64_t*>(a), y = *static_cast<const int64_t*>(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

inline std::string pad(const std::string& s, size_t w) {
  const size_t cols = text_columns(s);
  return cols >= w ? s : s + std::string(w - cols, ' ');
}

inline std::string detail_of(const replay_output_row& o) {
  if (o.compared && o.c.comparable) {
    std::string s = text("max abs err %.4g, max rel err %.4g, %lld of %lld fail", o.c.max_abs, o.c.max_rel,
                         static_cast<long long>(o.c.fail), static_cast<long long>(o.c.count));
    if (!o.worst_at.empty()) s += ", worst at " + o.worst_at;
    if (o.c.nan_mismatch || o.c.inf_mismatch)
      s += ", " + num(o.c.nan_mismatch) + " NaN and " + num(o.c.inf_mismatch) + " Inf disagreements";
    s += text(" (atol %.3g, rtol %.3g)", o.c.tol.atol, o.c.tol.rtol);
    if (!o.written.empty()) s += "; replayed values in " + printable(o.written);
    return s;
  }
  if (o.result == "finite" || o.result == "NONFINITE")
    return text("%lld NaN, %lld Inf; min %.6g max %.6g mean %.6g", static_cast<long long>(o.nan),
                static_cast<long long>(o.inf), o.min, o.max, o.mean);
  return "not compared (the snapshot recorded no such output)";
}

// The op as a row names it: its key, after the rank whose folder holds its snapshot when it
// comes from one rank of an MPI job's dump (each rank's ops have the same keys).
inline std::string shown_key(const replay_row& row) {
  long rank = -1;
  for (size_t start = 0; start <= row.dir.size();) {
    size_t end = row.dir.find('/', start);
    if (end == std::string::npos) end = row.dir.size();
    const std::string part = row.dir.substr(start, end - start);
    if (part.size() > 5 && part.compare(0, 5, "rank_") == 0 &&
        part.find_first_not_of("0123456789", 5) == std::string::npos && part.size() < 15)
      rank = std::strtol(part.c_str() + 5, nullptr, 10);
    start = end + 1;
  }
  return rank < 0 ? printable(row.key) : "rank " + std::to_string(rank) + " " + printable(row.key);
}

inline std::string names(const std::vector<const replay_row*>& rows) {
  std::string s;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i == 8) return s + " and " + num(static_cast<long long>(rows.size() - 8)) + " more";
    s += (i ? ", " : "") + shown_key(*rows[i]) + " (" + printable(rows[i]->type) + ")";
  }
  return s;
}

}  // namespace replay_table

PROBE_API replay_columns replay_columns_for(const std::vector<replay_row>& rows, bool fake_data) {
  replay_columns c;
  c.fake_data = fake_data;
  for (const replay_row& row : rows) {
    const size_t k = text_columns(replay_table::shown_key(row)), t = text_columns(printable(row.type));
    c.key = k > c.key ? k : c.key;
    c.type = t > c.type ? t : c.type;
  }
  c.key = c.key < 40 ? c.key : 40;
  c.type = c.type < 24 ? c.type : 24;
  return c;
}

PROBE_API std::string replay_table_head(const replay_columns& c) {
  using replay_table::pad;
  return pad("op", c.key) + "  " + pad("type", c.type) + "  " + pad("recorded", 9) + "  " + pad("result", 9) + "  " +
         (c.fake_data ? "output (fake inputs: NaN/Inf check)" : "output vs recorded") + "\n";
}

PROBE_API std::string replay_row_head(const replay_row& row, const replay_columns& c) {
  using replay_table::pad;
  return pad(replay_table::shown_key(row), c.key) + "  " + pad(printable(row.type), c.type) + "  " + pad(row.status, 9) + "  ";
}

PROBE_API std::string replay_row_rest(const replay_row& row, const replay_columns& c) {
  using replay_table::pad;
  // Notes under the row, not through the log: a line on stderr would cut the row in two.
  std::string notes;
  for (const std::string& n : row.notes) notes += std::string(c.key + c.type + 15, ' ') + "note: " + printable(n) + "\n";
  if (row.outcome == replay_outcome::error) return pad("ERROR", 9) + "  " + printable(row.error) + "\n" + notes;
  if (row.outputs.empty()) return pad("ok", 9) + "  (the kernel wrote no output)\n" + notes;
  std::string out;
  for (size_t i = 0; i < row.outputs.size(); ++i) {
    const replay_output_row& o = row.outputs[i];
    out += (i == 0 ? std::string() : std::string(c.key + c.type + 15, ' ')) + pad(o.result, 9) + "  " + printable(o.slot) +
           " " + o.shape + ": " + replay_table::detail_of(o) + "\n";
  }
  return out + notes;
}

PROBE_API std::string replay_table_end(const replay_report& r) {
  using replay_table::num;
  std::string out;
  std::vector<const replay_row*> bad, failed;
  for (const replay_row& row : r.rows) {
    if (row.outcome == replay_outcome::error) failed.push_back(&row);
    if (row.outcome == replay_outcome::mismatch) bad.push_back(&row);
  }
  for (const replay_row& row : r.rows)
    if (row.outcome != replay_outcome::error && row.status != "complete")
      out += "note: " + replay_table::shown_key(row) + " was recorded with status " + row.status + " (the op " +
             (row.status == "running" ? "never ended" : "threw") + "); its replay ran to the end\n";
  for (const replay_row& row : r.rows) {
    if (row.times_ns.empty()) continue;
    std::vector<int64_t> t = row.times_ns;
    qsort(t.data(), t.size(), sizeof(int64_t), replay_table::compare_times);
    const size_t rank = (t.size() * 95 + 99) / 100 - 1;  // nearest rank
    const size_t p95 = rank < t.size() - 1 ? rank : t.size() - 1;
    out += "timing " + replay_table::shown_key(row) + " (" + printable(row.type) + "): " + num(static_cast<long long>(t.size())) +
           " runs of the kernel alone: min " + duration_text(t.front()) + ", median " + duration_text(t[t.size() / 2]) +
           ", p95 " + duration_text(t[p95]) + "\n";
  }
  if (!r.no_kernel.empty()) {
    // One line for every op without a kernel, by type: the ops replayed decide the answer.
    std::vector<std::pair<std::string, size_t>> types;
    for (const replay_row& row : r.no_kernel) {
      auto it = types.begin();
      while (it != types.end() && it->first != row.type) ++it;
      if (it == types.end()) types.emplace_back(row.type, 1);
      else ++it->second;
    }
    out += num(static_cast<long long>(r.no_kernel.size())) + " op" + (r.no_kernel.size() == 1 ? "" : "s") + " of " +
           num(static_cast<long long>(types.size())) + " type" + (types.size() == 1 ? "" : "s") + " have no kernel, skipped:";
    for (size_t i = 0; i < types.size(); ++i)
      out += std::string(i ? "," : "") + " " + printable(types[i].first.empty() ? std::string("(no type)") : types[i].first) +
             " (" + num(static_cast<long long>(types[i].second)) + ")";
    out += " (PROBE_KERNEL(\"TYPE\", fn) registers one; --require-kernels makes them errors)\n";
  }
  const std::string n = num(static_cast<long long>(r.rows.size()));
  const bool one = r.rows.size() == 1;
  if (r.rows.empty()) return out + "replay: no op was replayed.\n";
  if (!failed.empty()) {
    out += "replay: " + num(static_cast<long long>(failed.size())) + " of " + n +
           " ops could not be replayed: " + replay_table::names(failed);
    out += bad.empty() ? ".\n" : "; " + num(static_cast<long long>(bad.size())) + " mismatch: " + replay_table::names(bad) + ".\n";
  } else if (!bad.empty()) {
    out += "replay: " + num(static_cast<long long>(bad.size())) + " of " + n + " ops " +
           (r.fake_data ? "give NaN or Inf on fake inputs" : "mismatch their recorded outputs") + ": " +
           replay_table::names(bad) + ".\n";
  } else {
    out += "replay: " + (one ? std::string("the op") : "all " + n + " ops") + " " +
           (r.fake_data ? (one ? "gives finite outputs on fake inputs" : "give finite outputs on fake inputs")
                        : (one ? "is within tolerance" : "within tolerance")) + ".\n";
  }
  return out;
}

PROBE_API std::string replay_text(const replay_report& r) {
  const replay_columns c = replay_columns_for(r.rows, r.fake_data);
  std::string out = replay_table_head(c);
  for (const replay_row& row : r.rows) out += replay_row_head(row, c) + replay_row_rest(row, c);
  return out + replay_table_end(r);
}

}  // namespace detail
PROBE_END_NAMESPACE
