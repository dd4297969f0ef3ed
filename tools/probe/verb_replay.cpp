// probe replay: re-run snapshots alone, in the engine that recorded them (its registered
// kernels), by running the engine with the replay flags; or list snapshots.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include <probe/formats/snapshot.hpp>
#include <probe/util/text.hpp>

#include "analysis/dump_manifest.hpp"
#include "analysis/option_regex.hpp"
#include "engine_flags.hpp"
#include "options.hpp"
#include "verbs.hpp"

extern char** environ;

namespace probe_cli {
namespace {

const option_spec k_options[] = {
    flag("--list", "list the snapshots the operands hold (op, type, status, shapes, attributes); run nothing"),
    text("--op-re", "RE", "replay only snapshots whose 'op#occurrence' matches RE (a partial match)"),
    flag("--reference", "run each kernel's reference form (the engine sees --probe_reference)"),
    flag("--fake-data",
         "seeded random inputs with the recorded shapes, dtypes and value ranges; outputs are checked for NaN/Inf"),
    integer("--seed", "N", 0, 1e18, "seed of --fake-data").by_default("0"),
    integer("--iterations", "N", 0, 1e9, "time N more runs of each kernel alone: min, median, p95")
        .by_default("0: no timing"),
    number("--atol", "X", 0, 1e300, "absolute tolerance of every output").by_default("by dtype, as probe compare"),
    number("--rtol", "X", 0, 1e300, "relative tolerance of every output").by_default("by dtype, as probe compare"),
    flag("--write-mismatches", "write each mismatching output as replay.out.SLOT.npy in its snapshot folder"),
    flag("--isolate", "replay every snapshot in a child process (always done for ops that crashed or threw)"),
    flag("--require-kernels", "an op without a registered kernel is an error (exit 2); without it such ops are skipped"),
};

int bad_input(const std::string& message) {
  fprintf(stderr, "probe replay: %s\n", message.c_str());
  return 2;
}

std::string io_text(const std::vector<probe::snapshot::tensor_entry>& list) {
  std::string s;
  for (const auto& t : list) s += (s.empty() ? "" : ", ") + probe::detail::printable(t.slot) + " " + probe::snapshot::describe(t);
  return s.empty() ? "-" : s;
}

// What --op-re is matched against, as the engine selects (replay_all): 'op#occurrence', or
// the folder's name when the snapshot cannot be read (it is still listed, and replayed as an
// error, when that matches).
std::string folder_name(const std::string& dir) {
  const size_t slash = dir.rfind('/');
  return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

std::string no_match(const std::string& pattern) {
  return "no snapshot's op#occurrence matches --op-re " + probe::analysis::quoted_pattern(pattern);
}

// --list shows what a replay with the same --op-re would run. op_re is null without --op-re.
int list_snapshots(const std::vector<std::string>& operands, const probe::detail::regex* op_re,
                   const std::string& pattern) {
  struct line {
    std::string folder, key, type, status, io, attrs;
  };
  std::vector<line> lines;
  int code = 0;
  for (const std::string& p : operands) {
    std::vector<std::string> dirs;
    std::string error;
    if (!probe::snapshot::find(p, &dirs, &error)) return bad_input(error);
    for (const std::string& d : dirs) {
      probe::snapshot::info s;
      if (!probe::snapshot::read(d, &s, &error)) {
        if (op_re && !op_re->search(folder_name(d))) continue;
        lines.push_back({probe::detail::printable(d), "?", "?", "unreadable", probe::detail::printable(error), ""});
        code = 2;
        continue;
      }
      if (op_re && !op_re->search(s.key())) continue;
      lines.push_back({probe::detail::printable(d), probe::detail::printable(s.key()), probe::detail::printable(s.type),
                       s.status, io_text(s.inputs) + " -> " + io_text(s.outputs),
                       s.attrs.size() ? "  " + probe::analysis::attrs_text(s.attrs) : std::string()});
    }
  }
  // As the replay would: a pattern that selects nothing is an error, not an empty table.
  if (op_re && lines.empty()) return bad_input(no_match(pattern));
  size_t w[4] = {8, 6, 4, 8};
  for (const line& l : lines) {
    w[0] = std::max(w[0], probe::detail::text_columns(l.folder));
    w[1] = std::max(w[1], probe::detail::text_columns(l.key));
    w[2] = std::max(w[2], probe::detail::text_columns(l.type));
    w[3] = std::max(w[3], l.status.size());
  }
  auto pad = [](const std::string& s, size_t n) {
    const size_t c = probe::detail::text_columns(s);
    return c >= n ? s : s + std::string(n - c, ' ');
  };
  std::string out = pad("snapshot", w[0]) + "  " + pad("op", w[1]) + "  " + pad("type", w[2]) + "  " + pad("status", w[3]) +
                    "  inputs -> outputs  attributes\n";
  for (const line& l : lines)
    out += pad(l.folder, w[0]) + "  " + pad(l.key, w[1]) + "  " + pad(l.type, w[2]) + "  " + pad(l.status, w[3]) + "  " +
           l.io + l.attrs + "\n";
  out += std::to_string(lines.size()) + " snapshot" + (lines.size() == 1 ? "" : "s") + "\n";
  fputs(out.c_str(), stdout);
  return code;
}

// What one run of the engine in replay mode told: how it ended, and through its status
// descriptor which snapshots it finished and which one it was running.
struct engine_run {
  int code = 2;
  int signal = 0;
  bool replayed = false;           // it reached the end of the replay ("probe-replay-exit")
  std::vector<std::string> done;   // snapshot folders whose rows were printed
  std::string running;             // the folder in flight when it stopped ("" when none)
};

// Runs the engine with PROBE_FLAGS extended by the replay flags. The status descriptor is
// read while it runs (thousands of snapshots write more than a pipe holds).
bool run_engine(const std::vector<std::string>& command, const std::string& flags, engine_run* out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    bad_input(std::string("pipe: ") + strerror(errno));
    return false;
  }
  fcntl(fds[1], F_SETFD, 0);  // the engine inherits the write end: the replay reports through it
  std::vector<std::string> env;
  const char* old = getenv("PROBE_FLAGS");
  for (char** e = environ; *e; ++e)
    if (strncmp(*e, "PROBE_FLAGS=", 12) != 0 && strncmp(*e, "PROBE_REPLAY_STATUS_FD=", 23) != 0) env.push_back(*e);
  env.push_back("PROBE_FLAGS=" + std::string(old ? old : "") + " " + flags);
  env.push_back("PROBE_REPLAY_STATUS_FD=" + std::to_string(fds[1]));
  std::vector<char*> envp, argv;
  for (std::string& e : env) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  std::vector<std::string> words = command;
  for (std::string& a : words) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  fflush(stdout);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    bad_input("cannot run " + command[0] + ": " + strerror(rc));
    return false;
  }
  std::string said;
  char buf[4096];
  int status = 0;
  bool reaped = false;
  for (;;) {
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      fcntl(fds[0], F_SETFL, O_NONBLOCK);  // a process the engine left behind may hold the pipe
    }
    pollfd p{fds[0], POLLIN, 0};
    if (!reaped && poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) {
      said.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (reaped) break;
    // closed while the engine runs: wait for its end
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    reaped = true;
    break;
  }
  ::close(fds[0]);
  size_t at = 0;
  while (at < said.size()) {
    size_t end = said.find('\n', at);
    if (end == std::string::npos) end = said.size();
    const std::string line = said.substr(at, end - at);
    at = end + 1;
    auto after = [&](const char* prefix, std::string* rest) {
      const size_t n = strlen(prefix);
      if (line.compare(0, n, prefix) != 0) return false;
      *rest = line.substr(n);
      return true;
    };
    std::string dir;
    if (after("probe-replay-running ", &dir)) out->running = dir;
    if (after("probe-replay-done ", &dir)) {
      out->done.push_back(dir);
      out->running.clear();
    }
    if (after("probe-replay-exit ", &dir)) out->replayed = true;
  }
  if (WIFSIGNALED(status)) out->signal = WTERMSIG(status);
  out->code = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
  return true;
}

std::string folder_key(const std::string& dir) {
  probe::snapshot::info s;
  std::string error;
  return probe::snapshot::read(dir, &s, &error) ? s.key() : dir;
}

}  // namespace

