/* A C99 program built against an installed probe, by CMake (LANGUAGES C, CMakeLists.txt) and by
 * a plain Makefile (Makefile): one op dumped, one metric line. */
#include <probe/probe.h>

#include <stdio.h>

int main(int argc, char** argv) {
  float x[4] = {1, 2, 3, 4};
  const int64_t shape[1] = {4};
  probe_op* op;
  int i;
  probe_init(&argc, argv);
  if (probe_version() < PROBE_C_API_VERSION) {
    fprintf(stderr, "libprobe implements C interface %d; this program needs %d\n", probe_version(), PROBE_C_API_VERSION);
    return 1;
  }
  op = probe_op_begin("scale", "Scale", -1);
  probe_op_attr_double(op, "factor", 2.0);
  probe_op_input(op, "x", x, PROBE_FLOAT32, 1, shape);
  for (i = 0; i < 4; ++i) x[i] *= 2.0f;
  probe_op_output(op, "x", x, PROBE_FLOAT32, 1, shape);
  probe_op_end(op);
  probe_metric("score", (double)x[3]);
  return 0;
}
