// What a scripted breakpoint reads: the --probe_break_if condition (its first line), and a
// --probe_breakpoint_commands file (the rest): its '@' headers, matched against a stop, and
// the prompt commands of the blocks that match, run by the prompt over a stop of three
// frames. The prompt's 'dump' writes files: the commands run in a scratch folder (the
// working directory from the start, so corpus folders are given as absolute paths, as
// scripts/fuzz.sh and ctest give them), with '/' made '_' so that no path leaves it.
#include <probe/probe.hpp>

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include <probe/effects/breakpoint_frames.hpp>
#include <probe/effects/breakpoint_prompt.hpp>
#include <probe/effects/breakpoint_when.hpp>

#include "fuzz_input.hpp"

namespace {

namespace pd = probe::detail;

void quiet_log(const char*, void*) {}
void discard(void*, const char*, size_t) {}

struct fixture {
  std::vector<float> x = std::vector<float>(2 * 3 * 4, 0.25f);
  std::vector<double> z{0.0, -1.5, 1e300, -0.0};
  std::vector<int32_t> k{7, -8, 9};
  int step = 3;
  pd::stop_info stop;

  std::string run_dir;  // the working directory of the prompt's commands

  void clear_run_dir() {
    nftw(run_dir.c_str(), probe_fuzz::detail::remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (mkdir(run_dir.c_str(), 0700) != 0 || chdir(run_dir.c_str()) != 0) abort();
  }

  fixture() {
    const std::string& dir = probe_fuzz::scratch_dir();
    if (chdir(dir.c_str()) != 0) abort();
    std::string source;
    for (int i = 1; i <= 40; ++i) source += "source line " + std::to_string(i) + "\n";
    probe_fuzz::write_file("model.cpp", source);
    stop.reason = "breakpoint";
    stop.step = 3;
    stop.hit = 2;
    pd::frame bp;
    bp.kind = pd::frame_kind::breakpoint;
    bp.name = "forward";
    bp.file = dir + "/model.cpp";
    bp.line = 12;
    pd::add_var(bp, "x", probe::view(x.data(), {2, 3, 4}));
    pd::add_var(bp, "step", probe::view(&step, probe::dims()));
    pd::frame op;
    op.kind = pd::frame_kind::op;
    op.name = "L1.conv";
    op.type = "Conv";
    op.seq = 5;
    pd::add_var(op, "z", probe::view(z.data(), {2, 2}));
    pd::add_var(op, "k", probe::view(k.data(), {3}));
    pd::frame scope;
    scope.kind = pd::frame_kind::scope;
    scope.name = "block";
    scope.type = "run_block";
    scope.file = "elsewhere.cpp";  // no such file: 'list' says so
    scope.line = 99;
    stop.frames = {bp, op, scope};
    run_dir = dir + "/run";
    if (mkdir(run_dir.c_str(), 0700) != 0 || chdir(run_dir.c_str()) != 0) abort();
  }
};

fixture& the_fixture() {
  static fixture fx;
  return fx;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  probe::set_log_sink(quiet_log);
  (void)the_fixture();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fixture& fx = the_fixture();
  std::string_view script;
  const std::string condition(probe_fuzz::split_first(probe_fuzz::as_text(data, size), '\n', &script));

  pd::when_condition when;
  std::string err;
  if (pd::parse_when(condition, &when, &err)) {
    const char* names[] = {"L1.conv", "", nullptr};
    for (const char* name : names)
      for (int64_t step : {int64_t(-1), int64_t(0), int64_t(3), INT64_MAX})
        (void)pd::when_holds(when, pd::when_facts{name, name, step, static_cast<uint64_t>(step)});
  }

  std::string text(script);
  for (char& c : text)
    if (c == '/') c = '_';
  std::vector<pd::command_block> blocks;
  if (!pd::parse_command_blocks(text, &blocks, &err)) return 0;
  std::string commands = pd::commands_for_stop(blocks, fx.stop);
  if (commands.empty()) return 0;
  FILE* in = fmemopen(&commands[0], commands.size(), "r");
  if (!in) return 0;
  pd::prompt_io io;
  io.in = in;
  io.echo = true;
  io.write = &discard;
  io.source_name = "the fuzzer";
  pd::stop_info stop = fx.stop;  // the prompt moves between frames: each input starts afresh
  (void)pd::run_prompt(stop, io);
  fclose(in);
  if (commands.find("dump") != std::string::npos) fx.clear_run_dir();  // files 'dump' wrote
  return 0;
}
