// An explicit heat-equation solver run with too large a time step: the scheme is unstable,
// a checkerboard mode grows every step until the values overflow to infinity and then NaN.
// The program to try probe's debugging tools on (docs/walkthroughs/debugging.md): ops for
// the dump, debug prints (ordered, from worker threads), a callback, a breakpoint at every
// checkpoint, and non-finite checks.
//
//   ./unstable [--steps S] [--ratio R]      (R = dt / dx^2; stable below 0.5; default 0.6)
#include <probe/probe.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int cells = 64;

// One explicit step on [lo, hi) of the interior, reading u, writing v.
void diffuse_part(const std::vector<float>& u, std::vector<float>& v, int lo, int hi, double r) {
  for (int i = lo; i < hi; ++i) v[i] = u[i] + static_cast<float>(r) * (u[i - 1] - 2 * u[i] + u[i + 1]);
}

// The step as one op, computed by two worker threads; each thread prints its part's range
// (ordered: the lines come out in the order the calls were made, across threads).
void diffuse(const std::vector<float>& u, std::vector<float>& v, double r, int step) {
  probe::op op("diffuse", "Stencil");
  op.attr("ratio", r);
  op.input("u", u);
  auto part = [&](int lo, int hi) {
    diffuse_part(u, v, lo, hi, r);
    if (step % 100 == 0) probe::print(probe::ordered, "step {} cells [{}, {}): max {:.3e}", step, lo, hi, v[lo]);
  };
  std::thread a(part, 1, cells / 2), b(part, cells / 2, cells - 1);
  a.join();
  b.join();
  v[0] = v[cells - 1] = 0;  // fixed ends
  op.output("v", v);
}

}  // namespace

int main(int argc, char** argv) {
  probe::init(argc, argv);
  int steps = 400;
  double ratio = 0.6;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--ratio") && i + 1 < argc) ratio = std::atof(argv[++i]);
  }
  std::vector<float> u(cells), v(cells);
  for (int i = 0; i < cells; ++i) u[i] = std::sin(3.14159265f * static_cast<float>(i) / (cells - 1)) + 1e-6f * static_cast<float>(i % 2);
  int first_nonfinite = -1;
  for (int step = 0; step < steps; ++step) {
    probe::set_step(step);
    diffuse(u, v, ratio, step);
    u.swap(v);
    // Off the caller's thread: the callback receives a copy of u as it is now. Ordered, as
    // the workers' prints are: it runs after this step's lines.
    if (step % 100 == 0)
      probe::callback(probe::ordered, [](int s, probe::tensor_view t) {
        const probe::health h = probe::compute_health(t);
        std::fprintf(stderr, "callback: step %d, |u| up to %.3e\n", s, std::fmax(std::fabs(h.min), std::fabs(h.max)));
      }, step, probe::view(u));
    if (step % 100 == 99) PROBE_BREAKPOINT(probe::var("u", u), probe::var("step", step));
    probe::breakpoint_if_nonfinite("u", u);
    if (first_nonfinite < 0 && !std::isfinite(u[cells / 2 + 1])) first_nonfinite = step;
  }
  probe::effects_barrier();  // every print and callback has run before the summary line
  std::printf("%d steps, ratio %.2f: %s\n", steps, ratio,
              first_nonfinite < 0 ? "finite" : ("non-finite from step " + std::to_string(first_nonfinite)).c_str());
  return 0;
}
