// probe compare speed (benchmarks/README.md, "compare"): two dumps of 1 GiB of float32 each,
// tensors from 4 KiB to 64 MiB, compared
//  1. by `probe compare` (the CLI, every metric, JSON report written; all cores)
//     (and with --threads 1), and
//  2. by benchmarks/compare_numpy.py, which loads each pair and runs np.allclose and the max
//     absolute error (target: probe compare >= 5x faster),
// interleaved, files in the page cache for both; and compare's bandwidth (input bytes of
// both dumps per second) against memcpy bandwidth measured in the same run.
// The dumps go to $BENCH_DIR (default /tmp); --quick uses 16 MiB dumps. First, the answers'
// cost when every op is a root cause (compare_roots_case.hpp, and the whole CLI on two
// manifest-only dumps of 40k such ops), and of the lookup for copies by value at its worst
// (every weight differs); --roots-only stops after them.
#include <probe/probe.hpp>

#include "analysis/compare_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compare_roots_case.hpp"
#include "harness.hpp"
#include "report_case.hpp"  // tests/compare

namespace {

std::string bench_dir() {
  const char* env = std::getenv("BENCH_DIR");
  return env && *env ? env : "/tmp";
}

void remove_tree(const std::string& dir) {
  if (std::system(("rm -rf '" + dir + "'").c_str()) != 0) std::fprintf(stderr, "bench_compare: could not remove %s\n", dir.c_str());
}

// Tensor sizes (elements): a fixed mix from 1K to 16M elements, repeated until `total`.
std::vector<size_t> tensor_sizes(size_t total) {
  static const size_t mix[] = {1024, 1u << 20, 4096, 1u << 24, 65536, 1u << 18, 16384, 3u << 20, 262144 + 17, 1u << 22, 7777};
  std::vector<size_t> out;
  size_t sum = 0;
  for (size_t i = 0; sum < total; ++i) {
    size_t n = mix[i % (sizeof mix / sizeof mix[0])];
    if (n > total / 4) n = total / 16 + 1;  // quick mode: keep a mix
    if (sum + n > total) n = total - sum;
    out.push_back(n);
    sum += n;
  }
  return out;
}

// Two runs of an engine whose ops output these tensors: the reference, and a run whose
// values differ by rounding noise (and, in one tensor of 20, by a real error).
void write_dumps(const std::string& a, const std::string& b, const std::vector<size_t>& sizes) {
  size_t most = 0;
  for (size_t n : sizes) most = n > most ? n : most;
  std::vector<float> ref(most), run(most);
  uint64_t state = 88172645463325252ull;
  auto next = [&] {  // xorshift: fast, deterministic
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<float>(state >> 40) * (1.0f / 16777216.0f) - 0.5f;
  };
  for (int side = 0; side < 2; ++side) {
    probe::set_flags(("--probe_dump_to=" + (side ? b : a) + " --probe_dump_as_npy").c_str());
    state = 88172645463325252ull;
    for (size_t t = 0; t < sizes.size(); ++t) {
      const size_t n = sizes[t];
      for (size_t i = 0; i < n; ++i) {
        ref[i] = next() * 4;
        const float noise = next() * 1e-6f;
        run[i] = ref[i] * (1 + noise) + (t % 20 == 7 && i % 1000 == 3 ? 0.01f : 0.f);
      }
      // One step per layer: the layers rewrite one buffer, and within a step a rewrite by
      // another op would be recorded as an in-place update (an extra input per layer).
      probe::set_step(static_cast<int64_t>(t));
      probe::op op("layer" + std::to_string(t), "Op");
      op.output("y", probe::view(side ? ref.data() : run.data(), {static_cast<int64_t>(n)}));
    }
    probe::set_flags("");
  }
}

int run_command(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);  // the child must not flush our buffered output again
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout)) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Two stats-only dumps (manifests, no data files) of n independent ops, each reading a matching
// graph input and writing an output whose statistics differ: every op a root cause.
void write_root_dumps(const std::string& a, const std::string& b, size_t n) {
  for (int side = 0; side < 2; ++side) {
    const std::string dir = side ? b : a;
    if (std::system(("mkdir -p '" + dir + "'").c_str()) != 0) return;
    const std::string m = compare_test::independent_roots_manifest(n, side == 1);
    FILE* f = std::fopen((dir + "/manifest.jsonl").c_str(), "w");
    if (!f) return;
    std::fwrite(m.data(), 1, m.size(), f);
    std::fclose(f);
  }
}

