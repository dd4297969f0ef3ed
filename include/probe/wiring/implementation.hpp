// Everything out of line. Included by probe.hpp in header-only mode, and by the one TU that
// defines PROBE_IMPLEMENTATION in separate mode.
#pragma once
#include "../core/context_impl.hpp"
#include "../core/flags_impl.hpp"
#include "../core/format_impl.hpp"
#include "../core/stats.hpp"
#include "../core/tensor.hpp"
#include "../formats/npy.hpp"
#include "wiring.hpp"
#include "../core/tensor_reader.hpp"
#include "../backends/cuda_access.hpp"
#if defined(PROBE_WITH_CUDA) || defined(PROBE_WITH_DEVICE_TIMING)
#include "../backends/gpu_timing.hpp"  // device op timing (CUDA events, or a test's fake)
#endif
#include "../backends/cuda_timing.hpp"    // CUDA events and NVTX, only under PROBE_WITH_CUDA
#include "../backends/cuda_effects.hpp"   // asynchronous print/callback copies, only under PROBE_WITH_CUDA
