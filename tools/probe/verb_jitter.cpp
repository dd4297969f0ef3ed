// probe jitter: run one program several times with a dump each, and name the ops whose
// outputs differ between runs while their inputs match (non-deterministic algorithms), before
// a compare of two builds is read as a bug.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "analysis/jitter.hpp"

#include "compare_dumps.hpp"
#include "engine_flags.hpp"
#include "file_output.hpp"
#include "options.hpp"
#include "subprocess.hpp"
#include "terminal_text.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const option_spec k_options[] = {
    integer("--runs", "N", 2, 1000, "runs of the program; every later run is compared with the first").by_default("3"),
    number("--atol", "X", 0, 1e300, "absolute tolerance: a difference within it is no jitter").by_default("0 (exact)"),
    number("--rtol", "X", 0, 1e300, "relative tolerance").by_default("0 (exact)"),
    text("--json", "FILE", "write the report as JSON ('-' = stdout, instead of the text)"),
    flag("--keep", "keep the runs' dumps (their folder is printed); without it they are removed"),
    flag("--quiet", "no text report"),
};

int bad_input(const std::string& message) {
  print_error("jitter", message);
  return 2;
}

// Removes what the runs wrote under `root` (dump folders of probe's own making), without
// following links.
void remove_tree(const std::string& root) {
  const int flags = FTW_DEPTH | FTW_PHYS | FTW_MOUNT;
  // Going on past what cannot be removed: the check below says so once.
  const auto remove_one = [](const char* path, const struct stat*, int, struct FTW*) {
    (void)::remove(path);
    return 0;
  };
  if (nftw(root.c_str(), remove_one, 16, flags) != 0 || access(root.c_str(), F_OK) == 0)
    fprintf(stderr, "probe jitter: could not remove all of %s\n", root.c_str());
}

}  // namespace

const command_spec jitter_command = {
    "jitter",
    "run a program several times and name the ops whose outputs differ between runs",
    "probe jitter [options] -- PROGRAM [ARGS...]",
    "Runs PROGRAM --runs times (default 3) with its PROBE_FLAGS plus a dump into a folder of its\n"
    "own (--probe_dump_to=... --probe_dump_as_npy), compares every later run with the first as\n"
    "probe compare does, and reports each op whose output differs between runs while its inputs\n"
    "match: a non-deterministic algorithm (atomics, a reduction in thread-completion order), with\n"
    "its spread; then the ops that only inherit the difference, and inputs nothing produced that\n"
    "differ (the program fed other data). Tolerances are exact unless given. Rule this out before\n"
    "reading a compare of two builds: --probe_reproducible asks the engine for deterministic\n"
    "algorithms (probe::reproducible_mode()).\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0 every run agrees, 1 some op differs between runs, 2 bad input (or the program failed)",
    2,
    "",
    operand_kind::command_after_dashdash,
};

int run_jitter(int argc, char** argv) {
  namespace pa = probe::analysis;
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(jitter_command, argc, argv, &args, &exit_code)) return exit_code;
  if (args.command().empty()) return usage_error(jitter_command, "needs the program to run: -- PROGRAM [ARGS...]");
  size_t runs = 3;
  args.get("--runs", &runs);
  pa::compare_settings s;
  s.tol.atol = 0;
  s.tol.rtol = 0;
  args.get("--atol", &s.tol.atol);
  args.get("--rtol", &s.tol.rtol);
  std::string json_path, error;
  args.get("--json", &json_path);

  const char* tmp = getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/probe-jitter-XXXXXX";
  if (!mkdtemp(&pattern[0])) return bad_input("cannot make a folder for the runs: " + std::string(strerror(errno)));
  const std::string root = pattern;
  const char* old = getenv("PROBE_FLAGS");
  const std::string user_flags = old ? old : "";

  pa::jitter_report j;
  j.runs = runs;
  int code = 0;
  for (size_t k = 0; k < runs && code == 0; ++k) {
    const std::string dir = root + "/run_" + std::to_string(k);
    const std::string flags = user_flags + " " + flag_word("dump_to", dir) + " --probe_dump_as_npy";
    setenv("PROBE_FLAGS", flags.c_str(), 1);
    const probe::analysis::process_outcome o = run_process(args.command(), 0);
    if (!o.started) {
      code = bad_input("cannot run " + args.command()[0] + ": " + o.spawn_error);
    } else if (!o.exited || o.exit_code != 0) {
      const std::string how = o.exited ? "exited with status " + std::to_string(o.exit_code)
                                       : "died of signal " + std::to_string(o.signal);
      const size_t tail = o.output.size() > 2000 ? o.output.size() - 2000 : 0;
      fputs(o.output.c_str() + tail, stderr);
      code = bad_input("run " + std::to_string(k + 1) + " of " + args.command()[0] + " " + how);
    } else if (struct stat st; ::stat(dir.c_str(), &st) != 0) {
      code = bad_input(args.command()[0] + " wrote no probe dump: it marks no op, or does not read PROBE_FLAGS "
                       "(probe reads them at the first mark, or at probe::init)");
    }
  }
  if (old) setenv("PROBE_FLAGS", old, 1); else unsetenv("PROBE_FLAGS");
  for (size_t k = 1; k < runs && code == 0; ++k) {
    j.add(compare_dumps(root + "/run_" + std::to_string(k), root + "/run_0", s));
    if (!j.error.empty()) code = bad_input(j.error);
  }
  if (args.given("--keep")) j.notes.push_back("The runs' dumps are kept in " + root + " (run_0 is the first).");
  else remove_tree(root);
  if (code != 0) return code;

  if (json_path == "-") fputs(pa::jitter_json(j).c_str(), stdout);
  else if (!args.given("--quiet")) fputs(terminal_lines(pa::jitter_text(j)).c_str(), stdout);
  fflush(stdout);
  if (!json_path.empty() && json_path != "-" && !write_report_file(json_path, pa::jitter_json(j), &error))
    return bad_input(error);
  return j.exit_code();
}

}  // namespace probe_cli
