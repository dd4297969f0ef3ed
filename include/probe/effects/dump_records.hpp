// What the dump writes about each tensor: manifest.jsonl records (one JSON object per line)
// and the text io-dump. Pure functions from records to text. Implementation-only header.
#pragma once
#include <stdio.h>
#include <unistd.h>

#include <string>

#include "../core/context_impl.hpp"
#include "../core/format.hpp"
#include "../core/stats.hpp"
#include "../core/tensor.hpp"
#include "../util/float_text.hpp"
#include "../util/int_text.hpp"
#include "../util/printable.hpp"
#include "../formats/json_write.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Everything the manifest says about one recorded tensor.
struct tensor_record {
  uint64_t seq = 0;
  int64_t step = 0;
  std::string op, type;
  uint64_t occurrence = 0;
  uint64_t parent = 0;  // 0: not nested
  uint32_t thread = 0;
  bool is_input = false;
  std::string slot, key, producer;
  dtype elem_type = dtype::invalid;
  int ndim = 0;
  int64_t shape[max_dims] = {};
  int64_t strides[max_dims] = {};
  device where{};
  uint64_t bytes = 0;
  std::string file;  // relative to the run directory; empty when no file was written
  bool have_stats = false;
  health stats;
  std::string note;  // why there are no stats (device without backend, ...)
  int64_t wall_ns = 0;
};

PROBE_FUNC tensor_record make_record(const op_record& r, const recorded_tensor& t) {
  tensor_record rec;
  rec.seq = r.seq;
  rec.step = r.step;
  rec.op = r.name;
  rec.type = r.type;
  rec.occurrence = r.occurrence;
  rec.parent = r.parent ? r.parent->seq : 0;
  rec.thread = r.thread;
  rec.is_input = t.which == io::in;
  rec.slot = t.slot;
  rec.key = r.key(t.which, t.slot.c_str());
  rec.producer = t.producer;
  rec.elem_type = t.view.type;
  rec.ndim = t.view.ndim > 0 ? t.view.ndim : 0;
  for (int i = 0; i < rec.ndim; ++i) {
    rec.shape[i] = t.view.shape[i];
    rec.strides[i] = t.view.strides[i];
  }
  rec.where = t.view.where;
  rec.bytes = t.view.valid() ? t.view.nbytes() : 0;
  rec.wall_ns = wall_ns();
  return rec;
}

PROBE_FUNC std::string shape_text(const tensor_record& rec) {
  std::string s = "[";
  for (int i = 0; i < rec.ndim; ++i) {
    if (i) s += ',';
    s += std::to_string(rec.shape[i]);
  }
  return s + "]";
}

PROBE_FUNC std::string device_text(const device& d) {
  return d.is_host() ? std::string("host") : "cuda:" + std::to_string(d.index);
}

PROBE_FUNC std::string short_stats_text(const health& h) {
  return format("min {:.4g} max {:.4g} mean {:.4g}", h.min, h.max, h.mean) +
         (h.nonfinite() ? format(" nan {} inf {}", h.nan, h.pos_inf + h.neg_inf) : std::string());
}

// The manifest line is written once per dumped tensor, so it is assembled by hand: constant
// keys are appended as they are, user strings go through the JSON escaper, numbers through
// the shortest round-trip formatter.
namespace manifest_text {
template <size_t N>
inline void lit(std::string& o, const char (&s)[N]) {
  o.append(s, N - 1);
}
PROBE_INLINE void str(std::string& o, const std::string& s) { json::write_string(o, s); }
PROBE_INLINE void opt_str(std::string& o, const std::string& s) {
  if (s.empty()) lit(o, "null"); else json::write_string(o, s);
}
PROBE_INLINE void num(std::string& o, long long v) {
  char b[24];
  o.append(b, static_cast<size_t>(put_int(b, v) - b));
}
PROBE_INLINE void unum(std::string& o, unsigned long long v) {
  char b[24];
  o.append(b, static_cast<size_t>(put_uint(b, v) - b));
}
PROBE_INLINE void real(std::string& o, double v) {
  if (!fp_finite(v)) return lit(o, "null");  // JSON has no NaN or infinity
  char b[shortest_text_capacity];
  o.append(b, write_shortest(b, v));
}
PROBE_INLINE void dims_array(std::string& o, const int64_t* d, int n) {
  o += '[';
  for (int i = 0; i < n; ++i) {
    if (i) o += ',';
    num(o, d[i]);
  }
  o += ']';
}
}  // namespace manifest_text

PROBE_FUNC void append_health(std::string& o, const health& h) {
  using namespace manifest_text;
  lit(o, "{\"count\":"), num(o, h.count);
  lit(o, ",\"finite\":"), num(o, h.finite);
  lit(o, ",\"min\":"), real(o, h.min);
  lit(o, ",\"max\":"), real(o, h.max);
  lit(o, ",\"mean\":"), real(o, h.mean);
  lit(o, ",\"std\":"), real(o, h.std);
  lit(o, ",\"nan\":"), num(o, h.nan);
  lit(o, ",\"posinf\":"), num(o, h.pos_inf);
  lit(o, ",\"neginf\":"), num(o, h.neg_inf);
  lit(o, ",\"zero\":"), num(o, h.zero);
  lit(o, ",\"subnormal\":"), num(o, h.subnormal);
  lit(o, ",\"negative\":"), num(o, h.negative);
  lit(o, ",\"positive\":"), num(o, h.positive);
  o += '}';
}