const command_spec replay_command = {
    "replay",
    "re-run snapshots alone with the engine's registered kernels",
    "probe replay [options] SNAPSHOT... -- ENGINE [ARGS...]\n"
    "probe replay --list SNAPSHOT...",
    "Runs ENGINE with the replay flags (--probe_replay=SNAPSHOT...): at probe::init, or its first\n"
    "mark, the engine re-runs each selected snapshot's op alone with the kernel it registered\n"
    "(PROBE_KERNEL), compares the outputs with the recorded ones as probe compare would, prints\n"
    "a table and an answer, and exits; probe replay forwards its exit code. A SNAPSHOT is a\n"
    "snapshot folder, a dump folder (its snapshots/), an unpacked probe bundle, or a glob.\n"
    "Snapshots of ops that crashed or threw (status running or exception) run in a child\n"
    "process: their crash is reported, with its signal. Tolerances as probe compare: an element\n"
    "fails when |a - b| > atol + rtol * |b|, with per-dtype defaults.\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0 every output within tolerance (fake data: finite), 1 a mismatch, 2 an op that could not be\n"
    "      replayed (no kernel, unreadable snapshot, a crash) or bad input",
    2,
    "",
    operand_kind::words_then_command,
};

int run_replay(int argc, char** argv) {
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(replay_command, argc, argv, &args, &exit_code)) return exit_code;
  const std::vector<std::string>& snapshots = args.operands();
  if (snapshots.empty()) return usage_error(replay_command, "needs at least one SNAPSHOT; see --help");
  // The pattern is checked here, before anything runs, so that a mistake is told naming the
  // option typed, with the exit code of bad input, and not later by the engine under its flag.
  std::string op_re_text, error;
  probe::detail::regex op_re;
  const bool has_op_re = args.get("--op-re", &op_re_text);
  if (has_op_re && !probe::analysis::compile_option_regex("--op-re", op_re_text, &op_re, &error))
    return usage_error(replay_command, error);
  if (args.given("--list")) {
    if (!args.command().empty()) return usage_error(replay_command, "--list runs no engine: leave out '-- ENGINE'");
    return list_snapshots(snapshots, has_op_re ? &op_re : nullptr, op_re_text);
  }
  if (args.command().empty()) return usage_error(replay_command, "needs the engine to run: -- ENGINE [ARGS...]");
  std::string paths;
  for (const std::string& s : snapshots) {
    if (s.find('\n') != std::string::npos) return bad_input("a SNAPSHOT path holds a newline");
    paths += (paths.empty() ? "" : "\n") + s;
  }
  std::vector<std::string> dirs;
  if (!probe::snapshot::find(paths, &dirs, &error)) return bad_input(error);  // before starting the engine
  // A pattern that selects nothing, told here as --list tells it, before the engine prints
  // its table's header.
  if (has_op_re && std::none_of(dirs.begin(), dirs.end(), [&](const std::string& d) {
        probe::snapshot::info s;
        std::string unreadable;  // such a folder is matched by its name, as the engine does
        return op_re.search(probe::snapshot::read(d, &s, &unreadable) ? s.key() : folder_name(d));
      }))
    return bad_input(no_match(op_re_text));

  std::string common;  // every flag but the snapshots
  if (has_op_re) common += " " + flag_word("replay_op_re", op_re_text);
  if (args.given("--reference")) common += " --probe_reference";
  if (args.given("--fake-data")) common += " --probe_replay_fake_data";
  long long n = 0;
  if (args.get("--seed", &n)) common += " --probe_replay_seed=" + std::to_string(n);
  if (args.get("--iterations", &n)) common += " --probe_replay_iterations=" + std::to_string(n);
  // Tolerances as given: the engine parses the same text.
  if (args.given("--atol")) common += " " + flag_word("replay_atol", args.values("--atol").back());
  if (args.given("--rtol")) common += " " + flag_word("replay_rtol", args.values("--rtol").back());
  if (args.given("--write-mismatches")) common += " --probe_replay_write_mismatches";
  if (args.given("--require-kernels")) common += " --probe_replay_require_kernels";
  std::string flags = flag_word("replay", paths) + common;
  if (args.given("--isolate")) flags += " --probe_replay_isolate";
  engine_run first;
  if (!run_engine(args.command(), flags, &first)) return 2;
  if (first.signal) {
    // The engine died on a snapshot recorded as complete: its rows so far are on the screen;
    // name the op in flight, then replay the rest each in a child process, that op included.
    const std::string sig = std::to_string(first.signal) + " (" + strsignal(first.signal) + ")";
    std::string left;
    size_t count = 0;
    for (const std::string& d : dirs)
      if (std::find(first.done.begin(), first.done.end(), d) == first.done.end()) {
        left += (left.empty() ? "" : "\n") + d;
        ++count;
      }
    if (first.signal == SIGPIPE)  // what reads its output stopped (| head): not the kernel's crash
      return bad_input(args.command()[0] + " stopped: the reader of its output closed the pipe (signal " + sig + ")" +
                       (first.running.empty() ? std::string() : " while replaying " + folder_key(first.running)));
    if (first.running.empty() || count == 0)
      return bad_input(args.command()[0] + " died of signal " + sig);
    // (the engine selects among them again, --op-re included: no count is promised here)
    fprintf(stderr, "probe replay: %s died of signal %s while replaying %s (%s); the snapshots left are replayed each in a child process\n",
            args.command()[0].c_str(), sig.c_str(), probe::detail::printable(folder_key(first.running)).c_str(),
            probe::detail::printable(first.running).c_str());
    engine_run rest;
    if (!run_engine(args.command(), flag_word("replay", left) + common + " --probe_replay_isolate", &rest)) return 2;
    if (rest.signal) return bad_input(args.command()[0] + " died of signal " + std::to_string(rest.signal) + " again");
    return 2;  // an op crashed: it could not be replayed
  }
  if (!first.replayed)
    return bad_input(args.command()[0] + " exited with status " + std::to_string(first.code) +
                     " without replaying: it must call probe::init(argc, argv) or mark an op, with probe built in "
                     "(not PROBE_DISABLE)");
  return first.code;
}

}  // namespace probe_cli
