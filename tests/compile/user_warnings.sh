#!/bin/bash
# A user's build with every warning an error, under one compiler, standard and optimization
# level. Optimizer warnings (GCC's -Wrestrict, -Wstringop-*, -Warray-bounds) appear only at
# some levels and only where a function is compiled in a given context, hence the modes:
#   header-only  a marking TU (only_probe.cpp) that also defines PROBE_IMPLEMENTATION, as a
#                vendored build does: every probe function is compiled with the marks
#   compiled     every src/*.cpp as probe::compiled builds it with the user's flags
#   cli          every source of the probe command (tools/probe, with the analysis headers),
#                as a user building the command with their own compiler does
# The first two add the conversion, cast, float-promotion and shadowing warnings below.
# usage: user_warnings.sh MODE COMPILER STD OPT PROJECT_DIR
set -eu
mode=$1 cxx=$2 std=$3 opt=$4 root=$5
if ! command -v "$cxx" > /dev/null 2>&1; then
  echo "$cxx not installed: skipped"
  exit 0
fi
flags=("-std=$std" "$opt" -Wall -Wextra -Werror -I"$root/include" -I"$root/tests/compile")
# Clang emits every warning of -Wall -Wextra from its front end (semantic analysis, templates
# instantiated included; none comes from its optimizer, unlike GCC's), so a Clang check stops
# there: the same diagnostics in a third of the time. -O still sets __OPTIMIZE__, as in the
# user's build.
case $("$cxx" --version | head -1) in
  *clang*) check() { "$cxx" "${flags[@]}" "$@" -fsyntax-only; } ;;
  *) check() { "$cxx" "${flags[@]}" "$@" -c -o /dev/null; } ;;
esac
if [ "$mode" = cli ]; then
  for f in "$root"/tools/probe/*.cpp; do
    echo "== $(basename "$f")"
    check -Wshadow -Wnon-virtual-dtor -I"$root/tools" -DPROBE_SEPARATE_IMPLEMENTATION "$f"
  done
  exit 0
fi
# What users add to -Wall -Wextra in numeric code (conversions, casts, float promotion,
# shadowing) holds for what a user's build compiles of probe: its headers and src/ (not the
# probe command's sources, which users do not compile into their programs).
flags+=(-Wconversion -Wsign-conversion -Wold-style-cast -Wdouble-promotion -Wshadow)
if [ "$mode" = compiled ]; then
  for f in "$root"/src/*.cpp; do
    echo "== $(basename "$f")"
    check -DPROBE_SEPARATE_IMPLEMENTATION "$f"
  done
  exit 0
fi
tu=$(mktemp /tmp/probe_user_warnings_XXXXXX.cpp)
trap 'rm -f "$tu"' EXIT
echo "== only_probe.cpp with PROBE_IMPLEMENTATION"
printf '#define PROBE_IMPLEMENTATION\n#include <probe/probe.hpp>\n#include "only_probe.cpp"\n' > "$tu"
check "$tu"
# The marking TU in the two other modes (quick: no implementation in them).
echo "== only_probe.cpp with PROBE_DISABLE"
check -DPROBE_DISABLE "$root/tests/compile/only_probe.cpp"
echo "== only_probe.cpp with PROBE_SEPARATE_IMPLEMENTATION"
check -DPROBE_SEPARATE_IMPLEMENTATION "$root/tests/compile/only_probe.cpp"
