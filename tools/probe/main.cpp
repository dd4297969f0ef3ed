// probe: analyse what probe recorded. `probe help` lists the verbs.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include <probe/probe.hpp>

#include "verbs.hpp"

namespace probe_cli {
namespace {

const verb k_verbs[] = {
    {"regress", "find every change point in a series of benchmark results", run_regress},
    {"bisect-run", "one step of git bisect run: good/bad on a metric or on crashes", run_bisect_run},
    {"compare", "compare two dumps: per-tensor errors, first divergent op, root causes", run_compare},
    {"show", "print a .npy file, a dump's manifest or a snapshot as text", run_show},
    {nullptr, nullptr, nullptr},
};

int usage(FILE* out) {
  std::fprintf(out,
               "probe %s: analyse what probe recorded\n\n"
               "usage: probe VERB [options]   (probe VERB --help for a verb's options)\n\nverbs:\n",
               PROBE_VERSION_STRING);
  for (const verb& v : k_verbs)
    if (v.name) std::fprintf(out, "  %-12s %s\n", v.name, v.summary);
  return out == stdout ? 0 : 2;
}

}  // namespace
}  // namespace probe_cli

int main(int argc, char** argv) {
  using namespace probe_cli;
  if (argc < 2) return usage(stderr);
  const char* name = argv[1];
  if (!std::strcmp(name, "help") || !std::strcmp(name, "--help") || !std::strcmp(name, "-h"))
    return usage(stdout);
  if (!std::strcmp(name, "--version") || !std::strcmp(name, "version")) {
    std::printf("probe %s\n", PROBE_VERSION_STRING);
    return 0;
  }
  for (const verb& v : k_verbs) {
    if (!v.name || std::strcmp(v.name, name) != 0) continue;
    try {
      return v.run(argc - 1, argv + 1);
    } catch (const std::exception& e) {  // out of memory, mostly: a message and an exit code, not an abort
      // For bisect-run, 2 would mean "bad commit" to git bisect run; 128 stops the bisect.
      const int code = std::strcmp(v.name, "bisect-run") == 0 ? 128 : 2;
      const bool oom = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
      std::fprintf(stderr, "probe %s: %s; exit %d\n", v.name, oom ? "out of memory" : e.what(), code);
      return code;
    }
  }
  std::fprintf(stderr, "probe: unknown verb '%s'\n\n", name);
  return usage(stderr);
}
