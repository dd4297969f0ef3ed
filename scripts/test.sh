#!/usr/bin/env bash
# Runs probe's whole test suite: installs what the tests need (Debian packages) when it is
# missing, configures, builds, and runs ctest.
#   scripts/test.sh [extra ctest args]
#   scripts/test.sh --sanitize [extra ctest args]   the same suite built with AddressSanitizer
#       and UndefinedBehaviorSanitizer (in build/sanitize); any report fails its test
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=0
if [ "${1:-}" = "--sanitize" ]; then
  sanitize=1
  shift
fi

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
echo "== configuring in $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROBE_BUILD_TESTS=ON \
  -DPROBE_BUILD_EXAMPLES=ON -DPROBE_BUILD_TOOLS=ON -DPROBE_BUILD_BENCHMARKS=ON "${sanitizer_flags[@]}" >/dev/null
echo "== building"
cmake --build "$build" -j"$jobs"
echo "== testing"
cd "$build"
ctest --output-on-failure -j"$jobs" "$@"
