/* A D2Q9 lattice Boltzmann solver in C99, marked through probe's C interface (probe.h) the
 * way a C simulation code would be: each time step is three ops on the distribution arrays
 * (collide, stream, moments), the collision runs on OpenMP worker threads whose row tiles are
 * ops of their own (children of collide), the step is timed, the run ends with the MLUPS
 * line a nightly job greps, and the collision has a replay kernel written in C.
 *
 *   ./c_lbm [--size N] [--steps S] [--repeat R] [--bug] [--slow]   (PROBE_FLAGS decide what probe does)
 *
 * Periodic box with a decaying shear wave: mass is conserved exactly, and a breakpoint stops
 * when it is not. --bug plants an index typo in the streaming kernel from step 5 on (mass is
 * then lost); --slow makes the collision recompute its equilibrium (a speed regression);
 * --repeat R runs the simulation R times and reports the best rate, as nightly benchmark
 * jobs do to keep other load out of the number.
 * Built without OpenMP it runs the same, on one thread. docs/walkthroughs/c.md runs it. */
#include <probe/probe.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

enum { Q = 9 };
static const int cx[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int cy[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const double w[Q] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};

/* BGK collision of rows [y0, y1) of f (layout [Q][ny][nx]) into g. */
static void collide_rows(const double* f, double* g, int nx, int ny, int y0, int y1, double omega, int slow) {
  const size_t plane = (size_t)nx * ny;
  int x, y, q, r;
  for (y = y0; y < y1; ++y)
    for (x = 0; x < nx; ++x) {
      const size_t c = (size_t)y * nx + x;
      double rho = 0, ux = 0, uy = 0, usq;
      for (q = 0; q < Q; ++q) {
        rho += f[q * plane + c];
        ux += cx[q] * f[q * plane + c];
        uy += cy[q] * f[q * plane + c];
      }
      ux /= rho;
      uy /= rho;
      usq = ux * ux + uy * uy;
      for (q = 0; q < Q; ++q) {
        const double cu = cx[q] * ux + cy[q] * uy;
        const double feq = w[q] * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq);
        double waste = 0; /* --slow: the equilibrium computed 64 more times, the same result */
        for (r = 0; r < (slow ? 64 : 0); ++r) waste += w[q] * rho * (1 + 3 * cu + r * cu * cu - 1.5 * usq);
        g[q * plane + c] = f[q * plane + c] + omega * (feq - f[q * plane + c]) + 0.0 * waste;
      }
    }
}

/* The collision as probe replays it: the recorded f and omega in, g out. */
static void collide_kernel(probe_replay* r) {
  int64_t shape[PROBE_MAX_DIMS];
  int ndim = 0;
  const double* f = (const double*)probe_replay_input(r, "f", PROBE_FLOAT64, &ndim, shape);
  double* g = (double*)probe_replay_output(r, "g", PROBE_FLOAT64, ndim, shape);
  const double omega = probe_replay_attr_double(r, "omega");
  if (probe_replay_failed(r)) return;
  collide_rows(f, g, (int)shape[2], (int)shape[1], 0, (int)shape[1], omega, 0);
}

/* One collision: an op on the main thread; each worker's rows are an op of their own, a child
 * of it, and record the rows they wrote (a strided view of g). */
static void collide(const double* f, double* g, int nx, int ny, double omega, int slow) {
  const int64_t shape[3] = {Q, ny, nx};
  probe_op* op = probe_op_begin("collide", "Collide", -1);
  probe_op_attr_double(op, "omega", omega);
  probe_op_input(op, "f", f, PROBE_FLOAT64, 3, shape);
#if defined(_OPENMP)
#pragma omp parallel
#endif
  {
#if defined(_OPENMP)
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const int t = 0, nt = 1;
#endif
    const int y0 = ny * t / nt, y1 = ny * (t + 1) / nt;
    const int64_t rows[3] = {Q, y1 - y0, nx}, strides[3] = {(int64_t)nx * ny, nx, 1};
    probe_op* adopted = probe_op_adopt(op);
    probe_op* tile = probe_op_begin("tile", "CollideRows", t);
    collide_rows(f, g, nx, ny, y0, y1, omega, slow);
    probe_op_tensor(tile, PROBE_OUT, "g", probe_tensor_strided(g + (size_t)y0 * nx, PROBE_FLOAT64, 3, rows, strides));
    probe_op_end(tile);
    probe_op_unadopt(adopted);
  }
  probe_op_output(op, "g", g, PROBE_FLOAT64, 3, shape);
  probe_op_end(op);
}

