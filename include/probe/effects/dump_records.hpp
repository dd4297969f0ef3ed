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

PROBE_FUNC void write_health(json::writer& w, const health& h) {
  w.key("stats").begin_object();
  w.member("count", static_cast<long long>(h.count));
  w.member("finite", static_cast<long long>(h.finite));
  w.member("min", h.min).member("max", h.max).member("mean", h.mean).member("std", h.std);
  w.member("nan", static_cast<long long>(h.nan));
  w.member("posinf", static_cast<long long>(h.pos_inf));
  w.member("neginf", static_cast<long long>(h.neg_inf));
  w.member("zero", static_cast<long long>(h.zero));
  w.member("subnormal", static_cast<long long>(h.subnormal));
  w.member("negative", static_cast<long long>(h.negative));
  w.member("positive", static_cast<long long>(h.positive));
  w.end_object();
}

// One manifest line, newline included.
PROBE_FUNC std::string render_tensor_record(const tensor_record& rec) {
  std::string line;
  line.reserve(512);
  json::writer w(line);
  w.begin_object();
  w.member("record", "tensor");
  w.member("seq", static_cast<unsigned long long>(rec.seq));
  w.member("step", static_cast<long long>(rec.step));
  w.member("op", rec.op).member("type", rec.type);
  w.member("occurrence", static_cast<unsigned long long>(rec.occurrence));
  w.key("parent");
  if (rec.parent) w.value(static_cast<unsigned long long>(rec.parent)); else w.null();
  w.member("thread", static_cast<unsigned>(rec.thread));
  w.member("io", rec.is_input ? "in" : "out").member("stage", rec.is_input ? "before" : "after");
  w.member("slot", rec.slot).member("key", rec.key);
  w.key("producer");
  if (rec.producer.empty()) w.null(); else w.value(rec.producer);
  w.member("dtype", dtype_name(rec.elem_type));
  w.key("shape").begin_array();
  for (int i = 0; i < rec.ndim; ++i) w.value(static_cast<long long>(rec.shape[i]));
  w.end_array();
  // The file is always row-major; these are the strides (in elements) the tensor had in memory.
  w.key("strides").begin_array();
  for (int i = 0; i < rec.ndim; ++i) w.value(static_cast<long long>(rec.strides[i]));
  w.end_array();
  w.member("device", device_text(rec.where));
  w.member("bytes", static_cast<unsigned long long>(rec.bytes));
  w.key("file");
  if (rec.file.empty()) w.null(); else w.value(rec.file);
  if (rec.have_stats) write_health(w, rec.stats);
  else w.key("stats").null();
  if (!rec.note.empty()) w.member("note", rec.note);
  w.member("wall_time", static_cast<double>(rec.wall_ns) * 1e-9);
  w.end_object();
  line += '\n';
  return line;
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
  std::string s = format("op {} {}", r.seq, r.name);
  if (!r.type.empty()) s += " [" + r.type + "]";
  s += format(" step {} #{} thread {}", r.step, r.occurrence, r.thread);
  if (r.parent) s += format(" in op {}", r.parent->seq);
  return s + "\n";
}

PROBE_FUNC std::string render_text_tensor(const tensor_record& rec, const health& h, bool have_stats,
                                          const tensor& head, const std::string& note) {
  std::string s = rec.is_input ? "in  " : "out ";
  s += rec.slot + ": " + dtype_name(rec.elem_type) + shape_text(rec);
  if (!rec.where.is_host()) s += " on " + device_text(rec.where);
  if (rec.is_input) s += rec.producer.empty() ? "  (graph input)" : "  from " + rec.producer;
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
