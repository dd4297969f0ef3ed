// The verbs of the probe CLI. Each takes the arguments after the verb (argv[0] is the verb)
// and returns the process exit code its help documents; its command_spec (the option table)
// drives its parsing, `probe help VERB` and the option tables of docs/cli-*.md.
#pragma once
#include <string>

#include "options.hpp"

namespace probe_cli {

struct verb {
  const command_spec* spec;
  int (*run)(int argc, char** argv);
};

extern const command_spec regress_command;     // verb_regress.cpp
extern const command_spec bisect_run_command;  // verb_bisect_run.cpp
extern const command_spec compare_command;     // verb_compare.cpp
extern const command_spec show_command;        // verb_show.cpp
extern const command_spec replay_command;      // verb_replay.cpp
extern const command_spec bundle_command;      // verb_bundle.cpp
extern const command_spec jitter_command;      // verb_jitter.cpp
extern const command_spec diff_ir_command;     // verb_diff_ir.cpp

int run_regress(int argc, char** argv);
int run_bisect_run(int argc, char** argv);
int run_compare(int argc, char** argv);
int run_show(int argc, char** argv);
int run_replay(int argc, char** argv);
int run_bundle(int argc, char** argv);
int run_jitter(int argc, char** argv);
int run_diff_ir(int argc, char** argv);

// `probe --version`: the version, then how this binary was built (version.cpp).
std::string version_text();

}  // namespace probe_cli
