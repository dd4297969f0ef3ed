// Dump speed, each against a baseline measured in the same run (benchmarks/README.md, "dump"):
//  1. a marked op with every flag off vs the same loop unmarked (target: <= 1 ns more);
//  2. one 256 MiB float32 output dumped as .npy (stats, manifest, atomic rename) vs a raw
//     open/write/close of the same bytes in the same directory (target: >= 0.9x its speed);
//  3. 20,000 outputs of 1 KiB dumped as .npy with the manifest vs a plain fopen/fwrite/fclose
//     loop writing the same number of files of the same size (target: >= 0.8x its speed).
// The directory is $BENCH_DIR (default /tmp); $BENCH_DUMP_FLAGS is added to the dump flags
// (e.g. "--probe_dump_threads=0"). Arguments "off", "large", "small" run only those parts.
#include <probe/probe.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

std::string bench_dir() {
  const char* env = std::getenv("BENCH_DIR");
  return env && *env ? env : "/tmp";
}

std::string dump_flags(const std::string& dir) {
  const char* extra = std::getenv("BENCH_DUMP_FLAGS");
  return "--probe_dump_to=" + dir + " --probe_dump_as_npy" + (extra && *extra ? " " + std::string(extra) : std::string());
}

void remove_tree(const std::string& dir) {
  const std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "bench_dump: could not remove %s\n", dir.c_str());
}

void off_path() {
  probe::set_flags("");
  std::vector<float> y(16, 1.f);
  const long iters = 20000000;
  auto [marked, plain] = bench::time_pair_ns(
      [&] {
        probe::op op("scale", "Mul");
        op.output("y", y);
        bench::do_not_optimize(y[0]);
      },
      [&] { bench::do_not_optimize(y[0]); }, iters);
  bench::print_row("marked op, every flag off", marked);
  bench::print_row("same loop unmarked", plain);
  std::printf("%-48s %.3f ns  (target <= 1 ns)\n", "cost of the mark", marked.median - plain.median);
}

void one_large(const std::string& root) {
  const size_t bytes = bench::quick() ? (size_t{8} << 20) : (size_t{256} << 20);
  std::vector<float> x(bytes / sizeof(float));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000) * 0.5f;
  const std::string dump_dir = root + "/large_dump", raw_path = root + "/large_raw.bin";
  auto dumped = [&] {
    probe::set_flags(dump_flags(dump_dir).c_str());
    {
      probe::op op("producer", "Fill");
      op.output("y", probe::view(x.data(), {static_cast<int64_t>(x.size() / 1024), 1024}));
    }
    probe::set_flags("");  // ends the run: manifest closed
    remove_tree(dump_dir);
  };
  auto raw = [&] {
    const int fd = ::open(raw_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const char* p = reinterpret_cast<const char*>(x.data());
    size_t left = bytes;
    while (fd >= 0 && left > 0) {
      const ssize_t w = ::write(fd, p, left);
      if (w <= 0) break;
      p += w;
      left -= static_cast<size_t>(w);
    }
    if (fd >= 0) ::close(fd);
    ::unlink(raw_path.c_str());
  };
  auto [d, r] = bench::time_pair_ns(dumped, raw, 1, bench::quick() ? 3 : 11);
  std::printf("\n%zu MiB float32 output\n", bytes >> 20);
  bench::print_row("dumped as npy (ms)", {d.median / 1e6, d.mad / 1e6, d.samples}, "ms");
  bench::print_row("raw open+write+close (ms)", {r.median / 1e6, r.mad / 1e6, r.samples}, "ms");
  std::printf("%-48s %.3f  (target >= 0.9)\n", "dump speed / raw write speed", r.median / d.median);
}

void many_small(const std::string& root) {
  const int count = bench::quick() ? 500 : 20000;
  std::vector<float> x(256, 0.25f);  // 1 KiB
  const std::string dump_dir = root + "/small_dump", plain_dir = root + "/small_plain";
  auto dumped = [&] {
    probe::set_flags(dump_flags(dump_dir).c_str());
    for (int i = 0; i < count; ++i) {
      probe::op op("tiny", "Fill");
      op.output("y", x);
    }
    probe::set_flags("");
    remove_tree(dump_dir);
  };
  auto plain = [&] {
    if (std::system(("mkdir -p '" + plain_dir + "'").c_str()) != 0) return;
    char name[64];
    for (int i = 0; i < count; ++i) {
      std::snprintf(name, sizeof name, "/op_%06d.tiny.out.y.npy", i + 1);
      FILE* f = std::fopen((plain_dir + name).c_str(), "wb");
      if (!f) break;
      std::fwrite(x.data(), 1, x.size() * sizeof(float), f);
      std::fclose(f);
    }
    remove_tree(plain_dir);
  };
  auto [d, p] = bench::time_pair_ns(dumped, plain, 1, bench::quick() ? 3 : 7);
  std::printf("\n%d outputs of 1 KiB\n", count);
  bench::print_row("dumped as npy + manifest (ms)", {d.median / 1e6, d.mad / 1e6, d.samples}, "ms");
  bench::print_row("fopen/fwrite/fclose loop (ms)", {p.median / 1e6, p.mad / 1e6, p.samples}, "ms");
  std::printf("%-48s %.3f  (target >= 0.8)\n", "dump speed / plain loop speed", p.median / d.median);
}

}  // namespace

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  bool only = false, want_off = false, want_large = false, want_small = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "off" || a == "large" || a == "small") only = true;
    want_off |= a == "off";
    want_large |= a == "large";
    want_small |= a == "small";
  }
  const std::string root = bench_dir() + "/probe_bench_dump_" + std::to_string(getpid());
  if (std::system(("mkdir -p '" + root + "'").c_str()) != 0) return 1;
  if (!only || want_off) off_path();
  if (!only || want_large) one_large(root);
  if (!only || want_small) many_small(root);
  remove_tree(root);
  return 0;
}
