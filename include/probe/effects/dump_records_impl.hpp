// dump_records: definitions (see dump_records.hpp).
#pragma once
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "../core/options.hpp"
#include "dump_records.hpp"

extern char** environ;  // POSIX: unistd.h declares it only with _GNU_SOURCE

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API tensor_record make_record(const op_record& r, const recorded_tensor& t) {
  tensor_record rec;
  rec.seq = r.seq;
  rec.step = r.step;
  rec.op = r.name;
  rec.type = r.type;
  rec.occurrence = r.occurrence;
  rec.parent = r.parent ? r.parent->seq : 0;
  rec.thread = r.thread;
  rec.lane = r.lane;
  rec.lane_occurrence = r.lane_occurrence;
  rec.module = r.module;
  rec.is_input = t.which == io::in;
  rec.slot = t.slot;
  rec.key = r.key(t.which, t.slot.c_str());
  rec.producer = t.producer;
  rec.producers = t.producers;
  rec.inout = t.inout;
  rec.implicit = t.implicit;
  if (t.unread) {
    uint64_t covered = 0;
    for (const producer_ref& p : t.producers) covered += p.bytes;
    rec.prior = t.view.valid() && covered == t.view.nbytes() ? "producers" : "unknown";
  }
  rec.stale_producer = t.stale_producer;
  rec.stale_last_op = t.stale_last_op;
  rec.within = t.within;
  rec.within_at = t.within_at;
  rec.have_hash = t.have_hash;
  rec.hash = t.hash;
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

PROBE_API std::string shape_text(const tensor_record& rec) {
  std::string s = "[";
  for (int i = 0; i < rec.ndim; ++i) {
    if (i) s += ',';
    s += std::to_string(rec.shape[i]);
  }
  return s + "]";
}

PROBE_API std::string device_text(const device& d) {
  return d.is_host() ? std::string("host") : "cuda:" + std::to_string(d.index);
}

PROBE_API std::string short_stats_text(const health& h) {
  return format("min {:.4g} max {:.4g} mean {:.4g}", h.min, h.max, h.mean) +
         (h.nonfinite() ? format(" nan {} inf {}", h.nan, h.pos_inf + h.neg_inf) : std::string());
}

PROBE_API void append_health(std::string& o, const health& h) {
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

PROBE_API std::string render_tensor_record(const tensor_record& rec) {
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
  lit(o, ",\"lane\":"), unum(o, rec.lane);
  lit(o, ",\"lane_occurrence\":"), unum(o, rec.lane_occurrence);
  if (rec.module) lit(o, ",\"module\":"), unum(o, rec.module);
  if (rec.is_input) lit(o, ",\"io\":\"in\",\"stage\":\"before\""); else lit(o, ",\"io\":\"out\",\"stage\":\"after\"");
  if (rec.inout) lit(o, ",\"inout\":true");
  if (rec.implicit) lit(o, ",\"implicit\":true");
  if (!rec.prior.empty()) lit(o, ",\"prior\":"), str(o, rec.prior);
  lit(o, ",\"slot\":"), str(o, rec.slot);
  lit(o, ",\"key\":"), str(o, rec.key);
  lit(o, ",\"producer\":"), opt_str(o, rec.producer);
  if (rec.is_input && !rec.producers.empty()) {
    lit(o, ",\"producers\":[");
    for (size_t i = 0; i < rec.producers.size(); ++i) {
      const producer_ref& p = rec.producers[i];
      if (i) o += ',';
      lit(o, "{\"key\":"), str(o, p.key);
      lit(o, ",\"bytes\":"), unum(o, p.bytes);
      lit(o, ",\"offset\":"), unum(o, p.offset);
      if (p.at) lit(o, ",\"at\":"), unum(o, p.at);
      if (p.rows) lit(o, ",\"rows\":true");
      o += '}';
    }
    o += ']';
  }
  if (rec.is_input && !rec.stale_producer.empty()) {
    lit(o, ",\"stale\":{\"producer\":"), str(o, rec.stale_producer);
    lit(o, ",\"last_op_before\":"), opt_str(o, rec.stale_last_op);
    o += '}';
  }
  if (rec.is_input && !rec.within.empty()) {
    lit(o, ",\"within\":{\"key\":"), str(o, rec.within);
    lit(o, ",\"at\":"), unum(o, rec.within_at);
    o += '}';
  }
  lit(o, ",\"dtype\":\""), o += dtype_name(rec.elem_type), o += '"';
  lit(o, ",\"shape\":"), dims_array(o, rec.shape, rec.ndim);
  // The file is always row-major; these are the strides (in elements) the tensor had in memory.
  lit(o, ",\"strides\":"), dims_array(o, rec.strides, rec.ndim);
  lit(o, ",\"device\":"), str(o, device_text(rec.where));
  lit(o, ",\"bytes\":"), unum(o, rec.bytes);
  if (!rec.same_as.empty()) {
    lit(o, ",\"same_as\":"), str(o, rec.same_as);
  } else {
    lit(o, ",\"file\":"), opt_str(o, rec.file);
  }
  if (rec.have_hash) {
    char h[16];
    hash_hex(rec.hash, h);
    lit(o, ",\"hash\":\""), o.append(h, 16), o += '"';
  }
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

PROBE_API std::string render_run_record(const std::string& dir, const std::string& asked,
                                        const std::vector<std::string>& flags) {
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
  w.key("flags").begin_array();
  for (const std::string& f : flags) w.value(f);
  w.end_array();
  // What the engine was asked for, as it reads it (probe::reference_mode(), reproducible_mode()),
  // and its command line (two runs of one command are told from two different runs).
  w.member("reference", options_ref().reference).member("reproducible", options_ref().reproducible);
  w.key("argv").begin_array();
  if (FILE* f = fopen("/proc/self/cmdline", "rb")) {
    std::string arg;
    for (int ch; (ch = fgetc(f)) != EOF && arg.size() < 4096;) {
      if (ch != 0) {
        arg += static_cast<char>(ch);
        continue;
      }
      w.value(arg);
      arg.clear();
    }
    fclose(f);
  }
  w.end_array();
  // The environment, as a short hash of each variable's value (never the value: it may hold a
  // secret): a kernel chosen by a variable makes two runs of one build differ, and compare
  // names the variables that differ instead of calling the op non-deterministic.
  w.key("environment").begin_object();
  {
    std::vector<std::pair<std::string, uint32_t>> vars;
    for (char** e = environ; e && *e; ++e) {
      const char* eq = strchr(*e, '=');
      if (!eq || eq == *e) continue;
      uint32_t h = 2166136261u;  // FNV-1a
      for (const char* c = eq + 1; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 16777619u;
      vars.emplace_back(std::string(*e, static_cast<size_t>(eq - *e)), h);
    }
    std::sort(vars.begin(), vars.end());
    char hex[16];
    for (const auto& v : vars) {
      snprintf(hex, sizeof hex, "%08x", v.second);
      w.member(v.first, hex);
    }
  }
  w.end_object();
  // How probe was built into the program, for bug reports (probe bundle copies this record).
  w.key("build").begin_object();
#if defined(__clang__)
  w.member("compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
  w.member("compiler", "gcc " __VERSION__);
#endif
  w.member("cplusplus", static_cast<long long>(__cplusplus));
#if defined(PROBE_SEPARATE_IMPLEMENTATION)
  w.member("mode", "compiled");
#else
  w.member("mode", "header-only");
#endif
#if defined(PROBE_WITH_CUDA)
  w.member("cuda", true);
#else
  w.member("cuda", false);
#endif
  // The program file itself, so that two dumps of one build can be told from two builds
  // (probe compare then calls an op that differs with matching inputs non-deterministic).
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  struct stat st;
  if (n > 0 && ::stat("/proc/self/exe", &st) == 0) {
    w.member("program", std::string(exe, static_cast<size_t>(n)));
    w.member("program_bytes", static_cast<long long>(st.st_size));
    w.member("program_mtime", static_cast<long long>(st.st_mtime));
  }
  w.end_object();
  w.end_object();
  line += '\n';
  return line;
}

PROBE_API std::string render_budget_record(const std::string& why, uint64_t seq, uint64_t ops, uint64_t bytes) {
  std::string line;
  json::writer w(line);
  w.begin_object().member("record", "budget").member("reason", why);
  w.member("seq", static_cast<unsigned long long>(seq)).member("ops", static_cast<unsigned long long>(ops));
  w.member("bytes", static_cast<unsigned long long>(bytes)).end_object();
  line += '\n';
  return line;
}

PROBE_API std::string render_end_record(uint64_t ops, uint64_t bytes, bool stopped) {
  std::string line;
  json::writer w(line);
  w.begin_object().member("record", "end").member("ops", static_cast<unsigned long long>(ops));
  w.member("bytes", static_cast<unsigned long long>(bytes)).member("complete", !stopped);
  w.member("end_time", static_cast<double>(wall_ns()) * 1e-9).end_object();
  line += '\n';
  return line;
}

PROBE_API std::string render_note_record(const op_record& r, const std::string& text) {
  std::string line;
  json::writer w(line);
  w.begin_object().member("record", "note").member("seq", static_cast<unsigned long long>(r.seq));
  w.member("op", r.name).member("key_prefix", r.name + "#" + std::to_string(r.occurrence) + "/");
  w.member("text", text).end_object();
  line += '\n';
  return line;
}

PROBE_API std::string render_text_header(const op_record& r) {
  // Names are escaped: one op, one header line, whatever the name holds.
  std::string s = format("op {} {}", r.seq, printable(r.name));
  if (!r.type.empty()) s += " [" + printable(r.type) + "]";
  s += format(" step {} #{} thread {}", r.step, r.occurrence, r.thread);
  if (r.parent) s += format(" in op {}", r.parent->seq);
  s += "\n";
  if (!r.attrs.empty()) s += "attrs " + attrs_text(r.attrs) + "\n";
  return s;
}

PROBE_API void write_attrs_json(json::writer& w, const std::vector<op_attribute>& attrs) {
  w.begin_object();
  for (const op_attribute& a : attrs) {
    w.key(a.name);
    switch (a.kind) {
      case attr_kind::boolean: w.value(a.i != 0); break;
      case attr_kind::integer: w.value(static_cast<long long>(a.i)); break;
      case attr_kind::real: w.value(a.d); break;
      case attr_kind::text: w.value(a.text); break;
      case attr_kind::ints:
        w.begin_array();
        for (int64_t v : a.ints) w.value(static_cast<long long>(v));
        w.end_array();
        break;
    }
  }
  w.end_object();
}

PROBE_API std::string render_attrs_record(const op_record& r) {
  std::string line;
  // NaN and infinities as Python's tokens: an attribute keeps its value (readers accept them).
  json::writer w(line, json::writer::nonfinite::tokens);
  w.begin_object().member("record", "attrs").member("seq", static_cast<unsigned long long>(r.seq));
  w.member("op", r.name).member("type", r.type).member("occurrence", static_cast<unsigned long long>(r.occurrence));
  w.member("key", r.name + "#" + std::to_string(r.occurrence));
  w.key("attrs");
  write_attrs_json(w, r.attrs);
  w.end_object();
  line += '\n';
  return line;
}

PROBE_API std::string attrs_text(const std::vector<op_attribute>& attrs) {
  std::string s;
  for (const op_attribute& a : attrs) {
    if (!s.empty()) s += ' ';
    s += printable(a.name) + "=";
    switch (a.kind) {
      case attr_kind::boolean: s += a.i ? "true" : "false"; break;
      case attr_kind::integer: s += std::to_string(a.i); break;
      case attr_kind::real: s += format("{}", a.d); break;
      case attr_kind::text: {
        std::string q;
        json::write_string(q, a.text);  // quoted and escaped: one line whatever it holds
        s += q;
        break;
      }
      case attr_kind::ints:
        s += '[';
        for (size_t i = 0; i < a.ints.size(); ++i) {
          if (i) s += ',';
          s += std::to_string(a.ints[i]);  // not "," + to_string(): GCC 12 -O3 warns (-Wrestrict)
        }
        s += ']';
        break;
    }
  }
  return s;
}

PROBE_API std::string render_text_tensor(const tensor_record& rec, const health& h, bool have_stats,
                                          const tensor& head, const std::string& note) {
  std::string s = rec.is_input ? "in  " : "out ";
  s += printable(rec.slot) + ": " + dtype_name(rec.elem_type) + shape_text(rec);
  if (!rec.where.is_host()) s += " on " + device_text(rec.where);
  if (rec.inout) s += "  (inout)";
  if (rec.implicit) s += "  (implicit: prior state of an output written in place)";
  if (rec.is_input) {
    if (rec.producers.size() > 1) {
      s += "  from";
      for (const producer_ref& p : rec.producers) s += " " + printable(p.key);
    } else {
      s += rec.producer.empty() ? "  (graph input)" : "  from " + printable(rec.producer);
    }
    if (!rec.within.empty()) s += "  (within " + printable(rec.within) + " at byte " + std::to_string(rec.within_at) + ")";
    if (!rec.stale_producer.empty())
      s += "  (stale: " + printable(rec.stale_producer) + " changed since, last op before: " +
           printable(rec.stale_last_op) + ")";
  }
  if (!rec.same_as.empty()) s += "  same as " + printable(rec.same_as);
  s += "\n";
  if (!have_stats) return s + "    (not read: " + note + ")\n";
  // Six significant digits, as `probe show` prints statistics: the two outputs read alike.
  char stats[160];
  snprintf(stats, sizeof stats, "    min %.6g max %.6g mean %.6g std %.6g", h.min, h.max, h.mean, h.std);
  s += stats;
  s += format("  nan {} +inf {} -inf {} zero {}\n", h.nan, h.pos_inf, h.neg_inf, h.zero);
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
