// Op records: sequence numbers, occurrences, data-flow edges, listeners.
#include "compiled.hpp"

#include <probe/core/context_impl.hpp>
