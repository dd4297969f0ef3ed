// What probe show --passes prints: a dump's engine modules and, per module, its passes in
// pipeline order with whether each changed the IR and the line count of the result.
#pragma once
#include <stdio.h>

#include <string>
#include <vector>

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

inline std::string ir_passes_text(const std::string& dir, const std::vector<probe::analysis::ir_module_dump>& mods) {
  std::string out;
  for (const probe::analysis::ir_module_dump& m : mods) {
    out += "module " + std::to_string(m.id) + " " + m.name;
    if (m.ops >= 0) out += " (" + std::to_string(m.ops) + " ops)";
    out += " in " + dir + "\n";
    size_t width = 8;
    for (const probe::analysis::ir_stage& s : m.stages) width = std::max(width, s.pass.size());
    for (const probe::analysis::ir_stage& s : m.stages) {
      char idx[16];
      snprintf(idx, sizeof idx, "  %04u ", s.pass_index);
      std::string pass = s.pass + std::string(width - s.pass.size(), ' ');
      std::string stage = s.stage + std::string(s.stage.size() < 7 ? 7 - s.stage.size() : 0, ' ');
      const char* what = s.stage == "entry" ? "entry    " : s.stage == "before" ? "input    " : !s.changed_known ? "written  " : s.changed ? "changed  " : "unchanged";
      char lines[32];
      snprintf(lines, sizeof lines, "%5llu lines  ", static_cast<unsigned long long>(s.lines));
      out += idx + pass + "  " + stage + "  " + what + lines +
             (s.own_file ? s.file : "(same as " + s.file + ")") + "\n";
    }
  }
  return out;
}

}  // namespace probe_cli
