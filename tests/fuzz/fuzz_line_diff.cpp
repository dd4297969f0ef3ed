// probe diff-ir's line diff on any two texts (split at the first NUL byte): the diff applied
// back to the first text must give the second (tests/analysis/unified_diff_apply.hpp), and
// "same" must mean the same bytes. A small edit cap sends larger inputs down the refusal path.
#include <string>
#include <string_view>

#include "../analysis/unified_diff_apply.hpp"
#include "analysis/line_diff.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view b;
  const std::string_view a = probe_fuzz::split_first(probe_fuzz::as_text(data, size), '\0', &b);
  const size_t context = size % 4;
  const probe::analysis::line_diff_result r = probe::analysis::unified_diff(a, b, "a", "b", context, 200);
  if (r.same != (a == b)) __builtin_trap();
  if (r.same || r.too_large) return 0;
  std::string back;
  if (!diff_apply::apply(a, r.text, &back) || back != b) __builtin_trap();
  return 0;
}
