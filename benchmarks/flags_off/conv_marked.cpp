// The conv layer marked with probe (the build mode is the target's: header-only or compiled).
#include <probe/probe.hpp>
#define LAYER_MARKED
#define LAYER_FN conv_marked
#include "conv_layer.inc"
