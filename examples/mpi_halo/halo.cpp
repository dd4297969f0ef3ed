// A 1-D diffusion solver split over MPI ranks, instrumented the way a domain-decomposed
// simulation code is: each rank owns `cells` cells plus one ghost cell on each side; the
// halo exchange is an op (its edge cells in, the ghost cells it received out, through
// MPI_Sendrecv) and the stencil is an op (the cells with their ghosts in, the new cells out).
// Linked with probe::mpi, every message is recorded too, so probe compare follows the data
// from one rank into the next (docs/mpi.md).
//
//   mpirun -np 4 ./mpi_halo [--cells N] [--steps S] [--bug] [--die-rank R --die-step S]
//
// --bug plants an error in rank 2's stencil at step 1 (its last cell, which the next halo
// exchange sends to rank 3). --die-rank/--die-step kill one rank (SIGKILL) before that step,
// as a crash would. The run ends with a "mass" line (an MPI_Allreduce) and a MLUPS metric.
#include <mpi.h>
#include <probe/probe.hpp>

#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct settings {
  int cells = 16, steps = 6;
  bool bug = false;
  int die_rank = -1, die_step = -1;
};

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (!std::strcmp(argv[i], "--cells") && more) s.cells = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--steps") && more) s.steps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--bug")) s.bug = true;
    else if (!std::strcmp(argv[i], "--die-rank") && more) s.die_rank = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--die-step") && more) s.die_step = std::atoi(argv[++i]);
  }
  if (s.cells < 2) s.cells = 2;
  return s;
}

// Sends this rank's edge cells to its neighbours and receives their edges into its ghost
// cells. The outer ranks keep their fixed boundary values (MPI_PROC_NULL exchanges nothing).
void halo(std::vector<double>& u, int n, int rank, int size) {
  probe::op op("halo", "Halo");
  op.input("left_edge", probe::view(&u[1], 1)).input("right_edge", probe::view(&u[n], 1));
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  op.output("ghost_left", probe::view(&u[0], 1)).output("ghost_right", probe::view(&u[n + 1], 1));
}

// Explicit diffusion: v[i] = u[i] + k (u[i-1] - 2 u[i] + u[i+1]) on the owned cells.
void stencil(const std::vector<double>& u, std::vector<double>& v, int n, bool planted) {
  probe::op op("stencil", "Stencil");
  op.input("u", probe::view(u.data(), u.size()));
  const double k = 0.25;
  for (int i = 1; i <= n; ++i) v[i] = u[i] + k * (u[i - 1] - 2 * u[i] + u[i + 1]);
  if (planted) v[n] += 0.125;  // the bug: a wrong value in the cell the next halo sends right
  op.output("u", probe::view(&v[1], static_cast<size_t>(n)));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const settings s = parse(argc, argv);
  const int n = s.cells;
  // A hot spot in the middle of the whole domain; fixed cold boundaries at both ends.
  std::vector<double> u(static_cast<size_t>(n) + 2, 0.0), v(u.size(), 0.0);
  for (int i = 1; i <= n; ++i) {
    const double x = (rank * n + i - 0.5) / (static_cast<double>(n) * size);
    u[static_cast<size_t>(i)] = std::exp(-40 * (x - 0.5) * (x - 0.5));
  }
  const auto t0 = std::chrono::steady_clock::now();
  halo(u, n, rank, size);
  for (int step = 0; step < s.steps; ++step) {
    if (rank == s.die_rank && step == s.die_step) raise(SIGKILL);
    probe::set_step(step);
    PROBE_SCOPE("step");
    stencil(u, v, n, s.bug && rank == 2 && step == 1);
    v[0] = u[0];
    v[static_cast<size_t>(n) + 1] = u[static_cast<size_t>(n) + 1];
    u.swap(v);
    halo(u, n, rank, size);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double local = 0, mass = 0;
  for (int i = 1; i <= n; ++i) local += u[static_cast<size_t>(i)];
  MPI_Allreduce(&local, &mass, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("mass %.12f\n", mass);
  probe::metric("MLUPS", seconds > 0 ? n * s.steps / seconds * 1e-6 : 0.0);
  MPI_Finalize();
  return 0;
}
