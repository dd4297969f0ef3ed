// The verbs of the probe CLI. Each takes the arguments after the verb (argv[0] is the verb)
// and returns the process exit code documented in its usage text.
#pragma once

namespace probe_cli {

struct verb {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
};

int run_regress(int argc, char** argv);     // verb_regress.cpp
int run_bisect_run(int argc, char** argv);  // verb_bisect_run.cpp
int run_compare(int argc, char** argv);     // verb_compare.cpp
int run_show(int argc, char** argv);        // verb_show.cpp

}  // namespace probe_cli
