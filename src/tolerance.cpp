// Whether two tensors agree within a tolerance (allclose with probe compare's rules).
#include "compiled.hpp"

#include <probe/core/tolerance_impl.hpp>
