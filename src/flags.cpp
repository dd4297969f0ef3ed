// Flags: PROBE_FLAGS and the command line into probe::options.
#include "compiled.hpp"

#include <probe/core/flags_impl.hpp>
