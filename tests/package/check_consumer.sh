#!/usr/bin/env bash
# Builds tests/package/consumer against probe three ways: from an install tree with
# find_package, with add_subdirectory, and with FetchContent from a git repository; runs both
# of its programs with dumping on and checks each wrote its manifest.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake_quiet() { cmake "$@" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }; }

cmake_quiet -S "$src" -B "$work/probe" -DPROBE_BUILD_TESTS=OFF -DPROBE_BUILD_EXAMPLES=OFF \
  -DPROBE_BUILD_BENCHMARKS=OFF -DPROBE_BUILD_TOOLS=OFF -DPROBE_INSTALL=ON -DCMAKE_BUILD_TYPE=Release
cmake_quiet --build "$work/probe" -j2
cmake_quiet --install "$work/probe" --prefix "$work/prefix"

# A git repository of the current sources (FetchContent clones it).
git -C "$src" ls-files -z | (cd "$src" && xargs -0 tar cf -) | (mkdir -p "$work/repo" && cd "$work/repo" && tar xf -)
git -C "$work/repo" init -q && git -C "$work/repo" add -A &&
  git -C "$work/repo" -c user.name=t -c user.email=t@t commit -qm snapshot

for how in find_package add_subdirectory fetchcontent; do
  case $how in
    find_package) extra=(-DCMAKE_PREFIX_PATH="$work/prefix") ;;
    add_subdirectory) extra=(-DPROBE_SOURCE="$src") ;;
    fetchcontent) extra=(-DPROBE_SOURCE="$work/repo") ;;
  esac
  b="$work/consumer_$how"
  cmake_quiet -S "$src/tests/package/consumer" -B "$b" -DPROBE_CONSUME=$how "${extra[@]}" -DCMAKE_BUILD_TYPE=Release
  cmake_quiet --build "$b" -j2
  # Vendored probe builds nothing of its own beyond the library targets.
  if [ "$how" != find_package ] && find "$b" -name 'test_*' -type f -perm -u+x | grep -q .; then
    echo "$how: probe's tests were built in a consumer build"; exit 1
  fi
  for prog in header_only compiled; do
    rm -rf "$work/dump"
    out=$(PROBE_FLAGS="--probe_dump_to=$work/dump --probe_dump_stats_only" "$b/$prog")
    echo "$how/$prog: $out"
    grep -q '"record":"tensor"' "$work/dump/manifest.jsonl" || { echo "$how/$prog: no manifest"; exit 1; }
  done
  grep -q '"op":"other"' "$work/dump/manifest.jsonl" || { echo "$how: the second TU did not dump"; exit 1; }
done
echo "consumer builds ok"
