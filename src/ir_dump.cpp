// The engine's IR at compiler passes: modules, passes, their files and manifest records.
#include "compiled.hpp"

#include <probe/effects/ir_dump_impl.hpp>
