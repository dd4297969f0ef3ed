// probe's JSON reader (manifests, snapshots, regress and compare inputs): any bytes, then
// every accessor the CLI uses on what it returns; and the manifest reader's flat tape
// (tools/analysis/json_tape.hpp), which must accept the same bytes and read the same values.
#include <probe/probe.hpp>

#include <string>

#include <probe/formats/json.hpp>

#include "analysis/json_tape.hpp"

#include "fuzz_input.hpp"

namespace {

size_t walk(const probe::json::value& v, int depth) {
  size_t n = 1;
  if (depth > 200) return n;
  if (v.is_string()) n += v.as_string().size();
  if (v.is_number()) n += static_cast<size_t>(v.as_double() != 0) + static_cast<size_t>(v.as_int() & 1);
  for (size_t i = 0; i < v.size(); ++i) n += walk(v[i], depth + 1);
  if (v.is_object()) {
    n += v.get_string("key").size() + static_cast<size_t>(v.get_int("seq") & 1);
    if (const probe::json::value* f = v.find("file")) n += walk(*f, depth + 1);
    n += walk(v.get("shape"), depth + 1);
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(probe_fuzz::as_text(data, size));
  probe::json::value v;
  std::string error;
  const bool parsed = probe::json::parse(text, v, &error);
  if (parsed) {
    volatile size_t sink = walk(v, 0);
    (void)sink;
  } else if (error.empty()) {
    __builtin_trap();  // a refusal says why
  }
  probe::analysis::json_tape tape;
  if (tape.parse(text.data(), text.size()) != parsed) __builtin_trap();  // the two readers disagree
  if (parsed && probe::json::to_string(tape.root().to_value()) != probe::json::to_string(v)) __builtin_trap();
  return 0;
}