// One manifest line, newline included.
PROBE_FUNC std::string render_tensor_record(const tensor_record& rec) {
  using namespace manifest_text;
  std::string o;
  o.reserve(640);
  lit(o, "{\"record\":\"tensor\",\"seq\":"), unum(o, rec.seq);
  lit(o, ",\"step\":"), num(o, rec.step);
  lit(o, ",\"op\":"), str(o, rec.op);
  lit(o, ",\"type\":"), str(o, rec.type);
  lit(o, ",\"occurrence\":"), unum(o, rec.occurrence);
  lit(o, ",\"parent\":");
  if (rec.parent) unum(o, rec.parent); else lit(o, "null");
  lit(o, ",\"thread\":"), unum(o, rec.thread);
  if (rec.is_input) lit(o, ",\"io\":\"in\",\"stage\":\"before\""); else lit(o, ",\"io\":\"out\",\"stage\":\"after\"");
  lit(o, ",\"slot\":"), str(o, rec.slot);
  lit(o, ",\"key\":"), str(o, rec.key);
  lit(o, ",\"producer\":"), opt_str(o, rec.producer);
  lit(o, ",\"dtype\":\""), o += dtype_name(rec.elem_type), o += '"';
  lit(o, ",\"shape\":"), dims_array(o, rec.shape, rec.ndim);
  // The file is always row-major; these are the strides (in elements) the tensor had in memory.
  lit(o, ",\"strides\":"), dims_array(o, rec.strides, rec.ndim);
  lit(o, ",\"device\":"), str(o, device_text(rec.where));
  lit(o, ",\"bytes\":"), unum(o, rec.bytes);
  lit(o, ",\"file\":"), opt_str(o, rec.file);
  lit(o, ",\"stats\":");
  if (rec.have_stats) append_health(o, rec.stats); else lit(o, "null");
  if (!rec.note.empty()) lit(o, ",\"note\":"), str(o, rec.note);
  // Seconds since the epoch with microseconds, from integers (no float formatting).
  char t[40];
  char* e = put_int(t, rec.wall_ns / 1000000000);
  *e++ = '.';
  e = put_uint(e, static_cast<unsigned long long>(rec.wall_ns % 1000000000) / 1000, 6);
  lit(o, ",\"wall_time\":"), o.append(t, static_cast<size_t>(e - t));
  lit(o, "}\n");
  return o;
}

PROBE_FUNC std::string render_run_record(const std::string& dir, const std::string& asked) {
  std::string line;
  json::writer w(line);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  w.begin_object().member("record", "run").member("probe_version", PROBE_VERSION_STRING);
  w.member("pid", static_cast<long long>(getpid())).member("host", host);
  w.member("dir", dir).member("dump_to", asked);
  const rank_info ri = detect_rank();
  w.key("rank");
  if (ri.rank >= 0) w.value(ri.rank); else w.null();
  w.member("world", ri.world);
  w.member("start_time", static_cast<double>(wall_ns()) * 1e-9);
  w.end_object();
  line += '\n';
  return line;
}

PROBE_FUNC std::string render_budget_record(const std::string& why, uint64_t seq, uint64_t ops, uint64_t bytes) {
  std::string line;
  json::writer w(line);
  w.begin_object().member("record", "budget").member("reason", why);
  w.member("seq", static_cast<unsigned long long>(seq)).member("ops", static_cast<unsigned long long>(ops));
  w.member("bytes", static_cast<unsigned long long>(bytes)).end_object();
  line += '\n';
  return line;
}

PROBE_FUNC std::string render_end_record(uint64_t ops, uint64_t bytes, bool stopped) {
  std::string line;
  json::writer w(line);
  w.begin_object().member("record", "end").member("ops", static_cast<unsigned long long>(ops));
  w.member("bytes", static_cast<unsigned long long>(bytes)).member("complete", !stopped);
  w.member("end_time", static_cast<double>(wall_ns()) * 1e-9).end_object();
  line += '\n';
  return line;
}

// Text io-dump, one file per op execution:
//   op 12 conv1 [Conv] step 0 #0 thread 0
//   in  x: float32[1,3,8,8] from stem#0/out/y
//       min -1.2 max 3.4 mean 0.12 std 0.9 nan 0 +inf 0 -inf 0 zero 3
//       [0.1 0.2 ... ]
PROBE_FUNC std::string render_text_header(const op_record& r) {
  // Names are escaped: one op, one header line, whatever the name holds.
  std::string s = format("op {} {}", r.seq, printable(r.name));
  if (!r.type.empty()) s += " [" + printable(r.type) + "]";
  s += format(" step {} #{} thread {}", r.step, r.occurrence, r.thread);
  if (r.parent) s += format(" in op {}", r.parent->seq);
  return s + "\n";
}

PROBE_FUNC std::string render_text_tensor(const tensor_record& rec, const health& h, bool have_stats,
                                          const tensor& head, const std::string& note) {
  std::string s = rec.is_input ? "in  " : "out ";
  s += printable(rec.slot) + ": " + dtype_name(rec.elem_type) + shape_text(rec);
  if (!rec.where.is_host()) s += " on " + device_text(rec.where);
  if (rec.is_input) s += rec.producer.empty() ? "  (graph input)" : "  from " + printable(rec.producer);
  s += "\n";
  if (!have_stats) return s + "    (not read: " + note + ")\n";
  s += format("    min {} max {} mean {} std {}  nan {} +inf {} -inf {} zero {}\n", h.min, h.max, h.mean,
              h.std, h.nan, h.pos_inf, h.neg_inf, h.zero);
  if (!head.empty() && head.numel() > 0) {
    tensor_format f;
    f.linewidth = 1 << 20;  // one line
    std::string values;
    format_tensor(values, head.view(), f);
    s += "    " + values + (head.numel() < static_cast<int64_t>(rec.bytes / dtype_size(rec.elem_type)) ? " ..." : "") + "\n";
  }
  return s;
}

}  // namespace detail
PROBE_END_NAMESPACE
