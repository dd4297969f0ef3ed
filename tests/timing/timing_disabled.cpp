// Every timing mark compiled with PROBE_DISABLE: check_exit.py runs this with timing flags
// and checks that nothing is recorded or written but the metric line, which prints in every
// build. The stopwatch still measures.
#include <probe/probe.hpp>

#include <time.h>

#include <cstdio>

static_assert(sizeof(probe::detail::scope_guard) == 1, "PROBE_DISABLE leaves no scope state");

int main(int, char**) {
  PROBE_SCOPE("compiled_out");
  probe::timer t("named");
  timespec ts{0, 2000000};
  nanosleep(&ts, nullptr);
  t.stop();
  probe::metric("MLUPS", 577.3);
  probe::write_timing_summary(stdout);
  probe::flush();
  // elapsed() is the program's own measurement: it must work even when probe is compiled out.
  return t.elapsed() >= 0.001 && t.elapsed() < 10 ? 0 : 1;
}
