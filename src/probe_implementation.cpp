// The implementation of probe, compiled once: the source of the probe::compiled target.
// Targets that link probe::compiled see PROBE_SEPARATE_IMPLEMENTATION, so their own TUs
// include only declarations and inline fast paths.
#define PROBE_IMPLEMENTATION
#include <probe/probe.hpp>
