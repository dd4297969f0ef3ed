// probe::mpi with every flag off: what MPI_Sendrecv costs through the wrappers against the
// same call made straight to PMPI_Sendrecv, in alternating blocks of one run: with no peer
// (MPI_PROC_NULL, where the call's own cost is all there is) and around a ring of ranks (a
// halo exchange of `bytes` bytes). Built without probe::mpi (bench_mpi_plain), MPI_Sendrecv
// is MPI's own: the program that never linked the wrappers. Run under mpirun:
//
//   mpirun -np 2 bench_mpi [--quick] [--bytes N]      (rank 0 prints)
//   benchmarks/mpi_overhead.sh BUILD RUNS             (both builds, interleaved; README.md)
#include <mpi.h>
#include <probe/probe.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "harness.hpp"

namespace {

// ns per call of f over `iters` calls, each sample begun together on every rank.
template <class F>
double call_ns(F&& f, long iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) f();
  return (MPI_Wtime() - t0) * 1e9 / static_cast<double>(iters);
}

struct pair_result {
  double a = 0, b = 0, ratio = 0;  // medians of a, of b, of the per-block ratios a/b
};

// a against b in alternating blocks (load on the machine hits both alike), medians over blocks.
template <class A, class B>
pair_result interleaved(A&& a, B&& b, long iters, int blocks) {
  std::vector<double> ta, tb, r;
  for (int k = 0; k < blocks; ++k) {
    const double x = call_ns(a, iters), y = call_ns(b, iters);
    ta.push_back(x);
    tb.push_back(y);
    r.push_back(x / y);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return pair_result{median(ta), median(tb), median(r)};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bench::parse_args(argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int bytes = 8;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--bytes")) bytes = std::max(1, std::atoi(argv[i + 1]));
  std::vector<char> out(static_cast<size_t>(bytes), 1), in(static_cast<size_t>(bytes), 0);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  // A halo exchange with both neighbours of a ring, and the same call with no neighbour
  // (MPI_PROC_NULL: MPI returns at once, so what is left is the call's own cost).
  auto ring = [&] {
    MPI_Sendrecv(out.data(), bytes, MPI_BYTE, right, 0, in.data(), bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  };
  auto ring_pmpi = [&] {
    PMPI_Sendrecv(out.data(), bytes, MPI_BYTE, right, 0, in.data(), bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  };
  auto null = [&] {
    MPI_Sendrecv(out.data(), bytes, MPI_BYTE, MPI_PROC_NULL, 0, in.data(), bytes, MPI_BYTE, MPI_PROC_NULL, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  };
  auto null_pmpi = [&] {
    PMPI_Sendrecv(out.data(), bytes, MPI_BYTE, MPI_PROC_NULL, 0, in.data(), bytes, MPI_BYTE, MPI_PROC_NULL, 0,
                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  };
  const bool q = bench::quick();
  call_ns(ring, q ? 10 : 2000);  // warm up the transport
  const pair_result n = interleaved(null, null_pmpi, q ? 1000 : 200000, q ? 3 : 31);
  const pair_result r = interleaved(ring, ring_pmpi, q ? 50 : 2000, q ? 3 : 31);
  if (rank == 0) {
#if defined(PROBE_BENCH_MPI_PLAIN)
    const char* build = "without probe::mpi (MPI_ and PMPI_ are the same function)";
#else
    const char* build = "with probe::mpi";
#endif
    std::printf("bench_mpi %s: %d ranks, %d-byte messages, flags off, medians of %d alternating blocks\n", build,
                size, bytes, q ? 3 : 31);
    std::printf("  MPI_Sendrecv to MPI_PROC_NULL  %8.2f ns   PMPI_Sendrecv %8.2f ns   ratio %.4f\n", n.a, n.b, n.ratio);
    std::printf("  MPI_Sendrecv around a ring     %8.1f ns   PMPI_Sendrecv %8.1f ns   ratio %.4f\n", r.a, r.b, r.ratio);
    std::printf("null_ns: %.3f\nring_ns: %.1f\n", n.a, r.a);
  }
  MPI_Finalize();
  return 0;
}
