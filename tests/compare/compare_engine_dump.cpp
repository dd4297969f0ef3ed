// Writes a dump of the reference engine, for the CLI test:
//   compare_engine_dump DIR [--reference] [--plant wrong_norm|nan_act] [--f16] [--extra]
//                           [--reshape] [--steps N] [--snapshots] [--max-ops N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "reference_engine.hpp"

int main(int argc, char** argv) {
  using namespace compare_test;
  if (argc < 2) {
    std::fprintf(stderr, "usage: compare_engine_dump DIR [options]\n");
    return 2;
  }
  engine_options o;
  bool reference = false, half = false;
  int steps = 1;
  std::string flags;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reference") reference = true;
    else if (a == "--f16") half = true;
    else if (a == "--extra") o.extra_op = true;
    else if (a == "--reshape") o.reshape_pool = true;
    else if (a == "--snapshots") flags += " --probe_dump_snapshots";
    else if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--max-ops" && i + 1 < argc) flags += std::string(" --probe_dump_max_ops=") + argv[++i];
    else if (a == "--plant" && i + 1 < argc) {
      const std::string p = argv[++i];
      o.planted = p == "wrong_norm" ? plant::wrong_norm : p == "nan_act" ? plant::nan_act : plant::none;
    } else {
      std::fprintf(stderr, "compare_engine_dump: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (half) dump_run<probe::float16>(argv[1], reference, o, steps, flags);
  else dump_run<float>(argv[1], reference, o, steps, flags);
  return 0;
}
