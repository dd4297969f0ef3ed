// What probe show --passes prints: a dump's engine modules and, per module, its passes in
// pipeline order with whether each changed the IR and the line count of the result.
#pragma once
#include <stdio.h>

#include <string>
#include <vector>

#include <probe/util/text.hpp>

#include "analysis/ir_stages.hpp"

namespace probe_cli {

// The run folders of a dump: itself when it holds a manifest, else its subfolders that do.
inline std::vector<std::string> ir_run_dirs(const std::string& dir) {
  namespace pa = probe::analysis;
  if (pa::is_file(pa::join(dir, "manifest.jsonl"))) return {dir};
  std::vector<std::string> out;
  for (const std::string& name : pa::list_dir(dir))
    if (pa::is_file(pa::join(pa::join(dir, name), "manifest.jsonl"))) out.push_back(pa::join(dir, name));
  return out;
}

// Names as the engine gave them, escaped (a newline stays on its row) and cut to 60 bytes
// for the column (the file name holds the full one, capped).
inline std::string ir_cell(const std::string& name) {
  std::string s = ::probe::detail::printable(name);
  return s.size() > 60 ? s.substr(0, 59) + "~" : s;
}

inline std::string ir_passes_text(const std::string& dir, const std::vector<probe::analysis::ir_module_dump>& mods) {
  std::string out;
  for (const probe::analysis::ir_module_dump& m : mods) {
    out += "module " + std::to_string(m.id) + " " + ir_cell(m.name);
    if (m.ops >= 0) out += " (" + std::to_string(m.ops) + " ops)";
    out += " in " + ::probe::detail::printable(dir) + "\n";
    size_t width = 8, digits = 5;
    for (const probe::analysis::ir_stage& s : m.stages) {
      width = std::max(width, ir_cell(s.pass).size());
      digits = std::max(digits, std::to_string(s.lines).size());
    }
    for (const probe::analysis::ir_stage& s : m.stages) {
      char idx[16];
      snprintf(idx, sizeof idx, "  %04u ", s.pass_index);
      const std::string name = ir_cell(s.pass);
      std::string pass = name + std::string(width - name.size(), ' ');
      std::string stage = s.stage + std::string(s.stage.size() < 7 ? 7 - s.stage.size() : 0, ' ');
      const char* what = s.stage == "entry" ? "entry    " : s.stage == "before" ? "input    " : !s.changed_known ? "written  " : s.changed ? "changed  " : "unchanged";
      const std::string count = std::to_string(s.lines);
      out += idx + pass + "  " + stage + "  " + what + " " + std::string(digits - count.size(), ' ') + count + " lines  " +
             ::probe::detail::printable(s.own_file ? s.file : "(same as " + s.file + ")") + "\n";
    }
  }
  return out;
}

}  // namespace probe_cli
