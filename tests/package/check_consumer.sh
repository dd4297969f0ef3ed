#!/usr/bin/env bash
# Builds tests/package/consumer against probe three ways: from an install tree with
# find_package, with add_subdirectory, and with FetchContent from a git repository; runs its
# programs (both, or for FetchContent the header-only one) with dumping on and checks each
# wrote its manifest. Then without CMake: a
# vendored copy of include/ built by a plain Makefile (one TU compiles the implementation),
# and the generated single header in both modes. A C project builds against the install too
# (check_c_consumer.sh).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake_quiet() { cmake "$@" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }; }
# These builds check the package's wiring and its forms, not the code's optimized build:
# probe's own test build compiles src/ at -O2 with every warning an error, and tests/compile's
# matrix builds include/ at every level. So nothing here is optimized (no build type), which
# makes each build several times cheaper.

cmake_quiet -S "$src" -B "$work/probe" -DPROBE_BUILD_TESTS=OFF -DPROBE_BUILD_EXAMPLES=OFF \
  -DPROBE_BUILD_BENCHMARKS=OFF -DPROBE_BUILD_TOOLS=OFF -DPROBE_INSTALL=ON
cmake_quiet --build "$work/probe" -j2
cmake_quiet --install "$work/probe" --prefix "$work/prefix"
# A compiled library's package lives per architecture, under LIBDIR.
libdir=$(cd "$work/prefix" && ls -d lib*/cmake/probe 2>/dev/null | head -1)
[ -n "$libdir" ] && [ -f "$work/prefix/$libdir/probeConfig.cmake" ] || { echo "no LIBDIR/cmake/probe package"; exit 1; }
[ ! -d "$work/prefix/share/probe" ] || { echo "a package under share/ as well"; exit 1; }
# A project on a machine without CUDA finds the package all the same, built here with CUDA or
# not (the CUDA targets are then left out), and builds against probe::compiled.
cmake_quiet -S "$src/tests/package/consumer" -B "$work/consumer_no_cuda" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
grep -q "probe: no CUDA targets" "$work/log" || { cat "$work/log"; echo "no CUDA: probe's CUDA targets were loaded"; exit 1; }
cmake_quiet --build "$work/consumer_no_cuda" -j2 --target compiled
"$work/consumer_no_cuda/compiled" | grep -q "consumer ok" || { echo "no CUDA: the program fails"; exit 1; }
if [ -f "$work/prefix/$libdir/probeCudaTargets.cmake" ]; then  # and with CUDA, the twins are there
  cmake_quiet -S "$src/tests/package/consumer" -B "$work/consumer_cuda" -DCMAKE_PREFIX_PATH="$work/prefix"
  grep -q "probe: CUDA targets" "$work/log" || { cat "$work/log"; echo "CUDA: probe's CUDA targets are missing"; exit 1; }
fi
# A C project against the same install: CMake (LANGUAGES C) and a plain Makefile.
"$src/tests/package/check_c_consumer.sh" "$work/prefix" "$work/c_consumer"

# A git repository of the current sources (FetchContent clones it).
git -C "$src" ls-files -z | (cd "$src" && xargs -0 tar cf -) | (mkdir -p "$work/repo" && cd "$work/repo" && tar xf -)
git -C "$work/repo" init -q && git -C "$work/repo" add -A &&
  git -C "$work/repo" -c user.name=t -c user.email=t@t commit -qm snapshot

for how in find_package add_subdirectory fetchcontent; do
  # Vendored: probe configured inside the consumer (CUDA detection is checked by the install
  # build above; nvcc's configure checks would double the time of these two).
  case $how in
    find_package) extra=(-DCMAKE_PREFIX_PATH="$work/prefix") ;;
    add_subdirectory) extra=(-DPROBE_SOURCE="$src" -DPROBE_USE_CUDA=OFF) ;;
    fetchcontent) extra=(-DPROBE_SOURCE="$work/repo" -DPROBE_USE_CUDA=OFF) ;;
  esac
  b="$work/consumer_$how"
  cmake_quiet -S "$src/tests/package/consumer" -B "$b" -DPROBE_CONSUME=$how "${extra[@]}"
  # FetchContent builds the header-only program only: the clone is the same sources that
  # add_subdirectory has just built, and generating the build already checks that each of
  # probe::compiled's sources is in the repository (a missing one fails the configure).
  progs=(header_only compiled)
  [ $how = fetchcontent ] && progs=(header_only)
  cmake_quiet --build "$b" -j2 --target "${progs[@]}"
  # Vendored probe builds nothing of its own beyond the library targets.
  # (CMakeFiles holds CMake's own checks, such as FindMPI's test_mpi_CXX.bin)
  if [ "$how" != find_package ] && find "$b" -path '*/CMakeFiles' -prune -o -name 'test_*' -type f -perm -u+x -print | grep -q .; then
    echo "$how: probe's tests were built in a consumer build"; exit 1
  fi
  for prog in "${progs[@]}"; do
    rm -rf "$work/dump"
    out=$(PROBE_FLAGS="--probe_dump_to=$work/dump --probe_dump_stats_only" "$b/$prog")
    echo "$how/$prog: $out"
    grep -q '"record":"tensor"' "$work/dump/manifest.jsonl" || { echo "$how/$prog: no manifest"; exit 1; }
    if [ $prog = compiled ] && ! grep -q '"op":"other"' "$work/dump/manifest.jsonl"; then
      echo "$how: the second TU did not dump"; exit 1
    fi
  done
