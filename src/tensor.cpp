// Reading tensors into host memory (strided, device).
#include "compiled.hpp"

#include <probe/core/tensor_reader_impl.hpp>
