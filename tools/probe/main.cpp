// probe: analyse what probe recorded. `probe help` lists the verbs.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <probe/probe.hpp>
#include <probe/core/flags.hpp>
#include <probe/util/text.hpp>

#include "options.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const verb k_verbs[] = {
    {&regress_command, run_regress},
    {&bisect_run_command, run_bisect_run},
    {&compare_command, run_compare},
    {&show_command, run_show},
    {&replay_command, run_replay},
    {&bundle_command, run_bundle},
    {&jitter_command, run_jitter},
    {&diff_ir_command, run_diff_ir},
};

int usage(FILE* out) {
  std::fprintf(out,
               "probe %s: analyse what probe recorded\n\n"
               "usage: probe VERB [options]   (probe help VERB, or probe VERB --help, for a verb's options)\n"
               "       probe --version        (the version and how this probe was built)\n"
               "       probe --probe_help     (the PROBE_FLAGS an instrumented program reads)\n\nverbs:\n",
               PROBE_VERSION_STRING);
  for (const verb& v : k_verbs) std::fprintf(out, "  %-12s %s\n", v.spec->verb, v.spec->summary);
  return out == stdout ? 0 : 2;
}

const verb* find_verb(const char* name) {
  for (const verb& v : k_verbs)
    if (std::strcmp(v.spec->verb, name) == 0) return &v;
  return nullptr;
}

int unknown_verb(const char* name) {
  std::vector<std::string> names;
  for (const verb& v : k_verbs) names.push_back(v.spec->verb);
  const std::string close = closest_match(name, names);
  std::fprintf(stderr, "probe: unknown verb '%s'%s\n\n", probe::detail::printable(name).c_str(),
               close.empty() ? "" : (" (did you mean " + close + "?)").c_str());
  return usage(stderr);
}

// probe help [VERB [--markdown]]
int help(int argc, char** argv) {
  if (argc < 3) return usage(stdout);
  const verb* v = find_verb(argv[2]);
  if (!v) return unknown_verb(argv[2]);
  const bool markdown = argc == 4 && std::strcmp(argv[3], "--markdown") == 0;
  if (argc > 4 || (argc == 4 && !markdown)) {
    std::fprintf(stderr, "probe help: unexpected '%s' (probe help VERB [--markdown])\n",
                 probe::detail::printable(argv[argc == 4 ? 3 : 4]).c_str());
    return 2;
  }
  std::fputs((markdown ? markdown_options(*v->spec) : help_text(*v->spec)).c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace probe_cli

int main(int argc, char** argv) {
  using namespace probe_cli;
  if (argc < 2) return usage(stderr);
  const char* name = argv[1];
  if (!std::strcmp(name, "help") || !std::strcmp(name, "--help") || !std::strcmp(name, "-h")) return help(argc, argv);
  if (!std::strcmp(name, "--probe_help")) {
    probe::detail::print_flag_help(stdout);
    return 0;
  }
  if (!std::strcmp(name, "--version") || !std::strcmp(name, "version")) {
    std::fputs(version_text().c_str(), stdout);
    return 0;
  }
  const verb* v = find_verb(name);
  if (!v) return unknown_verb(name);
  try {
    return v->run(argc - 1, argv + 1);
  } catch (const std::exception& e) {  // out of memory, mostly: a message and an exit code, not an abort
    // For bisect-run, 2 would mean "bad commit" to git bisect run; its usage exit (128) stops the bisect.
    const int code = v->spec->usage_exit;
    const bool oom = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
    std::fprintf(stderr, "probe %s: %s; exit %d\n", v->spec->verb,
                 oom ? "out of memory" : probe::detail::printable(e.what()).c_str(), code);
    return code;
  }
}
