// .npy write speed: probe::npy::write of a 256 MiB float32 tensor (temporary file, header,
// data straight from the caller's memory, rename) against a raw open/write/close of the same
// bytes into a new file in the same directory, measured in the same run (target: npy at
// >= 0.9x the raw speed, i.e. a time ratio npy / raw <= 1.11). Also reads it back.
// The directory is $BENCH_DIR (default /tmp); both files are removed after every sample.
#include <fcntl.h>
#include <probe/probe.hpp>
#include <probe/formats/npy.hpp>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const size_t bytes = bench::quick() ? (size_t{8} << 20) : (size_t{256} << 20);
  const char* env = std::getenv("BENCH_DIR");
  const std::string dir = env && *env ? env : "/tmp";
  const std::string raw_path = dir + "/probe_bench_raw.bin", npy_path = dir + "/probe_bench.npy";
  std::vector<float> x(bytes / sizeof(float));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000) * 0.5f;
  const probe::tensor_view v = probe::view(x.data(), {static_cast<int64_t>(x.size() / 1024), 1024});

  bool ok = true;
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
    ok = ok && fd >= 0 && left == 0;
    if (fd >= 0) ::close(fd);
    ::unlink(raw_path.c_str());
  };
  auto npy = [&] {
    std::string err;
    if (!probe::npy::write(npy_path, v, &err)) {
      std::fprintf(stderr, "bench_npy: %s\n", err.c_str());
      ok = false;
    }
    ::unlink(npy_path.c_str());
  };
  const int samples = bench::quick() ? 3 : 15;
  const auto timed = bench::time_pair_ns(npy, raw, 1, samples);
  const bench::result n = timed.first, r = timed.second;
  std::printf("bench_npy: %zu MiB float32 into %s\n", bytes >> 20, dir.c_str());
  bench::print_row("npy::write (ms)", {n.median / 1e6, n.mad / 1e6, n.samples}, "ms");
  bench::print_row("raw open+write+close (ms)", {r.median / 1e6, r.mad / 1e6, r.samples}, "ms");
  std::printf("%-48s %.3f  (target >= 0.9)\n", "npy write speed / raw write speed", r.median / n.median);

  std::string err;
  probe::npy::write(npy_path, v, &err);
  auto rd = bench::time_ns([&] {
    const probe::tensor t = probe::npy::read(npy_path, &err);
    ok = ok && t.numel() == static_cast<int64_t>(x.size());
  }, 1, samples);
  ::unlink(npy_path.c_str());
  std::printf("%-48s %.2f GB/s\n", "npy::read", static_cast<double>(bytes) / rd.median);
  return ok ? 0 : 1;
}
