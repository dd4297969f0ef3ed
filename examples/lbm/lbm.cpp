// A D3Q19 lattice Boltzmann solver (BGK collision, pull streaming) instrumented the way a
// simulation code would be: collide, stream and the walls' bounce-back are ops on the
// distribution arrays, each time step is a PROBE_SCOPE, and the run ends with the MLUPS line
// a nightly job greps.
//
//   ./lbm [--size N] [--steps S] [--repeat R] [--cavity] [--bug]
//
// Periodic box (default): a decaying shear wave. --cavity: a lid-driven cavity, whose walls
// are bounce-back cells written by their own kernel in the same array the collision writes
// at the fluid cells. --bug plants an error in the bounce-back kernel. The collision can be
// made slower by LBM_COLLIDE_SLOWDOWN_PERCENT (lbm_config.hpp, or the environment).
// --repeat R runs the simulation R times and reports the best rate, as nightly benchmark
// jobs do to keep other load out of the number.
#include <probe/probe.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lbm_config.hpp"

namespace {

constexpr int Q = 19;
// Velocities: rest, 6 faces, 12 edges; opposite[q] is -c[q].
constexpr int cx[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
constexpr int cy[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
constexpr int cz[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
constexpr int opposite[Q] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17};
constexpr double weight[Q] = {1. / 3,  1. / 18, 1. / 18, 1. / 18, 1. / 18, 1. / 18, 1. / 18,
                              1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36,
                              1. / 36, 1. / 36, 1. / 36, 1. / 36, 1. / 36};

struct lattice {
  int n = 32;            // cells per side
  size_t cells = 0;      // n^3
  std::vector<float> f;  // distributions, structure of arrays: f[q * cells + cell]
  std::vector<float> g;  // the streaming target, swapped with f after each step
  std::vector<unsigned char> solid;  // cavity walls
  std::vector<size_t> wall_cells;    // indices of the solid cells
  bool cavity = false;
  float omega = 1.6f;     // 1 / relaxation time
  float lid_speed = 0.05f;

  size_t index(int x, int y, int z) const { return (static_cast<size_t>(z) * n + y) * n + x; }
  int64_t shape[2] = {Q, 0};
};

int slowdown_percent() {
  const char* e = std::getenv("LBM_SLOWDOWN_PERCENT");
  return e && *e ? std::atoi(e) : LBM_COLLIDE_SLOWDOWN_PERCENT;
}

void equilibrium(float rho, float ux, float uy, float uz, float* feq) {
  const float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
  for (int q = 0; q < Q; ++q) {
    const float cu = 3.0f * (cx[q] * ux + cy[q] * uy + cz[q] * uz);
    feq[q] = static_cast<float>(weight[q]) * rho * (1.0f + cu + 0.5f * cu * cu - usq);
  }
}

void initialize(lattice& L) {
  L.cells = static_cast<size_t>(L.n) * L.n * L.n;
  L.wall_cells.clear();
  L.f.assign(Q * L.cells, 0.0f);
  L.g.assign(Q * L.cells, 0.0f);
  L.solid.assign(L.cells, 0);
  L.shape[1] = static_cast<int64_t>(L.cells);
  const float pi = 3.14159265358979f;
  for (int z = 0; z < L.n; ++z)
    for (int y = 0; y < L.n; ++y)
      for (int x = 0; x < L.n; ++x) {
        const size_t i = L.index(x, y, z);
        const bool wall = x == 0 || y == 0 || z == 0 || x == L.n - 1 || y == L.n - 1 || z == L.n - 1;
        if (L.cavity && wall) {
          L.solid[i] = 1;
          L.wall_cells.push_back(i);
        }
        // Periodic box: a shear wave u_x(y); cavity: fluid at rest.
        const float ux = L.cavity ? 0.0f : 0.05f * std::sin(2 * pi * y / L.n);
        float feq[Q];
        equilibrium(1.0f, ux, 0.0f, 0.0f, feq);
        for (int q = 0; q < Q; ++q) L.f[q * L.cells + i] = feq[q];
      }
}

// BGK collision at every fluid cell, in place.
void collide(lattice& L) {
  probe::op op("collide", "BGK");
  op.attr("omega", static_cast<double>(L.omega));
  // Read-modify-write: recorded before (as an input) and after the op (as its output).
  op.inout("f", probe::view(L.f.data(), {L.shape[0], L.shape[1]}));
  const int extra = slowdown_percent();
  for (size_t i = 0; i < L.cells; ++i) {
    if (L.solid[i]) continue;
    float fi[Q], feq[Q];
    float rho = 0, mx = 0, my = 0, mz = 0;
    for (int q = 0; q < Q; ++q) {
      fi[q] = L.f[q * L.cells + i];
      rho += fi[q];
      mx += cx[q] * fi[q];
      my += cy[q] * fi[q];
      mz += cz[q] * fi[q];
    }
    equilibrium(rho, mx / rho, my / rho, mz / rho, feq);
    // The slowdown knob: recompute the equilibrium for a share of the cells.
    for (int r = 0; extra > 0 && r < (extra + 99) / 100; ++r)
      if (static_cast<int>(i % 100) < extra - 100 * r) equilibrium(rho, mx / rho, my / rho, mz / rho, feq);
    for (int q = 0; q < Q; ++q) L.f[q * L.cells + i] = fi[q] + L.omega * (feq[q] - fi[q]);
  }
}

// Full-way bounce-back at the walls, in place in the array collide writes at the fluid
// cells: each wall cell reverses its populations; the lid (y = n - 1) adds its momentum.
void bounce_back(lattice& L, bool planted_bug) {
  probe::op op("bounce_back", "BounceBack");
  op.inout("f", probe::view(L.f.data(), {L.shape[0], L.shape[1]}));
  const int n = L.n;
  for (size_t i : L.wall_cells) {
    float fi[Q];
    for (int q = 0; q < Q; ++q) fi[q] = L.f[q * L.cells + i];
    const bool lid = static_cast<int>((i / n) % n) == n - 1;
    for (int q = 0; q < Q; ++q) {
      float v = fi[opposite[q]];
      if (lid) v += static_cast<float>(6 * weight[q] * cx[q] * L.lid_speed);
      if (planted_bug && q == 7) v *= 1.01f;  // the bug: one direction gains 1%
      L.f[q * L.cells + i] = v;
    }
  }
}

// Pull streaming with periodic wrap: g(x) = f(x - c).
void stream(lattice& L) {
  probe::op op("stream", "Stream");
  op.input("f", probe::view(L.f.data(), {L.shape[0], L.shape[1]}));
  const int n = L.n;
  for (int q = 0; q < Q; ++q) {
    const float* src = &L.f[q * L.cells];
    float* dst = &L.g[q * L.cells];
    for (int z = 0; z < n; ++z) {
      const int sz = (z - cz[q] + n) % n;
      for (int y = 0; y < n; ++y) {
        const int sy = (y - cy[q] + n) % n;
        const float* row = src + (static_cast<size_t>(sz) * n + sy) * n;
        float* out = dst + (static_cast<size_t>(z) * n + y) * n;
        for (int x = 0; x < n; ++x) out[x] = row[(x - cx[q] + n) % n];
      }
    }
  }
  op.output("g", probe::view(L.g.data(), {L.shape[0], L.shape[1]}));
  L.f.swap(L.g);
}

double kinetic_energy(const lattice& L) {
  double e = 0;
  for (size_t i = 0; i < L.cells; ++i) {
    if (L.solid[i]) continue;
    double rho = 0, mx = 0, my = 0, mz = 0;
    for (int q = 0; q < Q; ++q) {
      const double v = L.f[q * L.cells + i];
      rho += v;
      mx += cx[q] * v;
      my += cy[q] * v;
      mz += cz[q] * v;
    }
    e += 0.5 * (mx * mx + my * my + mz * mz) / rho;
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  probe::init(argc, argv);
  lattice L;
  int steps = 100, repeat = 1;
  bool bug = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) L.n = std::atoi(argv[++i]);
    else if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--cavity") L.cavity = true;
    else if (a == "--bug") bug = true;
    else {
      std::fprintf(stderr, "usage: lbm [--size N] [--steps S] [--repeat R] [--cavity] [--bug]\n");
      return 2;
    }
  }
  if (L.n < 4 || steps < 1 || repeat < 1) {
    std::fprintf(stderr, "lbm: --size must be at least 4, --steps and --repeat at least 1\n");
    return 2;
  }
  double seconds = 0;
  for (int r = 0; r < repeat; ++r) {
    initialize(L);
    const auto start = std::chrono::steady_clock::now();
    for (int step = 0; step < steps; ++step) {
      PROBE_SCOPE("lbm_step");
      probe::set_step(step);
      collide(L);
      if (L.cavity) bounce_back(L, bug && step >= 2);
      stream(L);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    seconds = r == 0 || s < seconds ? s : seconds;
  }
  const double energy = kinetic_energy(L);
  probe::print("kinetic energy after {} steps: {:.6e}", steps, energy);
  probe::effects_barrier();
  probe::metric("MLUPS", static_cast<double>(L.cells) * steps / seconds / 1e6);
  return std::isfinite(energy) ? 0 : 1;
}
