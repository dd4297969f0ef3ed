// The engine IR a dump holds (probe::ir_module / ir_pass): its "ir" manifest records grouped
// by module, one stage per pass in pipeline order, each resolved to the file holding its IR
// (an unchanged stage names the file it equals). Read by probe show --passes and probe diff-ir.
#pragma once
#include <stdint.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dump_manifest.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct ir_stage {
  uint32_t pass_index = 0;
  std::string pass;   // "entry", "exit" or the engine's pass name
  std::string stage;  // entry, before, after, exit
  bool changed = true;
  bool changed_known = true;  // false: the pass's input was not printed
  std::string file;   // the file with this stage's IR: its own, or the one it equals
  bool own_file = true;
  uint64_t lines = 0, bytes = 0;
  std::string hash;
};

struct ir_module_dump {
  uint32_t id = 0;
  std::string name;
  int64_t ops = -1;
  std::vector<ir_stage> stages;  // pipeline order
};

// Reads the "ir" records of one run folder (with its manifest.jsonl). Of a stage written in
// several formats the text file is kept (else the first). False with *error on a bad manifest.
inline bool read_ir_stages(const std::string& dir, std::vector<ir_module_dump>* out, std::string* error) {
  out->clear();
  const std::string path = join(dir, "manifest.jsonl");
  std::string text;
  if (!read_regular_file(path, &text, error)) return false;
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (line.find("\"record\":\"ir\"") == std::string::npos) continue;
    json::value v;
    std::string why;
    if (!json::parse(line, v, &why) || !v.is_object()) {
      if (at >= text.size()) break;  // a run cut short while writing its last line
      *error = path + ":" + std::to_string(line_no) + ": " + why;
      return false;
    }
    if (v.get_string("record") != "ir") continue;
    const uint32_t id = static_cast<uint32_t>(v.get_int("module"));
    auto m = std::find_if(out->begin(), out->end(), [&](const ir_module_dump& x) { return x.id == id; });
    if (m == out->end()) {
      out->push_back(ir_module_dump{id, v.get_string("module_name"), v.get_int("ops", -1), {}});
      m = out->end() - 1;
    }
    ir_stage s;
    s.pass_index = static_cast<uint32_t>(v.get_int("pass_index"));
    s.pass = v.get_string("pass");
    s.stage = v.get_string("stage");
    const json::value* changed = v.find("changed");
    s.changed = !changed || changed->as_bool(true);
    s.changed_known = !changed || changed->is_bool();
    const json::value* file = v.find("file");
    s.own_file = file && file->is_string();
    s.file = s.own_file ? file->as_string() : v.get_string("same_as");
    s.lines = static_cast<uint64_t>(v.get_int("lines"));
    s.bytes = static_cast<uint64_t>(v.get_int("bytes"));
    s.hash = v.get_string("hash");
    if (s.file.find('/') != std::string::npos || s.file == "." || s.file == "..") {
      *error = path + ":" + std::to_string(line_no) + ": bad file name '" + s.file + "'";
      return false;
    }
    auto same = std::find_if(m->stages.begin(), m->stages.end(), [&](const ir_stage& x) {
      return x.pass_index == s.pass_index && x.stage == s.stage;
    });
    if (same == m->stages.end())
      m->stages.push_back(std::move(s));
    else if (v.get_string("format") == "text")
      *same = std::move(s);
  }
  auto rank = [](const std::string& stage) { return stage == "entry" ? 0 : stage == "before" ? 1 : 2; };
  for (ir_module_dump& m : *out)
    std::stable_sort(m.stages.begin(), m.stages.end(), [&](const ir_stage& a, const ir_stage& b) {
      return a.pass_index != b.pass_index ? a.pass_index < b.pass_index : rank(a.stage) < rank(b.stage);
    });
  std::sort(out->begin(), out->end(), [](const ir_module_dump& a, const ir_module_dump& b) { return a.id < b.id; });
  return true;
}

inline bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// A module named by id ("3"), by its file prefix ("module_0003") or by its name; nullptr with
// *error (naming what there is) when none or several match. An id wins over a module whose
// name is that number (a module named "1" is reached by its own id, or as module_N).
inline const ir_module_dump* find_ir_module(const std::vector<ir_module_dump>& mods, const std::string& want, std::string* error) {
  const bool prefixed = want.compare(0, 7, "module_") == 0;
  const std::string id = prefixed ? want.substr(7) : want;
  if (all_digits(id))
    for (const ir_module_dump& m : mods)
      if (m.id == strtoul(id.c_str(), nullptr, 10)) return &m;
  std::vector<const ir_module_dump*> hits;
  for (const ir_module_dump& m : mods)
    if (m.name == want) hits.push_back(&m);
  if (hits.size() == 1) return hits[0];
  std::string list;
  for (const ir_module_dump& m : mods) list += (list.empty() ? "" : ", ") + std::to_string(m.id) + " " + m.name;
  *error = hits.empty() ? "no module '" + want + "' in the dump (modules: " + (list.empty() ? "none" : list) + ")"
                        : "several modules are called '" + want + "'; name one by id (modules: " + list + ")";
  return nullptr;
}

// The IR after a pass: "entry", "exit", a pass name or index, and ":before" for its input.
// nullptr with *error (naming the stages dumped) when that stage was not dumped.
inline const ir_stage* find_ir_stage(const ir_module_dump& m, const std::string& want, std::string* error) {
  std::string name = want, stage = "after";
  const size_t colon = want.rfind(':');
  if (colon != std::string::npos) {
    name = want.substr(0, colon);
    stage = want.substr(colon + 1);
  }
  if (name == "entry" || name == "exit") stage = name;
  // A bare index names whatever the listing shows at it: the entry and exit stages have
  // indices too (the first and the last), and no "after".
  const bool bare_index = colon == std::string::npos && all_digits(name);
  std::vector<const ir_stage*> hits;
  for (const ir_stage& s : m.stages) {
    const bool by_index = all_digits(name) && s.pass_index == strtoul(name.c_str(), nullptr, 10) &&
                          (bare_index ? s.stage != "before" : s.stage == stage);
    if ((s.stage == stage && s.pass == name) || by_index) hits.push_back(&s);
  }
  if (hits.size() == 1) return hits[0];
  std::string list;
  for (const ir_stage& s : m.stages)
    list += (list.empty() ? "" : ", ") + std::to_string(s.pass_index) + " " + s.pass + (s.stage == "before" ? ":before" : "");
  if (hits.empty())
    *error = "module " + std::to_string(m.id) + " has no stage '" + want + "' (dumped: " + list +
             "); dump more passes with --probe_dump_pass_re";
  else
    *error = "module " + std::to_string(m.id) + " ran pass '" + name + "' several times; name one by index (" + list + ")";
  return nullptr;
}

}  // namespace analysis
PROBE_END_NAMESPACE
