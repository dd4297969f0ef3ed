// Each FORMAT_ERROR_CASE is a literal format string that must not compile under C++20 (the
// tests check the compiler's message names the problem).
#include <probe/probe.hpp>

#include <string>

std::string format_error_case(int a, int b) {
#if FORMAT_ERROR_CASE == 1
  return probe::format("{} {}", a);
#elif FORMAT_ERROR_CASE == 2
  return probe::format("{}", a, b);
#elif FORMAT_ERROR_CASE == 3
  return probe::format("{:q}", a);
#elif FORMAT_ERROR_CASE == 4
  return probe::format("x={", a);
#elif FORMAT_ERROR_CASE == 5
  return probe::format("{0} {}", a, b);
#elif FORMAT_ERROR_CASE == 6
  return probe::format("{2}", a, b);
#else
  return probe::format("} {}", a + b);
#endif
}
