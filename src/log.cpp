// probe's messages and the log sink.
#include "compiled.hpp"

#include <probe/util/log_impl.hpp>
