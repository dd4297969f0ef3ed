// `probe --version`: what a bug report needs to know about this binary. The build facts come
// from CMake as compile definitions of the probe_cli target (tools/CMakeLists.txt).
#include <string>

#include <probe/util/config.hpp>

#include "verbs.hpp"

#ifndef PROBE_CLI_COMPILER
#ifdef __VERSION__
#define PROBE_CLI_COMPILER __VERSION__
#else
#define PROBE_CLI_COMPILER "unknown"
#endif
#endif
#ifndef PROBE_CLI_BUILD_TYPE
#define PROBE_CLI_BUILD_TYPE ""
#endif
#ifndef PROBE_CLI_WITH_CUDA
#define PROBE_CLI_WITH_CUDA 0
#endif
#ifndef PROBE_CLI_CUDA_VERSION
#define PROBE_CLI_CUDA_VERSION ""
#endif

namespace probe_cli {

std::string version_text() {
  const std::string build_type = PROBE_CLI_BUILD_TYPE;
  const std::string cuda_version = PROBE_CLI_CUDA_VERSION;
  // The standard the compiler really used, whatever the build asked for.
  const long standard = __cplusplus;
  const char* cxx = standard > 202002L   ? "C++23"
                    : standard > 201703L ? "C++20"
                    : standard > 201402L ? "C++17"
                                         : "C++14";
  std::string out = std::string("probe ") + PROBE_VERSION_STRING + "\n";
  out += std::string("compiler: ") + PROBE_CLI_COMPILER + "\n";
  out += "build type: " + (build_type.empty() ? std::string("(none)") : build_type) + "\n";
  out += std::string("C++ standard: ") + cxx + " (__cplusplus " + std::to_string(standard) + ")\n";
  // Whether this build has probe's CUDA backend (probe::cuda), found at configure time.
  if (PROBE_CLI_WITH_CUDA)
    out += "CUDA support: yes" + (cuda_version.empty() ? std::string() : " (CUDA " + cuda_version + ")") + "\n";
  else out += "CUDA support: no\n";
  return out;
}

}  // namespace probe_cli
