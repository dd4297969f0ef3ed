// Engine IR marks with dumping off, as ratios against the same pipeline unmarked, in one run:
//   a module of 8 tiny passes marked with probe::ir_module / probe::ir_pass   (flags off)
//   the same with dumping on and the module filtered out (--probe_dump_module_re)
// Each pass does a little work (16 adds) so the figure is the marks' cost per pass, which is
// one test of the module state at each end of a pass (its printer is never called).
#include <probe/probe.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness.hpp"

namespace {

int g_ir[16];
long g_printed = 0;

PROBE_NOINLINE void pass_body(int k) {
  for (int& v : g_ir) v += k;
}

PROBE_NOINLINE void plain_pipeline() {
  for (int k = 0; k < 8; ++k) pass_body(k);
}

const char* const k_pass_names[8] = {"fold", "dce", "cse", "fusion", "layout", "dce", "schedule", "alloc"};

PROBE_NOINLINE void marked_pipeline() {
  probe::ir_module m("bench.module", 16, [](probe::ir_out& out) {
    ++g_printed;
    out << "ir\n";
  });
  for (int k = 0; k < 8; ++k) {
    probe::ir_pass p(m, k_pass_names[k]);
    pass_body(k);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const long iters = 200000;

  std::printf("== engine IR marks, flags off (8 passes per module)\n");
  probe::set_flags("");
  bench::time_pair_ns(marked_pipeline, plain_pipeline, iters, 3);  // warm-up: clocks and caches settle
  auto off = bench::time_pair_ns(marked_pipeline, plain_pipeline, iters / 10, 31);
  bench::print_pair("module + 8 marked passes, flags off", off, "the same 8 passes unmarked");
  std::printf("%-48s %.3f ns\n", "per pass, flags off", (off.first.median - off.second.median) / 8);

  std::printf("== dumping on, module filtered out (--probe_dump_module_re)\n");
  const std::string dir = "/tmp/probe_bench_ir_" + std::to_string(static_cast<long>(getpid()));
  probe::set_flags(("--probe_dump_to=" + dir + " --probe_dump_module_re=^nothing$ --probe_dump_pass_re=.*").c_str());
  auto filtered = bench::time_pair_ns(marked_pipeline, plain_pipeline, iters / 10, 11);
  bench::print_pair("module + 8 marked passes, module filtered", filtered, "the same 8 passes unmarked");
  std::printf("%-48s %.3f ns\n", "per module (its name matched once)", filtered.first.median - filtered.second.median);
  probe::set_flags("");
  std::system(("rm -rf '" + dir + "'").c_str());
  std::printf("%-48s %ld (must be 0)\n", "printer calls", g_printed);
  return g_printed == 0 ? 0 : 1;
}
