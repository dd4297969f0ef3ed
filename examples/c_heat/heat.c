/* A C program instrumented with probe's C interface: explicit 1-D heat diffusion with a
 * two-sweep smoother per step and fixed-temperature ends.
 *
 *   ./c_heat [STEPS] [--bug]       (PROBE_FLAGS decide what probe does)
 *
 * Each step marks three ops -- two smoothing sweeps named by their index ("L0.smooth",
 * "L1.smooth") and the boundary -- times the step, stops on NaN/Inf, and the run ends with
 * the metric line a nightly job greps. --bug plants an error in the boundary kernel from step
 * 3 on, for `probe compare` to find. */
#include <probe/probe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { cells = 256 };

static void smooth(const float* in, float* out, int n, float alpha) {
  int i;
  out[0] = in[0];
  out[n - 1] = in[n - 1];
  for (i = 1; i < n - 1; ++i) out[i] = in[i] + alpha * (in[i - 1] - 2.0f * in[i] + in[i + 1]);
}

static void boundary(float* u, int n, float left, float right, int planted_bug) {
  u[0] = left;
  u[n - 1] = planted_bug ? right * 1.5f : right;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  static float u[cells], tmp[cells];
  const int64_t shape[1] = {cells};
  int steps = 20, bug = 0, i, step, sweep;
  double start, seconds;
  probe_init(&argc, argv);
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--bug") == 0) bug = 1;
    else steps = atoi(argv[i]);
  }
  for (i = 0; i < cells; ++i) u[i] = (float)(i % 16) / 16.0f;

  start = now_seconds();
  for (step = 0; step < steps; ++step) {
    PROBE_C_SCOPE(step_timer, "step");
    probe_set_step(step);
    for (sweep = 0; sweep < 2; ++sweep) {
      probe_op* op = probe_op_begin("smooth", "Stencil", sweep);
      probe_op_input(op, "u", u, PROBE_FLOAT32, 1, shape);
      smooth(u, tmp, cells, 0.25f);
      memcpy(u, tmp, sizeof u);
      probe_op_output(op, "u", u, PROBE_FLOAT32, 1, shape);
      probe_op_end(op);
    }
    {
      probe_op* op = probe_op_begin("boundary", "Boundary", -1);
      probe_op_input(op, "u", u, PROBE_FLOAT32, 1, shape);
      boundary(u, cells, 1.0f, 0.0f + 0.5f, bug && step >= 3);
      probe_op_output(op, "u", u, PROBE_FLOAT32, 1, shape);
      probe_op_end(op);
    }
    probe_break_if_nonfinite("u", u, PROBE_FLOAT32, 1, shape);
    PROBE_C_SCOPE_END(step_timer);
  }
  seconds = now_seconds() - start;

  {
    const int64_t head[1] = {8};
    probe_print_tensor("u[:8]", u, PROBE_FLOAT32, 1, head);
  }
  probe_flush();
  probe_metric("MCUPS", seconds > 0 ? (double)cells * steps / seconds / 1e6 : 0.0);
  printf("u[%d] = %.6f\n", cells / 2, u[cells / 2]);
  return 0;
}
