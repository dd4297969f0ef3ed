// The engine's IR at compiler passes (ir_dump.hpp), out of line: which modules and passes
// are dumped, what each stage's file is called, when a stage is the same as the one before
// (recorded, not written again). Files and manifest lines go through the dump effect's run
// (dump_write_run_file, dump_run_file_impl.hpp), so they sit beside the op dumps, rank folders included.
#pragma once
#include <stdio.h>

#include <string>
#include <string_view>
#include <vector>

#include "../core/options.hpp"
#include "../util/hash.hpp"
#include "../util/log.hpp"
#include "../util/regex.hpp"
#include "../util/sync.hpp"
#include "../util/text.hpp"
#include "dump.hpp"
#include "dump_names.hpp"
#include "ir_dump.hpp"
#include "ir_render.hpp"

PROBE_BEGIN_NAMESPACE

// Printers run inside probe's own try blocks (ir_print): out of memory loses the stage only.
PROBE_API ir_out& ir_out::write(const char* text, size_t n) {
  static_cast<detail::ir_buffer*>(this)->text.append(text, n);
  return *this;
}
PROBE_API ir_out& ir_out::operator<<(long long v) { return *this << std::to_string(v); }
PROBE_API ir_out& ir_out::operator<<(unsigned long long v) { return *this << std::to_string(v); }
PROBE_API ir_out& ir_out::operator<<(double v) { return *this << std::to_string(v); }
PROBE_API ir_out& ir_out::add_node(const char* id, size_t nid, const char* label, size_t nlabel) {
  static_cast<detail::ir_buffer*>(this)->nodes.push_back({std::string(id, nid), std::string(label, nlabel), {}});
  return *this;
}
PROBE_API ir_out& ir_out::add_attr(const char* key, size_t nkey, const char* value, size_t nvalue) {
  auto& nodes = static_cast<detail::ir_buffer*>(this)->nodes;
  if (!nodes.empty()) nodes.back().attrs.push_back({std::string(key, nkey), std::string(value, nvalue)});
  return *this;
}
PROBE_API ir_out& ir_out::add_edge(const char* from, size_t nfrom, const char* to, size_t nto, const char* label,
                                   size_t nlabel) {
  static_cast<detail::ir_buffer*>(this)->edges.push_back(
      {std::string(from, nfrom), std::string(to, nto), std::string(label, nlabel)});
  return *this;
}

