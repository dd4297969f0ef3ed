// A lattice-Boltzmann-shaped solver whose ops write one buffer in parts, as engines do:
// stream fills the whole next buffer, bounce-back rewrites its wall cells in place (one
// output per wall), collision rewrites its fluid cells in place and declares the whole buffer
// as its output, after the kernel. Neither in-place op declares the buffer as input: the
// library finds the read-modify-write. A bug can be planted in bounce-back or in collision
// at one step. Shared by the compare and replay tests.
#pragma once
#include <probe/probe.hpp>

#include <vector>

namespace inplace_solver {

enum class plant { none, bounce, collide };

constexpr int k_cells = 32;
constexpr int k_wall = 4;  // wall cells at each end; the rest is fluid
constexpr int k_steps = 3;
constexpr int k_bug_step = 1;
constexpr int k_bug_cell = 10;  // a fluid cell

inline bool is_wall(int i) { return i < k_wall || i >= k_cells - k_wall; }

// The kernels, as a replay registers them too: they take and give whole buffers.
inline void stream_kernel(const float* f, float* g) {
  for (int i = 0; i < k_cells; ++i) g[i] = 0.5f * (f[(i + k_cells - 1) % k_cells] + f[(i + 1) % k_cells]);
}
inline void bounce_kernel(float* g, int first, int count) {
  for (int i = first; i < first + count; ++i) g[i] = -0.9f * g[i] + 0.25f;
}
// Writes the fluid cells only: the wall cells keep what bounce-back left there.
inline void collide_kernel(float* g) {
  for (int i = k_wall; i < k_cells - k_wall; ++i) g[i] = 0.75f * g[i] + 0.125f * static_cast<float>(i % 3);
}

struct solver {
  std::vector<float> buf[2];
  int cur = 0;

  solver() {
    for (std::vector<float>& b : buf) b.assign(k_cells, 0.f);
    for (int i = 0; i < k_cells; ++i) buf[0][i] = static_cast<float>((i * 7) % 5) - 1.f;
  }

  void step(int s, plant bug) {
    probe::set_step(s);
    std::vector<float>& f = buf[cur];
    std::vector<float>& g = buf[1 - cur];
    {
      probe::op op("stream", "Stream");
      op.input("f", f);
      stream_kernel(f.data(), g.data());
      op.output("cells", g);
    }
    {
      probe::op op("bounce_back", "BounceBack");
      bounce_kernel(g.data(), 0, k_wall);
      bounce_kernel(g.data(), k_cells - k_wall, k_wall);
      if (bug == plant::bounce && s == k_bug_step) g[1] += 0.5f;
      op.output("west", probe::view(g.data(), k_wall));
      op.output("east", probe::view(g.data() + k_cells - k_wall, k_wall));
    }
    {
      probe::op op("collision", "Collision");
      collide_kernel(g.data());
      if (bug == plant::collide && s == k_bug_step) g[k_bug_cell] += 0.5f;
      op.output("cells", g);  // the whole buffer, declared after the kernel
    }
    cur = 1 - cur;
  }

  void run(plant bug) {
    for (int s = 0; s < k_steps; ++s) step(s, bug);
    float total[1] = {0};
    probe::op op("total", "Sum");
    op.input("f", buf[cur]);
    for (float v : buf[cur]) total[0] += v;
    op.output("y", probe::view(total, 1));
  }
};

}  // namespace inplace_solver
