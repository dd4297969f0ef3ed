// The verbs of the probe CLI. Each takes the arguments after the verb (argv[0] is the verb)
// and returns the process exit code documented in its usage text.
#pragma once

namespace probe_cli {

struct verb {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
};

}  // namespace probe_cli