namespace detail {

// What the IR flags ask for, compiled once per published set of options (set_flags may
// publish another; modules keep the one they opened under, so none is ever freed).
struct ir_config {
  const options* src = nullptr;
  regex module_re, pass_re;
  bool every_pass_off = true;  // no --probe_dump_pass_re: entry and exit only
  bool no_module = false;      // --probe_dump_module_re did not compile: nothing is dumped
  int64_t min_ops = 0;
  bool text = true, dot = false, html = false;
  ir_config* next = nullptr;
};

inline const ir_config* ir_config_for(const options& o) {
  static static_mutex m;  // never destroyed: engines may compile modules during exit
  static ir_config* list = nullptr;
  lock_guard<static_mutex> g(m);
  for (ir_config* c = list; c; c = c->next)
    if (c->src == &o) return c;
  ir_config* c = new ir_config();
  c->src = &o;
  std::string err;
  // A filter that does not compile selects less, never more (as the dump filters do).
  if (o.dump_module_re[0] && !c->module_re.compile(o.dump_module_re, &err)) {
    log("--probe_dump_module_re: %s; no module is dumped", err.c_str());
    c->no_module = true;
    stop_if_strict(o);
  }
  if (o.dump_pass_re[0]) {
    if (c->pass_re.compile(o.dump_pass_re, &err)) {
      c->every_pass_off = false;
    } else {
      log("--probe_dump_pass_re: %s; the module is dumped as it enters and leaves the pipeline only", err.c_str());
      stop_if_strict(o);
    }
  }
  c->min_ops = o.dump_ir_min_ops;
  c->no_module = c->no_module || o.dump_narrowing_unread;  // a filter or budget that cannot be read
  c->dot = o.dump_ir_as_dot;
  c->html = o.dump_ir_as_html;
  c->text = o.dump_ir_as_text || !(c->dot || c->html);
  c->next = list;
  list = c;
  return c;
}

inline uint32_t g_ir_modules = 0;  // modules seen while dumping was on: their ids

struct ir_module_state {
  const ir_config* cfg = nullptr;
  uint32_t id = 0;
  std::string name;     // as the engine gave it
  std::string stem;     // "module_0003.resnet50.fwd"
  int64_t ops = -1;
  bool own_printer = false;
  bool dead = false;    // a write failed or dumping stopped: nothing more
  bool entry_done = false;
  uint32_t passes = 0;  // passes begun; the current one's index
  std::string pass, prev_pass;  // the current pass, the one before it
  bool pass_match = false;
  // The IR's hash after pass `known_at` (0: as it entered), when it was printed then.
  bool have_known = false;
  uint32_t known_at = 0;
  uint64_t known_hash = 0;
  uint64_t before_hash = 0;  // the current (matched) pass's input
  // The last stage written: an unchanged stage names it.
  bool have_written = false;
  uint64_t written_hash = 0;
  std::string written_file;
  uint64_t written_lines = 0;
  // Without a module printer: the IR after the last unmatched pass, for the exit stage.
  bool have_pending = false;
  ir_buffer pending;
};

inline bool ir_print(ir_module_state& m, ir_printer p, ir_out& out) noexcept {
  if (!p.call) return false;
  try {
    p.call(p.self, out);
    return true;
  } catch (...) {
    static int once = 0;
    log_once(&once, "module %s: its IR printer threw; that stage is not dumped", m.name.c_str());
    return false;
  }
}

inline std::string ir_file_stem(const ir_module_state& m, uint32_t index, std::string_view pass, const char* stage) {
  char idx[16];
  snprintf(idx, sizeof idx, ".%04u.", index);
  std::string s = m.stem + idx + sanitize_name(std::string(pass), 80);
  if (pass != stage) s += std::string(".") + stage;
  return s;
}

inline std::string ir_record_head(const ir_module_state& m, uint32_t index, std::string_view pass, const char* stage) {
  std::string o = "{\"record\":\"ir\",\"module\":" + std::to_string(m.id) + ",\"module_name\":";
  append_json_string(o, m.name);
  o += ",\"ops\":" + std::to_string(m.ops) + ",\"pass_index\":" + std::to_string(index) + ",\"pass\":";
  append_json_string(o, pass);
  o += std::string(",\"stage\":\"") + stage + "\"";
  return o;
}

inline std::string ir_hash_text(uint64_t h) {
  char b[17];
  hash_hex(h, b);
  return std::string(b, 16);
}

// One stage whose IR differs from the last one written: a file per format, a record each.
// `changed`: "true", "false", or "null" (the pass's input was not printed: unknown).
inline void ir_emit(ir_module_state& m, uint32_t index, std::string_view pass, const char* stage, const ir_buffer& out,
                    const std::string& canon, uint64_t h, const char* changed = "true") {
  if (m.dead) return;
  const std::string stem = ir_file_stem(m, index, pass, stage);
  struct one {
    bool on;
    const char* format;
    const char* ext;
  } const formats[] = {{m.cfg->text, "text", ".txt"}, {m.cfg->dot, "dot", ".dot"}, {m.cfg->html, "html", ".html"}};
  std::string first;
  for (const one& f : formats) {
    if (!f.on) continue;
    const std::string body = f.ext[1] == 't' ? canon
                             : f.ext[1] == 'd' ? render_ir_dot(out, canon, m.name + " " + stem)
                                               : render_ir_html(out, canon, m.name + " " + stem);
    const std::string file = stem + f.ext;
    std::string line = ir_record_head(m, index, pass, stage) + ",\"changed\":" + changed + ",\"format\":\"" + f.format + "\",\"file\":";
    append_json_string(line, file);
    line += ",\"bytes\":" + std::to_string(body.size()) + ",\"lines\":" + std::to_string(ir_line_count(canon)) +
            ",\"hash\":\"" + ir_hash_text(h) + "\",\"content_hash\":\"" + ir_hash_text(content_hash::of(body.data(), body.size())) + "\"}\n";
    if (!dump_write_run_file(file, body, line)) {
      m.dead = true;
      return;
    }
    if (first.empty()) first = file;
  }
  m.have_written = true;
  m.written_hash = h;
  m.written_file = first;
  m.written_lines = ir_line_count(canon);
}

// A stage equal to the last one written: recorded, pointing at that file.
inline void ir_emit_unchanged(ir_module_state& m, uint32_t index, std::string_view pass, const char* stage, uint64_t h) {
  if (m.dead) return;
  std::string line = ir_record_head(m, index, pass, stage) + ",\"changed\":false,\"file\":null,\"same_as\":";
  append_json_string(line, m.written_file);
  line += ",\"lines\":" + std::to_string(m.written_lines) + ",\"hash\":\"" + ir_hash_text(h) + "\"}\n";
  if (!dump_write_run_file(std::string(), std::string(), line)) m.dead = true;
}

// Prints the IR and writes it as stage `stage` unless it equals the last stage written.
// Returns whether it printed (*hash then holds its hash).
inline bool ir_stage(ir_module_state& m, ir_printer p, uint32_t index, std::string_view pass, const char* stage,
                     uint64_t* hash, bool record_same = true, const char* changed = "true") {
  ir_buffer out;
  if (!ir_print(m, p, out)) return false;
  const std::string canon = ir_canonical_text(out);
  *hash = content_hash::of(canon.data(), canon.size());
  if (m.have_written && *hash == m.written_hash) {
    if (record_same) ir_emit_unchanged(m, index, pass, stage, *hash);
  } else
    ir_emit(m, index, pass, stage, out, canon, *hash, changed);
  return true;
}

PROBE_API ir_module_state* ir_module_open(const char* name, size_t len, int64_t op_count, bool own_printer) noexcept {
  try {
    const uint32_t id = __atomic_add_fetch(&g_ir_modules, 1, __ATOMIC_RELAXED);
    const options& o = options_ref();
    if (!o.dump || o.dump_to_stdout || !dump_active()) return nullptr;
    const ir_config* c = ir_config_for(o);
    const std::string n(name, len);
    if (c->no_module || !c->module_re.search(n)) return nullptr;
    if (c->min_ops > 0 && op_count >= 0 && op_count < c->min_ops) return nullptr;
    ir_module_state* m = new ir_module_state();
    m->cfg = c;
    m->id = id;
    m->name = n;
    char head[24];
    snprintf(head, sizeof head, "module_%04u.", id);
    m->stem = head + sanitize_name(n, 100);
    m->ops = op_count;
    m->own_printer = own_printer;
    return m;
  } catch (...) {
    return nullptr;
  }
}

PROBE_API uint32_t ir_module_id(const ir_module_state* m) noexcept { return m ? m->id : 0; }

PROBE_API void ir_pass_begin(ir_module_state* m, const char* pass, size_t len, ir_printer p) noexcept {
  try {
    ++m->passes;
    m->prev_pass.swap(m->pass);
    m->pass.assign(pass, len);
    m->pass_match = !m->cfg->every_pass_off && m->cfg->pass_re.search(m->pass);
    uint64_t h = 0;
    if (!m->entry_done) {
      m->entry_done = true;
      if (ir_stage(*m, p, 0, "entry", "entry", &h)) {
        m->have_known = true;
        m->known_at = 0;
        m->known_hash = h;
      }
    }
    if (!m->pass_match) return;
    // The pass's input is on disk already when the last stage written is what it gets.
    if (m->have_known && m->known_at == m->passes - 1 && m->have_written && m->known_hash == m->written_hash) {
      m->before_hash = m->known_hash;
    } else if (ir_stage(*m, p, m->passes - 1, m->prev_pass, "after", &h, false, "null")) {
      // Passes not dumped changed it since the last stage written: it is written as what the
      // pass before left (so files stay in pipeline order); whether that pass changed
      // anything is not known.
      m->before_hash = h;
    } else {
      m->pass_match = false;
    }
  } catch (...) {
  }
}

PROBE_API void ir_pass_end(ir_module_state* m, ir_printer p) noexcept {
  try {
    m->have_known = false;
    m->have_pending = false;  // what an earlier pass left is not the module's IR any more
    if (m->pass_match) {
      ir_buffer out;
      if (!ir_print(*m, p, out)) return;
      const std::string canon = ir_canonical_text(out);
      const uint64_t h = content_hash::of(canon.data(), canon.size());
      if (h == m->before_hash && m->have_written && h == m->written_hash)
        ir_emit_unchanged(*m, m->passes, m->pass, "after", h);
      else
        ir_emit(*m, m->passes, m->pass, "after", out, canon, h, h != m->before_hash ? "true" : "false");
      m->have_known = true;
      m->known_at = m->passes;
      m->known_hash = h;
    } else if (!m->own_printer) {
      // The module leaves the pipeline as the last pass left it: keep that for the exit stage.
      ir_buffer out;
      if (!ir_print(*m, p, out)) return;
      m->pending.take(out);
      m->have_pending = true;
      const std::string canon = ir_canonical_text(m->pending);
      m->have_known = true;
      m->known_at = m->passes;
      m->known_hash = content_hash::of(canon.data(), canon.size());
    }
  } catch (...) {
  }
}

PROBE_API void ir_module_close(ir_module_state* m, ir_printer own) noexcept {
  try {
    const uint32_t exit_index = m->passes + 1;
    uint64_t h = 0;
    if (own.call) {
      if (!m->entry_done) {
        m->entry_done = true;
        ir_stage(*m, own, 0, "entry", "entry", &h);
      }
      ir_stage(*m, own, exit_index, "exit", "exit", &h);
    } else if (m->have_pending && m->known_at == m->passes) {
      const std::string canon = ir_canonical_text(m->pending);
      h = content_hash::of(canon.data(), canon.size());
      if (m->have_written && h == m->written_hash)
        ir_emit_unchanged(*m, exit_index, "exit", "exit", h);
      else
        ir_emit(*m, exit_index, "exit", "exit", m->pending, canon, h);
    } else if (m->have_known && m->known_at == m->passes && m->have_written && m->known_hash == m->written_hash) {
      ir_emit_unchanged(*m, exit_index, "exit", "exit", m->known_hash);
    }
  } catch (...) {
  }
  delete m;
}

}  // namespace detail
PROBE_END_NAMESPACE
