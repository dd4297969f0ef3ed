// probe — instrumentation for accelerator computations. The one header users include.
//
//   #include <probe/probe.hpp>
//   probe::op op("conv1", "Conv");
//   op.input("x", x);  run_conv(x, w, y);  op.output("y", y);
//
// Run time behaviour comes from PROBE_FLAGS (see --probe_help). Build modes (config.hpp):
// default header-only; PROBE_SEPARATE_IMPLEMENTATION + one TU with PROBE_IMPLEMENTATION;
// PROBE_DISABLE compiles every mark to nothing.
#pragma once
#include "util/config.hpp"
#include "core/dtype.hpp"
#include "core/half.hpp"
#include "core/tensor_view.hpp"
#include "core/options.hpp"
#include "core/op.hpp"
#include "core/lifecycle.hpp"
#include "core/format.hpp"
#include "core/stats.hpp"
#include "util/log.hpp"
#include "effects/breakpoint.hpp"
#include "effects/print.hpp"
#include "effects/timing.hpp"
#include "effects/replay.hpp"

#if PROBE_HAS_IMPLEMENTATION
#include "wiring/implementation.hpp"
#endif
