// Reading snapshot folders (snapshot.json and where to find them).
#include "compiled.hpp"

#include <probe/formats/snapshot_impl.hpp>
