#!/usr/bin/env bash
# Runs probe's tests: installs what the tests need (Debian packages) when it is missing,
# configures, builds, and runs ctest.
#   scripts/test.sh [extra ctest args]          the quick suite: every test but those labelled
#       `slow`, which are not even built (PROBE_BUILD_SLOW_TESTS=OFF, no benchmarks); the CUDA
#       programs only where a GPU is present (nvcc's compile checks are --all's elsewhere)
#   scripts/test.sh --all [extra ctest args]    the whole suite (what CI runs, .ci/run): the
#       quick suite plus packaging every way, the compile-warnings matrix, the ASan/UBSan and
#       TSan rebuilds, header-only twins of unit tests (one executable), fuzzing, benchmark
#       smoke runs
#   scripts/test.sh --sanitize [extra ctest args]   the whole suite built with AddressSanitizer
#       and UndefinedBehaviorSanitizer (in build/sanitize); any report fails its test
# The quick suite and --all share build/test: --all after it builds only what it adds.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=0
all=0
while [ $# -gt 0 ]; do
  case $1 in
    --sanitize) sanitize=1 ;;
    --all) all=1 ;;
    *) break ;;
  esac
  shift
done
((sanitize)) && all=1  # the sanitizer build runs the whole suite

packages=(doctest-dev python3-numpy graphviz chromium openmpi-bin libopenmpi-dev git nodejs gdb bsdutils valgrind)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing test dependencies: ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
sanitizer_flags=()
if ((sanitize)); then
  build=${PROBE_BUILD_DIR:-build/sanitize}
  # GCC's -Wmaybe-uninitialized is unreliable under the sanitizers (it flags libstdc++'s own
  # std::regex): off here, on in every other build.
  flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -Wno-maybe-uninitialized"
  sanitizer_flags=(-DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
                   -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined")
  # A sanitizer report stops the program with a failing status, so the test that ran it fails.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
else
  build=${PROBE_BUILD_DIR:-build/test}
fi
if ((all)); then
  # Install rules too: they build probe::compiled_cuda where CUDA is found.
  suite=(-DPROBE_BUILD_SLOW_TESTS=ON -DPROBE_BUILD_BENCHMARKS=ON -DPROBE_INSTALL=ON)
  select=()
else
  suite=(-DPROBE_BUILD_SLOW_TESTS=OFF -DPROBE_BUILD_BENCHMARKS=OFF -DPROBE_INSTALL=OFF)
  select=(-LE slow)
fi
# CUDA: the quick suite builds the CUDA programs where they can run (a GPU is here); on a
# machine without one, nvcc's compile checks (minutes of compiling, nothing to run) are left
# to --all, which always builds them where CMake finds a CUDA compiler.
cuda=(-DPROBE_USE_CUDA=ON)
if ((!all)) && ! [ -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
  cuda=(-DPROBE_USE_CUDA=OFF)
  echo "== no GPU here: the CUDA programs are built by --all only"
fi
# Optimized as users ship, with line tables for backtraces (gdb, the sanitizers) but not the
# full debug info of -g, which costs a third more compile time on probe's template-heavy TUs
# and which no test reads.
debug_info=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
            -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O2 -Xcompiler=-g1 -DNDEBUG")
echo "== configuring in $build ($( ((all)) && echo "whole suite" || echo "quick suite; --all for the whole suite"))"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${debug_info[@]}" -DPROBE_BUILD_TESTS=ON \
  -DPROBE_BUILD_EXAMPLES=ON -DPROBE_BUILD_TOOLS=ON "${suite[@]}" "${cuda[@]}" "${sanitizer_flags[@]}" >/dev/null
echo "== building"
cmake --build "$build" -j"$jobs"
echo "== testing"
cd "$build"
ctest --output-on-failure -j"$jobs" "${select[@]}" "$@"