/* Pull streaming on the periodic box. The planted bug reads direction 8's population for 7. */
static void stream(const double* g, double* f, int nx, int ny, int bug) {
  const int64_t shape[3] = {Q, ny, nx};
  const size_t plane = (size_t)nx * ny;
  int x, y, q;
  probe_op* op = probe_op_begin("stream", "Stream", -1);
  probe_op_input(op, "g", g, PROBE_FLOAT64, 3, shape);
  for (q = 0; q < Q; ++q) {
    const int src = bug && q == 7 ? 8 : q;
    for (y = 0; y < ny; ++y)
      for (x = 0; x < nx; ++x) {
        const int xs = (x - cx[q] + nx) % nx, ys = (y - cy[q] + ny) % ny;
        f[q * plane + (size_t)y * nx + x] = g[src * plane + (size_t)ys * nx + xs];
      }
  }
  probe_op_output(op, "f", f, PROBE_FLOAT64, 3, shape);
  probe_op_end(op);
}

/* Density and velocity; returns the total mass. */
static double moments(const double* f, double* rho, double* ux, int nx, int ny) {
  const int64_t shape3[3] = {Q, ny, nx}, shape2[2] = {ny, nx};
  const size_t plane = (size_t)nx * ny;
  double mass = 0;
  size_t c;
  int q;
  probe_op* op = probe_op_begin("moments", "Moments", -1);
  probe_op_input(op, "f", f, PROBE_FLOAT64, 3, shape3);
  for (c = 0; c < plane; ++c) {
    double r = 0, u = 0;
    for (q = 0; q < Q; ++q) {
      r += f[q * plane + c];
      u += cx[q] * f[q * plane + c];
    }
    rho[c] = r;
    ux[c] = u / r;
    mass += r;
  }
  probe_op_output(op, "rho", rho, PROBE_FLOAT64, 2, shape2);
  probe_op_output(op, "ux", ux, PROBE_FLOAT64, 2, shape2);
  probe_op_end(op);
  return mass;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  int n = 64, steps = 20, repeat = 1, bug = 0, slow = 0, i, step, x, y, q, rep;
  double *f, *g, *rho, *ux, mass0, seconds = 0, start;
  const double omega = 1.0 / 0.8;
  size_t plane;
  probe_register_kernel("Collide", collide_kernel, NULL); /* before probe_init: replay starts there */
  probe_init(&argc, argv);
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--bug") == 0) bug = 1;
    else if (strcmp(argv[i], "--slow") == 0) slow = 1;
    else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
  }
  plane = (size_t)n * n;
  f = malloc(Q * plane * sizeof *f);
  g = malloc(Q * plane * sizeof *g);
  rho = malloc(plane * sizeof *rho);
  ux = malloc(plane * sizeof *ux);
  if (!f || !g || !rho || !ux) return 1;
  mass0 = (double)plane;
  for (rep = 0; rep < repeat; ++rep) {
    for (y = 0; y < n; ++y) /* a shear wave: ux = 0.05 sin(2 pi y / n), density 1 */
      for (x = 0; x < n; ++x) {
        const double u = 0.05 * sin(2 * 3.14159265358979 * y / n);
        for (q = 0; q < Q; ++q) {
          const double cu = cx[q] * u;
          f[q * plane + (size_t)y * n + x] = w[q] * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * u * u);
        }
      }
    start = now_seconds();
    for (step = 0; step < steps; ++step) {
      double mass;
      PROBE_C_SCOPE(step_timer, "lbm_step");
      probe_set_step(step);
      collide(f, g, n, n, omega, slow);
      stream(g, f, n, n, bug && step >= 5);
      mass = moments(f, rho, ux, n, n);
      if (fabs(mass - mass0) > 1e-9 * mass0) /* mass is conserved: stop where it is not */
        probe_breakpoint(probe_var_of("rho", rho, PROBE_FLOAT64, 2, (const int64_t[]){n, n}),
                         probe_var_double("mass", &mass), probe_var_int("step", &step));
      PROBE_C_SCOPE_END(step_timer);
    }
    if (rep == 0 || now_seconds() - start < seconds) seconds = now_seconds() - start;
  }
  probe_print("c_lbm: %d steps on %dx%d, mass %.12g, ux[n/4] %.6f", steps, n, n, mass0, ux[(size_t)(n / 4) * n]);
  probe_flush();
  probe_metric("MLUPS", seconds > 0 ? (double)plane * steps / seconds / 1e6 : 0.0);
  free(f);
  free(g);
  free(rho);
  free(ux);
  return 0;
}
