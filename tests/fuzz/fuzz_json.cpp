// probe's JSON reader (manifests, snapshots, regress and compare inputs): any bytes, then
// every accessor the CLI uses on what it returns.
#include <probe/probe.hpp>

#include <string>

#include <probe/formats/json.hpp>

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
  if (probe::json::parse(text, v, &error)) {
    volatile size_t sink = walk(v, 0);
    (void)sink;
  } else if (error.empty()) {
    __builtin_trap();  // a refusal says why
  }
  return 0;
}
