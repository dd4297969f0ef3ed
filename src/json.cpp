// JSON: the reader (the writer is inline).
#include "compiled.hpp"

#include <probe/formats/json_read_impl.hpp>
