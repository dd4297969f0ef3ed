// PROBE_FLAGS text: the tokenizer (quotes, escapes), every flag's value parser, flags files
// (a token that does not start with '-' names one; they may include each other), and what
// the flags imply. Parsed into a flag_state of its own, as probe::set_flags does, but
// without publishing it: published options would start effects, and --probe_strict_flags
// would end the process.
#include <probe/probe.hpp>

#include <string>
#include <vector>

#include <probe/core/flags.hpp>

#include "fuzz_input.hpp"

namespace {

void quiet(const char*, void*) {}

// Flags files a token may name (relative to the scratch folder, the working directory).
void make_flag_files() {
  const std::string& dir = probe_fuzz::scratch_dir();
  if (chdir(dir.c_str()) != 0) abort();
  probe_fuzz::write_file("self", "--probe_dump_to=x self # includes itself\n");
  probe_fuzz::write_file("a", "--probe_timing \"b\"\n");
  probe_fuzz::write_file("b", "'--probe_print' a\n");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  probe::set_log_sink(quiet);
  make_flag_files();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pd = probe::detail;
  const std::string text(probe_fuzz::as_text(data, size));
  std::vector<std::string> tokens;
  std::string error;
  if (!pd::tokenize(text.c_str(), tokens, &error)) return 0;
  // Files only from the scratch folder: no path reaches a device or a FIFO elsewhere.
  for (std::string& t : tokens)
    if (!t.empty() && t[0] != '-')
      for (char& c : t)
        if (c == '/') c = '_';
  pd::flag_state st;
  pd::parse_result r;
  pd::parse_tokens(st, tokens, 0, r);
  pd::derive_intent(st);
  (void)pd::compute_gate(st);
  pd::flags().said.clear();  // messages said once per process: keep the list from growing
  return 0;
}
