// .npy files: headers, writing any host view, reading what numpy writes.
#include "compiled.hpp"

#include <probe/formats/npy_impl.hpp>
