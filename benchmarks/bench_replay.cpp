// Replay speed, each against baselines measured in the same run (benchmarks/README.md,
// "replay"):
//  1. replaying the snapshot of an op on a 64 MiB float32 tensor (y = 2x + 1: find and read
//     snapshot.json, read the input, allocate the output, run the kernel, read the recorded
//     output, compare, free) vs the sum of its necessary parts timed on their own: npy::read
//     of the input (and its free), the kernel into a warm buffer, and the compare (npy::read
//     of the recorded output + check_close, and its free). Target: <= 1.3x.
//  2. a marked op (with an attribute) in a program that registered kernels, replay off, vs
//     the same loop unmarked. Target: <= 1 ns more.
// The directory is $BENCH_DIR (default /tmp). Arguments "replay", "off" run only that part.
#include <probe/probe.hpp>
#include <probe/core/context.hpp>
#include <probe/effects/replay_kernel.hpp>
#include <probe/effects/replay_run.hpp>
#include <probe/formats/npy.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

void affine(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 2 * x[i] + 1;
}

PROBE_KERNEL("Affine", [](probe::replay_context& ctx) {
  auto x = ctx.input<float>("x");
  affine(x.data(), ctx.output<float>("y", x.shape()).data(), x.size());
});
// More registrations, as an engine would have: they cost nothing while replay is off.
PROBE_KERNEL("Mul", [](probe::replay_context&) {});
PROBE_KERNEL("LayerNorm", [](probe::replay_context&) {});
PROBE_KERNEL("Softmax", [](probe::replay_context&) {});

void remove_tree(const std::string& dir) {
  if (std::system(("rm -rf '" + dir + "'").c_str()) != 0) std::fprintf(stderr, "bench_replay: cannot remove %s\n", dir.c_str());
}

double ms(double ns) { return ns / 1e6; }

void replay_large(const std::string& root) {
  const int64_t n = (bench::quick() ? (int64_t{4} << 20) : (int64_t{64} << 20)) / 4;
  const std::string dump = root + "/dump";
  {
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 1000) * 0.01f - 3;
    probe::set_flags(("--probe_dump_to=" + dump + " --probe_dump_snapshots").c_str());
    {
      probe::op op("affine", "Affine");
      op.input("x", probe::view(x.data(), {n / 1024, 1024}));
      affine(x.data(), y.data(), n);
      op.output("y", probe::view(y.data(), {n / 1024, 1024}));
    }
    probe::set_flags("");
  }
  const std::string snap = dump + "/snapshots/op_000001.affine";
  probe::detail::replay_settings settings;
  settings.paths = dump;
  std::vector<float> warm(static_cast<size_t>(n));
  probe::tensor input = probe::npy::read(snap + "/in.x.npy");
  affine(input.data_as<float>(), warm.data(), n);  // pages of the warm buffer in place

  const int samples = bench::quick() ? 3 : 11;
  std::vector<double> t_replay, t_read, t_kernel, t_compare;
  bool ok = true;
  for (int s = 0; s < samples; ++s) {
    // The replay as --probe_replay runs it, less the printing.
    int64_t t0 = probe::detail::mono_ns();
    std::string error;
    const probe::detail::replay_report r = probe::detail::replay_all(settings, &error);
    t_replay.push_back(static_cast<double>(probe::detail::mono_ns() - t0));
    ok = ok && r.exit_code() == 0 && r.rows.size() == 1;
    // Its necessary parts, each on its own; what a part reads it also frees, in its time.
    t0 = probe::detail::mono_ns();
    probe::tensor x = probe::npy::read(snap + "/in.x.npy");
    const int64_t read_ns = probe::detail::mono_ns() - t0;
    t0 = probe::detail::mono_ns();
    affine(x.data_as<float>(), warm.data(), n);
    bench::clobber();
    t_kernel.push_back(static_cast<double>(probe::detail::mono_ns() - t0));
    t0 = probe::detail::mono_ns();
    {
      const probe::tensor recorded = probe::npy::read(snap + "/out.y.npy");
      const probe::closeness c = probe::check_close(probe::view(warm.data(), {n / 1024, 1024}), recorded.view());
      ok = ok && c.pass;
    }
    t_compare.push_back(static_cast<double>(probe::detail::mono_ns() - t0));
    t0 = probe::detail::mono_ns();
    x = probe::tensor();
    t_read.push_back(static_cast<double>(read_ns + probe::detail::mono_ns() - t0));
  }
  const bench::result replay = bench::summarize(t_replay), read = bench::summarize(t_read),
                      kernel = bench::summarize(t_kernel), compare = bench::summarize(t_compare);
  const double parts = read.median + kernel.median + compare.median;
  std::printf("replay of one op on a %lld MiB float32 tensor%s\n", static_cast<long long>(n * 4 >> 20),
              ok ? "" : " (FAILED: the replay did not match)");
  bench::print_row("replay (snapshot read, input, kernel, compare)", {ms(replay.median), ms(replay.mad), samples}, "ms");
  bench::print_row("npy::read of the input (and its free)", {ms(read.median), ms(read.mad), samples}, "ms");
  bench::print_row("the kernel alone (warm output)", {ms(kernel.median), ms(kernel.mad), samples}, "ms");
  bench::print_row("compare (npy::read + check_close + free)", {ms(compare.median), ms(compare.mad), samples}, "ms");
  std::printf("%-48s %.3f  (target <= 1.3)\n", "replay / (read + kernel + compare)", replay.median / parts);
  remove_tree(dump);
}

void off_path() {
  probe::set_flags("");
  std::vector<float> y(16, 1.f);
  const long iters = 20000000;
  auto [marked, plain] = bench::time_pair_ns(
      [&] {
        probe::op op("scale", "Mul");
        op.attr("eps", 1e-5).output("y", y);
        bench::do_not_optimize(y[0]);
      },
      [&] { bench::do_not_optimize(y[0]); }, iters);
  std::printf("\n%d kernels registered, replay off\n", probe::detail::kernel_count());
  bench::print_row("marked op with an attribute", marked);
  bench::print_row("same loop unmarked", plain);
  std::printf("%-48s %.3f ns  (target <= 1 ns)\n", "cost of the mark", marked.median - plain.median);
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  bool only = false, want_replay = false, want_off = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "replay" || a == "off") only = true;
    want_replay |= a == "replay";
    want_off |= a == "off";
  }
  const char* env = std::getenv("BENCH_DIR");
  const std::string root = std::string(env && *env ? env : "/tmp") + "/probe_bench_replay_" + std::to_string(getpid());
  if (!only || want_replay) replay_large(root);
  if (!only || want_off) off_path();
  remove_tree(root);
  return 0;
}
