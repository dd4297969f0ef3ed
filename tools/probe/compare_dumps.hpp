// The compare engine as one out-of-line function of the CLI, defined in verb_compare.cpp:
// every verb that compares dumps (compare, jitter) calls it, so the engine's inline code is
// compiled once for the binary instead of once per verb.
#pragma once
#include <string>

#include "analysis/compare_run.hpp"

namespace probe_cli {

probe::analysis::compare_report compare_dumps(const std::string& a, const std::string& b,
                                              const probe::analysis::compare_settings& settings);

}  // namespace probe_cli
