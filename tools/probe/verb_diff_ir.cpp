// probe diff-ir: a unified diff between two stages of one engine module's IR in a dump.
#include <stdio.h>

#include <string>
#include <vector>

#include <probe/probe.hpp>

#include "analysis/ir_stages.hpp"
#include "analysis/line_diff.hpp"

#include "ir_report.hpp"
#include "options.hpp"
#include "terminal_text.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

namespace pa = probe::analysis;

const option_spec k_options[] = {
    integer("--context", "N", 0, 1000000, "lines of context around each change").by_default("3"),
};

int bad_input(const std::string& message) {
  print_error("diff-ir", message);
  return 2;
}

}  // namespace

const command_spec diff_ir_command = {
    "diff-ir",
    "a unified diff between two stages of an engine module's IR in a dump",
    "probe diff-ir [options] DIR MODULE STAGE_A STAGE_B",
    "Diffs the IR an engine wrote with probe::ir_module / probe::ir_pass (see probe show DIR\n"
    "--passes for what a dump holds). DIR: the dump folder (or one rank's folder). MODULE: its\n"
    "id (3 or module_0003; an id wins over a module named by that number) or its name. A STAGE\n"
    "is the IR after a pass, named by the pass's\n"
    "name or index; 'entry' and 'exit' are the module as it entered and left the pipeline.\n"
    "A pass that changed nothing is read\n"
    "from the file it equals. Past 5000 differing lines the diff is not computed (the exit\n"
    "code still says the stages differ).\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0 the stages are the same, 1 they differ, 2 bad input",
    2,
    "",
    operand_kind::words,
};

int run_diff_ir(int argc, char** argv) {
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(diff_ir_command, argc, argv, &args, &exit_code)) return exit_code;
  const std::vector<std::string>& ops = args.operands();
  if (ops.size() != 4) return usage_error(diff_ir_command, "needs DIR MODULE STAGE_A STAGE_B; see --help");
  long long context = 3;
  args.get("--context", &context);
  const std::string& dir = ops[0];
  if (!pa::is_dir(dir)) return bad_input(pa::path_problem(dir));
  const std::vector<std::string> runs = ir_run_dirs(dir);
  if (runs.empty()) return bad_input(dir + ": no manifest.jsonl in it or in its subfolders");
  if (runs.size() > 1) return bad_input(dir + ": holds several runs (rank folders); name one of them");
  std::vector<pa::ir_module_dump> mods;
  std::string error;
  if (!pa::read_ir_stages(runs[0], &mods, &error)) return bad_input(error);
  const pa::ir_module_dump* m = pa::find_ir_module(mods, ops[1], &error);
  if (!m) return bad_input(runs[0] + ": " + error);
  const pa::ir_stage* a = pa::find_ir_stage(*m, ops[2], &error);
  if (!a) return bad_input(error);
  const pa::ir_stage* b = pa::find_ir_stage(*m, ops[3], &error);
  if (!b) return bad_input(error);
  std::string ta, tb;
  if (!pa::read_regular_file(pa::join(runs[0], a->file), &ta, &error, size_t{1} << 30)) return bad_input(error);
  if (!pa::read_regular_file(pa::join(runs[0], b->file), &tb, &error, size_t{1} << 30)) return bad_input(error);
  const pa::line_diff_result r = pa::unified_diff(ta, tb, a->file, b->file, static_cast<size_t>(context));
  if (r.same) {
    printf("module %u %s: %s and %s are the same IR (%llu lines)\n", m->id, probe::detail::printable(m->name).c_str(),
           ops[2].c_str(), ops[3].c_str(), static_cast<unsigned long long>(a->lines));
    return 0;
  }
  if (r.too_large) {
    printf("module %u: %s and %s differ in more than %ld lines; diff them with a tool of your own:\n  %s\n  %s\n", m->id,
           ops[2].c_str(), ops[3].c_str(), pa::k_max_edits, pa::join(runs[0], a->file).c_str(), pa::join(runs[0], b->file).c_str());
    return 1;
  }
  fputs(terminal_lines(r.text).c_str(), stdout);
  return 1;
}

}  // namespace probe_cli
