// Timing: clocks, per-thread event buffers, aggregation, summary, trace.
#include "compiled.hpp"

#include <probe/effects/timing_impl.hpp>
#include <probe/effects/timing_aggregate_impl.hpp>
#include <probe/effects/timing_buffer_impl.hpp>
#include <probe/effects/timing_clock_impl.hpp>
#if defined(PROBE_WITH_CUDA) || defined(PROBE_WITH_DEVICE_TIMING)
#include <probe/effects/device_timing_impl.hpp>  // device op timing
#endif
