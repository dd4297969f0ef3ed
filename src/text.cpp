// Numbers as text: shortest and fixed-precision floats, parsing.
#include "compiled.hpp"

#include <probe/util/float_text_impl.hpp>
