#!/bin/bash
# A user's build with every warning an error: one TU that defines PROBE_IMPLEMENTATION (so
# every probe function is compiled, as in a vendored build) and marks ops, prints and times
# (only_probe.cpp), under one compiler, standard and optimization level. Optimizer warnings
# (GCC's -Wrestrict, -Wstringop-*, -Warray-bounds) appear only at some levels, hence the
# configurations registered in CMakeLists.txt.
# usage: user_warnings.sh COMPILER STD OPT INCLUDE_DIR SOURCE_DIR
set -eu
cxx=$1 std=$2 opt=$3 inc=$4 src=$5
if ! command -v "$cxx" > /dev/null 2>&1; then
  echo "$cxx not installed: skipped"
  exit 0
fi
tu=$(mktemp /tmp/probe_user_warnings_XXXXXX.cpp)
trap 'rm -f "$tu"' EXIT
printf '#define PROBE_IMPLEMENTATION\n#include <probe/probe.hpp>\n#include "only_probe.cpp"\n' > "$tu"
exec "$cxx" "-std=$std" "$opt" -Wall -Wextra -Werror -I"$inc" -I"$src" -c "$tu" -o /dev/null