done
# Vendored without CMake: the headers copied into the project, one TU compiles probe.
cxx=${CXX:-g++}
vend="$work/vendored"
mkdir -p "$vend/third_party"
cp -r "$src/include/probe" "$vend/third_party/"
cp "$src/tests/package/consumer/main.cpp" "$src/tests/package/consumer/other.cpp" "$vend/"
printf '#define PROBE_IMPLEMENTATION\n#include <probe/probe.hpp>\n' >"$vend/probe_impl.cpp"
printf '%s\n' \
  'CXXFLAGS = -std=c++17 -Wall -Wextra -Werror -Ithird_party -DPROBE_SEPARATE_IMPLEMENTATION -DWITH_OTHER' \
  'app: main.o other.o probe_impl.o' \
  "$(printf '\t')\$(CXX) -o \$@ \$^ -pthread" >"$vend/Makefile"
make -s -j2 -C "$vend" CXX="$cxx" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
rm -rf "$work/dump"
out=$(PROBE_FLAGS="--probe_dump_to=$work/dump --probe_dump_stats_only" "$vend/app")
echo "makefile/vendored: $out"
grep -q '"op":"other"' "$work/dump/manifest.jsonl" || { echo "vendored: the second TU did not dump"; exit 1; }

# The single header (single_include/probe/probe.hpp, found as <probe/probe.hpp>), with the
# strictest warnings: header-only in C++17 (two TUs, each with the implementation, link) and
# compiled once by one TU in C++20, so each standard compiles the implementation once.
# Unoptimized: the single header is include/ concatenated, which the warnings matrix builds
# optimized; here it is its form that is checked (whole, in two TUs, linked, run).
# compile OUT FLAGS... SOURCE: one object, in the background (two at a time on two cores).
compile_bg() {
  local out=$1
  shift
  "$cxx" "$@" -c -o "$out" 2>"$out.log" &
}
# wait_all WHAT: every background compile succeeded, or their errors and WHAT.
wait_all() {
  local failed=0 pid
  for pid in $(jobs -p); do wait "$pid" || failed=1; done
  if ((failed)); then cat "$work"/*.o.log; echo "$1"; exit 1; fi
}
for std in c++17 c++20; do
  flags=(-std=$std -O0 -Wall -Wextra -Werror -I"$src/single_include" -DWITH_OTHER)
  if [ $std = c++17 ]; then
    mode=header_only
    compile_bg "$work/sh_main.o" "${flags[@]}" "$src/tests/package/consumer/main.cpp"
    compile_bg "$work/sh_other.o" "${flags[@]}" "$src/tests/package/consumer/other.cpp"
  else
    mode=compiled
    for f in main other probe_impl; do
      in="$src/tests/package/consumer/$f.cpp"
      [ $f = probe_impl ] && in="$vend/probe_impl.cpp"
      compile_bg "$work/sh_$f.o" "${flags[@]}" -DPROBE_SEPARATE_IMPLEMENTATION "$in"
    done
  fi
  wait_all "single header, $mode ($std): the build fails"
  prog="$work/single_${mode}_$std"
  "$cxx" -o "$prog" "$work"/sh_*.o -pthread
  rm -f "$work"/sh_*.o
  rm -rf "$work/dump"
  out=$(PROBE_FLAGS="--probe_dump_to=$work/dump --probe_dump_stats_only" "$prog")
  echo "single header, $mode ($std): $out"
  grep -q '"op":"other"' "$work/dump/manifest.jsonl" || { echo "$prog: the second TU did not dump"; exit 1; }
done
# Compiled out: the single header under PROBE_DISABLE, in C++17 and in a C++11 file.
"$cxx" -std=c++17 -O2 -Wall -Wextra -Werror -I"$src/single_include" -DPROBE_DISABLE \
  "$src/tests/package/consumer/main.cpp" -o "$work/single_disabled" || { echo "single header: PROBE_DISABLE build fails"; exit 1; }
"$work/single_disabled" | grep -q "consumer ok" || { echo "single header: PROBE_DISABLE program fails"; exit 1; }
"$cxx" -std=c++11 -Wall -Wextra -Werror -pedantic -I"$src/single_include" -DPROBE_DISABLE -c \
  "$src/tests/c/old_standard.cpp" -o "$work/single_cxx11.o" || { echo "single header: C++11 PROBE_DISABLE build fails"; exit 1; }
echo "consumer builds ok"
