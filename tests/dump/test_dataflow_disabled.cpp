// Under PROBE_DISABLE the op API of the data-flow records compiles to nothing: an op holds no
// state.
#include <doctest/doctest.h>
#include <probe/probe.h>
#include <probe/probe.hpp>

#include <type_traits>
#include <vector>

TEST_CASE("PROBE_DISABLE: inout, indexed names, end and records_tensors do nothing") {
  static_assert(std::is_empty<probe::op>::value, "a disabled op holds nothing");
  std::vector<float> x{1, 2};
  probe::op op("rope", "RoPE", 3);
  CHECK_FALSE(op.records_tensors());
  if (op.records_tensors()) FAIL("no tensors are recorded");
  op.inout("x", x).input("y", x).output("z", x);
  op.end();
  op.end();
  CHECK_FALSE(op.active());
  CHECK(op.sequence() == 0);
  float c[2] = {1, 2};
  const int64_t shape[1] = {2};
  probe_op* cop = probe_op_begin("c", "C", 1);
  CHECK(cop == nullptr);
  probe_op_inout(cop, "x", c, PROBE_FLOAT32, 1, shape);
  CHECK(probe_op_records_tensors(cop) == 0);
  probe_op_end(cop);
}
