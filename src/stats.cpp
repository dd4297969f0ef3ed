// Health statistics of tensors.
#include "compiled.hpp"

#include <probe/core/stats_impl.hpp>
