// probe.h: the C interface over the compiled library.
#include "compiled.hpp"

#include <probe/c_api_impl.hpp>
