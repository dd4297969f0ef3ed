// probe::format and numpy-style tensor text.
#include "compiled.hpp"

#include <probe/core/format_impl.hpp>
#include <probe/core/format_tensor_impl.hpp>
