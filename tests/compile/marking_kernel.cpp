// A kernel file that marks one op (input + output), one PROBE_SCOPE and one probe::metric: what
// the compile tests build header-only (header_only_symbols.sh, header_only_text.sh).
#include <probe/probe.hpp>
#include <vector>
void kernel(const std::vector<float>& x, std::vector<float>& y) {
  PROBE_SCOPE("kernel");
  probe::op op("scale", "Mul");
  op.input("x", x);
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];
  op.output("y", y);
  probe::metric("MLUPS", 1.0);
}