// The whole CLI on those dumps: reading the manifests, pairing, the answers, the reports.
void time_cli_roots(size_t n) {
  const std::string root = bench_dir() + "/probe_bench_roots_" + std::to_string(getpid());
  const std::string a = root + "/a", b = root + "/b", json = root + "/report.json";
  write_root_dumps(a, b, n);
  const int samples = bench::quick() ? 1 : 3;
  const bench::result text = bench::time_ns([&] { bench::do_not_optimize(run_command({PROBE_CLI_PATH, "compare", a, b})); }, 1, samples);
  const bench::result with_json = bench::time_ns(
      [&] { bench::do_not_optimize(run_command({PROBE_CLI_PATH, "compare", a, b, "--json", json})); }, 1, samples);
  char name[96];
  std::snprintf(name, sizeof name, "probe compare, %zu roots, manifests only (s)", n);
  bench::print_row(name, {text.median / 1e9, text.mad / 1e9, text.samples}, "s");
  std::snprintf(name, sizeof name, "probe compare --json, %zu roots (s)", n);
  bench::print_row(name, {with_json.median / 1e9, with_json.mad / 1e9, with_json.samples}, "s");
  remove_tree(root);
}

// The lookup for copies by value at its worst: n ops, each reading weights no op wrote that
// differ between the runs (other weights) and writing an output that fails, so that every
// weight is looked up among the outputs before it. compare_paths with the lookup against
// without it, interleaved, in the same run; false when the answers are not one graph input
// per op, or the lookup read past its budget.
bool time_copy_lookup(size_t ops, size_t elements) {
  namespace pa = probe::analysis;
  const std::string root = bench_dir() + "/probe_bench_copies_" + std::to_string(getpid());
  const std::string a = root + "/a", b = root + "/b";
  std::vector<float> w(elements), y(elements);
  uint64_t state = 0;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(state >> 40) * (1.0f / 16777216.0f) - 0.5f;
  };
  for (int side = 0; side < 2; ++side) {
    probe::set_flags(("--probe_dump_to=" + (side ? b : a) + " --probe_dump_as_npy").c_str());
    state = side ? 7 : 11;
    for (size_t k = 0; k < ops; ++k) {
      for (size_t i = 0; i < elements; ++i) w[i] = next(), y[i] = 2 * w[i] + next();
      probe::op op("layer" + std::to_string(k), "Op");
      op.input("w", probe::view(w.data(), {static_cast<int64_t>(elements)}));
      op.output("y", probe::view(y.data(), {static_cast<int64_t>(elements)}));
    }
    probe::set_flags("");
  }
  pa::compare_settings on, off;
  off.copies_by_value = false;
  pa::compare_report r_on, r_off;
  auto [t_on, t_off] = bench::time_pair_ns([&] { r_on = pa::compare_paths(a, b, on); },
                                           [&] { r_off = pa::compare_paths(a, b, off); }, 1, bench::quick() ? 1 : 5);
  remove_tree(root);
  if (r_on.runs.size() != 1 || r_off.runs.size() != 1) return false;
  const pa::graph_answers& g = r_on.runs[0].graph;
  size_t inputs = 0;
  for (const pa::root_cause& c : g.roots) inputs += c.kind == pa::root_kind::graph_input;
  const uint64_t compared = 2 * ops * 2 * elements, budget = compared + (16u << 20);
  std::printf("copy lookup by value, %zu ops with weights that differ (%zu floats each): %zu graph inputs, "
              "%llu checks, %.1f M values read (budget %.1f M)\n",
              ops, elements, inputs, static_cast<unsigned long long>(g.part_checks), static_cast<double>(g.part_values_read) / 1e6,
              static_cast<double>(budget) / 1e6);
  bench::print_row("compare_paths, copies by value (s)", {t_on.median / 1e9, t_on.mad / 1e9, t_on.samples}, "s");
  bench::print_row("compare_paths, hashes and statistics only (s)", {t_off.median / 1e9, t_off.mad / 1e9, t_off.samples}, "s");
  std::printf("%-48s %.2f\n", "with the lookup / without", t_on.median / t_off.median);
  return inputs == ops && g.part_values_read <= budget && r_off.runs[0].graph.part_values_read == 0;
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  if (!roots_case::run(bench::quick())) {
    std::fprintf(stderr, "bench_compare: not one root per independent op\n");
    return 1;
  }
  time_cli_roots(bench::quick() ? 4000 : 40000);
  if (!time_copy_lookup(bench::quick() ? 20 : 100, bench::quick() ? 4096 : 65536)) {
    std::fprintf(stderr, "bench_compare: the copy lookup answered wrong or read past its budget\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--roots-only")) return 0;
  const size_t total = bench::quick() ? (size_t{4} << 20) : (size_t{1} << 28);  // elements per dump
  const std::string root = bench_dir() + "/probe_bench_compare_" + std::to_string(getpid());
  const std::string a = root + "/run", b = root + "/reference", json = root + "/report.json";
  if (std::system(("mkdir -p '" + root + "'").c_str()) != 0) return 1;
  const std::vector<size_t> sizes = tensor_sizes(total);
  write_dumps(a, b, sizes);
  const double bytes = 2.0 * static_cast<double>(total) * sizeof(float);
  std::printf("two dumps of %.0f MiB of float32 each, %zu tensors (4 KiB .. %zu MiB)\n", bytes / 2 / (1 << 20), sizes.size(),
              (*std::max_element(sizes.begin(), sizes.end()) * 4) >> 20);

  // In-process first: it also warms the page cache and checks the answer.
  probe::analysis::compare_settings s;
  const probe::analysis::compare_report r = probe::analysis::compare_paths(a, b, s);
  std::printf("compare_paths: %zu tensors, %zu out of tolerance (expected %zu), %.3f s in the value pass\n", r.counts.pairs,
              r.counts.mismatch, (sizes.size() + 12) / 20, r.seconds);
  if (!r.error.empty() || r.counts.mismatch != (sizes.size() + 12) / 20) {
    std::fprintf(stderr, "bench_compare: unexpected result: %s\n", r.error.c_str());
    remove_tree(root);
    return 1;
  }

  const int samples = bench::quick() ? 1 : 5;
  auto cli = [&] { bench::do_not_optimize(run_command({PROBE_CLI_PATH, "compare", a, b, "--json", json})); };
  auto numpy = [&] {
    bench::do_not_optimize(run_command({PROBE_BENCH_PYTHON, PROBE_BENCH_SOURCE_DIR "/compare_numpy.py", a, b}));
  };
  auto [tc, tn] = bench::time_pair_ns(cli, numpy, 1, samples);
  const bench::result t1 = bench::time_ns(
      [&] { bench::do_not_optimize(run_command({PROBE_CLI_PATH, "compare", a, b, "--threads", "1", "--json", json})); }, 1,
      samples);
  std::vector<char> src(static_cast<size_t>(bytes / 4)), dst(src.size());
  std::memset(src.data(), 1, src.size());
  std::memset(dst.data(), 2, dst.size());
  const bench::result copy = bench::time_ns([&] { std::memcpy(dst.data(), src.data(), src.size()); bench::clobber(); }, 1,
                                            bench::quick() ? 3 : 9);
  const double memcpy_gbs = static_cast<double>(src.size()) / copy.median;
  bench::print_row("probe compare A B --json (s)", {tc.median / 1e9, tc.mad / 1e9, tc.samples}, "s");
  bench::print_row("numpy: load + allclose + max abs err (s)", {tn.median / 1e9, tn.mad / 1e9, tn.samples}, "s");
  bench::print_row("probe compare --threads 1 (s)", {t1.median / 1e9, t1.mad / 1e9, t1.samples}, "s");
  std::printf("%-48s %.2f  (target >= 5)\n", "numpy time / probe compare time", tn.median / tc.median);
  std::printf("%-48s %.2f\n", "numpy time / probe compare --threads 1 time", tn.median / t1.median);
  std::printf("%-48s %.2f GB/s (input bytes of both dumps)\n", "probe compare bandwidth", bytes / tc.median);
  std::printf("%-48s %.2f GB/s (in-process value pass only)\n", "compare_paths value pass", bytes / r.seconds / 1e9);
  std::printf("%-48s %.2f GB/s (%.0f MiB buffer)\n", "memcpy bandwidth", memcpy_gbs, static_cast<double>(src.size()) / (1 << 20));
  std::printf("%-48s %.2f\n", "probe compare bandwidth / memcpy bandwidth", bytes / tc.median / memcpy_gbs);
  remove_tree(root);
  return 0;
}
