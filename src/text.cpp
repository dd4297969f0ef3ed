// Text: numbers (shortest and fixed-precision floats, parsing) and text made safe for a terminal, JSON or XML.
#include "compiled.hpp"

#include <probe/util/float_text_impl.hpp>
#include <probe/util/text_impl.hpp>
