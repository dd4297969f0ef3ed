// A second marking TU: with probe::compiled it sees declarations only.
#include <probe/probe.hpp>

#if defined(PROBE_SEPARATE_IMPLEMENTATION) && defined(_GLIBCXX_VECTOR)
#error "probe::compiled consumers must not get <vector> from probe"
#endif

int other_op() {
  float v[2] = {1, 2};
  probe::op op("other", "Test");
  op.output("v", probe::view(v, 2));
  return 7;
}
