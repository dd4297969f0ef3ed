// The runtime's singletons are built in static storage on first use: none allocates, so none
// can end the program with std::terminate (from noexcept code) when memory is short. Every
// allocation of the program is counted (operator new and malloc's C++ entry points) while
// each is touched for the first time; nothing else runs before them.
#include <probe/probe.hpp>
#include <probe/core/flags.hpp>
#include <probe/effects/breakpoint_stop.hpp>
#include <probe/effects/breakpoint_values.hpp>
#include <probe/effects/capture.hpp>
#include <probe/effects/print_sink.hpp>
#include <probe/effects/timing_buffer_source.hpp>
#include <probe/effects/timing_clock_source.hpp>
#include <probe/effects/timing_control.hpp>

#include <cstdio>
#include <cstdlib>
#include <new>

namespace {
long g_allocations = 0;
bool g_counting = false;
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

template <class F>
int check(const char* name, F&& first_use) {
  g_allocations = 0;
  g_counting = true;
  const void* p = &first_use();
  g_counting = false;
  if (g_allocations == 0 && p) return 0;
  std::fprintf(stderr, "FAIL: %s allocated %ld times on first use\n", name, g_allocations);
  return 1;
}

int main() {
  namespace d = probe::detail;
  int failed = 0;
  failed += check("flags", [] () -> d::flag_state& { return d::flags(); });
  failed += check("breakpoint_state_ref", [] () -> d::breakpoint_state& { return d::breakpoint_state_ref(); });
  failed += check("nonfinite_listener_ref", [] () -> d::nonfinite_listener& { return d::nonfinite_listener_ref(); });
  failed += check("abs_above_ref", [] () -> d::abs_above_state& { return d::abs_above_ref(); });
  failed += check("abs_above_listener_ref", [] () -> d::abs_above_listener& { return d::abs_above_listener_ref(); });
  failed += check("host_executor", [] () -> d::capture_executor& { return d::host_executor(); });
  failed += check("print_sink_ref", [] () -> d::print_sink& { return d::print_sink_ref(); });
  failed += check("registry", [] () -> d::buffer_registry& { return d::registry(); });
  failed += check("clock_globals", [] () -> d::clock_state& { return d::clock_globals(); });
  failed += check("timing", [] () -> d::timing_state& { return d::timing(); });
  failed += check("op_timing_listener", [] () -> d::op_timer& { return d::op_timing_listener(); });
  if (failed == 0) std::printf("11 singletons built without the heap\n");
  return failed ? 1 : 0;
}
