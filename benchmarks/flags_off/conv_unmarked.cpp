// The same conv layer with no probe at all.
#define LAYER_FN conv_unmarked
#include "conv_layer.inc"
