// The wiring of effects to the flags, and the CUDA backends (compiled with PROBE_WITH_CUDA), which register themselves as this file's objects start.
#include "compiled.hpp"

#include <probe/wiring/wiring_impl.hpp>
#include <probe/backends/cuda_access.hpp>
#include <probe/backends/cuda_timing.hpp>
#include <probe/backends/cuda_effects.hpp>
