// The regex engine for filters and patterns.
#include "compiled.hpp"

#include <probe/util/regex_impl.hpp>
