// The one TU that compiles probe for the compiled-mode fast-math builds.
#define PROBE_IMPLEMENTATION
#include <probe/probe.hpp>
