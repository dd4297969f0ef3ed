// Run-time format strings (probe::detail::vformat_to, what probe::format and print use when
// the string is not a literal): any bytes as the format, against arguments of every kind,
// the first byte saying how many of them there are.
#include <probe/probe.hpp>

#include <string>

#include "fuzz_input.hpp"

namespace {
void quiet(const char*, void*) {}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  probe::set_log_sink(quiet);  // a bad format is logged once; no need to see it
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pd = probe::detail;
  if (size == 0) return 0;
  static const float values[6] = {1.5f, -2.0f, 0.0f, 1e30f, -1e-30f, 3.0f};
  static const char text[] = "text";
  static const std::string str = "str";
  const pd::format_arg args[] = {
      pd::make_format_arg(42),       pd::make_format_arg(-7LL),   pd::make_format_arg(3.25),
      pd::make_format_arg(1.5f),     pd::make_format_arg(text),   pd::make_format_arg(true),
      pd::make_format_arg('c'),      pd::make_format_arg(18446744073709551615ULL),
      pd::make_format_arg(&values),  pd::make_format_arg(values), pd::make_format_arg(str),
      {}};
  const int count = data[0] % 12;
  const std::string_view fmt = probe_fuzz::as_text(data + 1, size - 1);
  std::string out;
  if (!pd::vformat_to(out, fmt.data(), fmt.size(), args, count) && out.empty())
    __builtin_trap();  // a bad format says so in the output
  return 0;
}
