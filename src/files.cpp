// Files: whole writes, directories, files that appear atomically.
#include "compiled.hpp"

#include <probe/util/fs_impl.hpp>
