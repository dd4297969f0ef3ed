// Dump manifests (manifest.jsonl): the records' fields, file names that must stay in the
// folder, a cut-short last line; then what show and compare --nonfinite make of the run.
#include <probe/probe.hpp>

#include <string>

#include "analysis/dump_manifest.hpp"
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pa = probe::analysis;
  const std::string text(probe_fuzz::as_text(data, size));
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
