// A C++11/14 program calling the compiled library through probe.h.
#include <probe/probe.h>

#include <vector>

// No exception leaves the C interface, and C++ callers see it.
static_assert(noexcept(probe_op_begin("", "", 0)) && noexcept(probe_print("%d", 1)) &&
                  noexcept(probe_replay_input(nullptr, "", PROBE_FLOAT32, nullptr, nullptr)) &&
                  noexcept(probe_register_kernel("", nullptr, nullptr)),
              "probe.h's functions are noexcept for C++ callers");

int main(int argc, char** argv) {
  probe_init(&argc, argv);
  std::vector<float> x(16, 1.0f);
  const int64_t shape[1] = {16};
  probe_op* op = probe_op_begin("old_std", "Test", -1);
  probe_op_input(op, "x", x.data(), PROBE_FLOAT32, 1, shape);
  for (float& v : x) v += 1;
  probe_op_output(op, "x", x.data(), PROBE_FLOAT32, 1, shape);
  probe_op_end(op);
  probe_op* rmw = probe_op_begin("old_std_rmw", "Test", 4);
  if (probe_op_records_tensors(rmw)) probe_op_inout(rmw, "x", x.data(), PROBE_FLOAT32, 1, shape);
  for (float& v : x) v *= 1;
  probe_op_end(rmw);
  probe_flush();
  return x[0] == 2.0f ? 0 : 1;
}
