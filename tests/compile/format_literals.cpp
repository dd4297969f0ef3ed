// Format strings checked at compile time (C++20 consteval): every literal here is valid, so
// this TU compiles; format_errors.cpp holds the invalid ones.
#include <probe/probe.hpp>

#include <string>
#include <vector>

std::string format_literals_compile(int i, double d, const std::vector<float>& v) {
  std::string s = probe::format("i={} d={:8.3f} v={} {{escaped}}", i, d, v);
  s += probe::format("{1} {0} {1:>4}", i, d);
  s += probe::format("no placeholders");
  s += probe::format(probe::runtime_format(s), 1);  // run-time strings opt out of the check
  probe::format_to(s, "{:#x}", i);
  return s;
}
