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
#if defined(__cplusplus) && __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#if defined(PROBE_DISABLE)
#include "disabled_cxx11.hpp"  // marks compile to nothing; metric and timer still work
#else
#error "probe needs C++17 (compile this file with -std=c++17), or define PROBE_DISABLE to compile its marks out, or include <probe/probe.h>, the C interface, which any C or C++ file can use"
#endif
#else
#include "util/config.hpp"
#include "core/dtype.hpp"
#include "core/half.hpp"
#include "core/tensor_view.hpp"
#include "core/options.hpp"
#include "core/op.hpp"
#include "core/op_context.hpp"
#include "core/lifecycle.hpp"
#include "core/format.hpp"
#include "core/stats.hpp"
#include "util/log.hpp"
#include "effects/breakpoint.hpp"
#include "effects/print.hpp"
#include "effects/timing.hpp"
#include "effects/replay.hpp"
#include "effects/ir_dump.hpp"

#if PROBE_HAS_IMPLEMENTATION
#include "wiring/implementation.hpp"
// The C interface (probe.h) only where probe is compiled once: in plain header-only mode
// every TU would define its extern "C" functions.
#if defined(PROBE_IMPLEMENTATION)
#include "c_api_impl.hpp"
#endif
#endif
#endif  // C++17
