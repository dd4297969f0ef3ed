// Every source file of the compiled library (probe::compiled) starts here: the headers then
// declare what other files define, and this file's module defines its part, once.
#pragma once
#if !defined(PROBE_SEPARATE_IMPLEMENTATION)
#error "src/ builds the compiled library: define PROBE_SEPARATE_IMPLEMENTATION (the probe::compiled target does)"
#endif
#if defined(PROBE_DISABLE)
#error "PROBE_DISABLE compiles probe out: there is nothing to build in src/"
#endif
#include <probe/probe.hpp>
