#!/usr/bin/env bash
# A TU that only includes <probe/probe.hpp> (header-only mode) must instantiate none of the
# implementation: every out-of-line function is a deferred template (config.hpp,
# docs/internals.md "Deferral"), so the compiler parses the bodies and analyses none of them.
# -fkeep-inline-functions makes GCC emit every inline function the TU defined or instantiated;
# compared with a TU of the public fast paths alone (separate mode), the extra symbols may
# only be the small plain helpers listed below. A deferred function instantiated anyway
# shows up as `...<0>(...)`, a plain inline function reaching std containers as their members.
#
# Usage: include_instantiates_nothing.sh CXX INCLUDE_DIR WORK_DIR
set -euo pipefail
cxx=$1 inc=$2 work=$3
mkdir -p "$work"
printf '#include <probe/probe.hpp>\n' >"$work/only.cpp"
printf '#include <string>\n#include <vector>\n#include <charconv>\n#include <exception>\n#include <new>\n#define PROBE_SEPARATE_IMPLEMENTATION\n#include <probe/probe.hpp>\n' >"$work/fast.cpp"
symbols() {
  "$cxx" -std=c++17 -O0 -fkeep-inline-functions -I"$inc" -c "$work/$1.cpp" -o "$work/$1.o"
  nm -C "$work/$1.o" | awk '$2 == "T" || $2 == "W" {$1 = ""; $2 = ""; print substr($0, 3)}' | sort -u
}
symbols only >"$work/only.txt"
symbols fast >"$work/fast.txt"
# Small plain helpers the implementation may keep: pthread wrappers, the listener interface's
# empty defaults, a file-descriptor guard, the 16-bit float decoders (template arguments),
# and trivial std helpers the std headers emit for any use.
allowed='^probe::v0::detail::(mutex|static_mutex|recursive_mutex|condvar|thread|op_listener)::'
allowed+='|^probe::v0::npy::detail::fd_guard::'
allowed+='|^probe::v0::detail::(f16_bits_unbounded|bf16_bits_unbounded|fp_pow2)\('
allowed+='|^__pthread_cleanup_class::'
allowed+='|std::__is_complete_or_unbounded<'
allowed+='|^__gnu_cxx::__alloc_traits<[^>]*>, char>::_S_'
extra=$(comm -23 "$work/only.txt" "$work/fast.txt" | grep -Ev "$allowed" || true)
if [ -n "$extra" ]; then
  echo "including <probe/probe.hpp> instantiated or emitted implementation code:"
  echo "$extra" | head -40
  echo "($(echo "$extra" | wc -l) symbols; see docs/internals.md, Deferral)"
  exit 1
fi
echo "ok: $(wc -l <"$work/only.txt") symbols, $(comm -23 "$work/only.txt" "$work/fast.txt" | wc -l) beyond the fast paths, all allowed"
