// Everything out of line. Included by probe.hpp in header-only mode, and by the one TU that
// defines PROBE_IMPLEMENTATION in separate mode.
#pragma once
#include "../core/context_impl.hpp"
#include "../core/flags_impl.hpp"
#include "../core/format_impl.hpp"
#include "../core/tensor.hpp"
#include "wiring.hpp"
#include "../core/tensor_reader.hpp"
#include "../backends/cuda_access.hpp"
#include "../backends/cuda_effects.hpp"
