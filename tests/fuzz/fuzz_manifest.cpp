// Dump manifests (manifest.jsonl): the records' fields, file names that must stay in the
// folder, a cut-short last line; then what show and compare --nonfinite make of the run, and
// the engine IR stages that probe show --passes and probe diff-ir find in the same file.
#include <probe/probe.hpp>

#include <string>

#include "analysis/dump_manifest.hpp"
#include "analysis/ir_stages.hpp"
#include "fuzz_input.hpp"

namespace {

// Whether a relative path, taken part by part, ever climbs above where it starts.
bool leaves_folder(const std::string& rel) {
  if (!rel.empty() && rel[0] == '/') return true;
  int depth = 0;
  size_t at = 0;
  while (at <= rel.size()) {
    size_t end = rel.find('/', at);
    if (end == std::string::npos) end = rel.size();
    const std::string part = rel.substr(at, end - at);
    if (part == "..") {
      if (--depth < 0) return true;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    at = end + 1;
  }
  return false;
}

}  // namespace

namespace {

void read_ir(const std::string& text) {
  namespace pa = probe::analysis;
  static const std::string dir = probe_fuzz::scratch_dir();
  probe_fuzz::write_file(dir + "/manifest.jsonl", text);
  std::vector<pa::ir_module_dump> mods;
  std::string error;
  if (!pa::read_ir_stages(dir, &mods, &error)) {
    if (error.empty()) __builtin_trap();  // a refusal says why
    return;
  }
  for (const pa::ir_module_dump& m : mods) {
    for (const pa::ir_stage& s : m.stages)
      if (s.file.find('/') != std::string::npos || s.file == "." || s.file == "..") __builtin_trap();  // outside the folder
    if (pa::find_ir_module(mods, std::to_string(m.id), &error) != &m) __builtin_trap();  // an id names its module
    (void)pa::find_ir_module(mods, m.name, &error);
    for (const char* want : {"entry", "exit", "0", "3", "3:before", "fusion", "fusion:after"}) (void)pa::find_ir_stage(m, want, &error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pa = probe::analysis;
  const std::string text(probe_fuzz::as_text(data, size));
  read_ir(text);
  pa::dump_run run;
  std::string error;
  if (!pa::parse_manifest(text, "run", "run/manifest.jsonl", &run, &error)) {
    if (error.empty()) __builtin_trap();  // a refusal says why
    return 0;
  }
  for (const pa::dump_tensor& t : run.tensors) {
    if (!t.file.empty() && (t.file.compare(0, 4, "run/") != 0 || leaves_folder(t.file.substr(4))))
      __builtin_trap();  // a data file outside the run folder
    volatile size_t sink = t.op_key().size() + static_cast<size_t>(t.ndim);
    (void)sink;
  }
  return 0;
}
