// Everything out of line. Included by probe.hpp in header-only mode, and by the one TU that
// defines PROBE_IMPLEMENTATION in separate mode.
#pragma once
#include "../core/context_impl.hpp"
#include "../core/flags_impl.hpp"
#include "../core/stats.hpp"
#include "../core/tensor.hpp"
#include "../formats/npy.hpp"
#include "wiring.hpp"
