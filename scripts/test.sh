#!/usr/bin/env bash
# Runs probe's whole test suite: installs what the tests need (Debian packages) when it is
# missing, configures, builds, and runs ctest. Usage: scripts/test.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."

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

build=${PROBE_BUILD_DIR:-build/test}
jobs=$(nproc 2>/dev/null || echo 2)
echo "== configuring in $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROBE_BUILD_TESTS=ON \
  -DPROBE_BUILD_EXAMPLES=ON -DPROBE_BUILD_TOOLS=ON -DPROBE_BUILD_BENCHMARKS=ON >/dev/null
echo "== building"
cmake --build "$build" -j"$jobs"
echo "== testing"
cd "$build"
ctest --output-on-failure -j"$jobs" "$@"
