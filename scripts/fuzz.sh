#!/usr/bin/env bash
# Builds probe's libFuzzer harnesses (tests/fuzz) with clang++, AddressSanitizer and
# UndefinedBehaviorSanitizer in a build folder of their own, replays every crash reproducer
# checked in (tests/fuzz/regressions), then runs each harness for SECONDS from its seed
# corpus and reports executions and crashes.
#
#   scripts/fuzz.sh [SECONDS]     (default 60 per harness)
#   FUZZERS="npy json" scripts/fuzz.sh 300     only those harnesses
#   FUZZ_RUNS=1000000 scripts/fuzz.sh 600      each harness stops at 1M executions or 600 s
#   PROBE_FUZZ_BUILD_DIR (default build/fuzz), CXX (default clang++), JOBS (default nproc),
#   FUZZ_OPT (default -O1: the harnesses' optimization level; the smoke test builds at -O0)
#
# Exit: 0 no crash, 1 a crash (its input is kept: the path is printed), 77 no clang++ with
# libFuzzer here (nothing was run).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${PROBE_FUZZ_BUILD_DIR:-$src/build/fuzz}
cxx=${CXX:-clang++}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

probe_cxx=$(mktemp -d)
trap 'rm -rf "$probe_cxx"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe_cxx/t.cpp"
if ! command -v "$cxx" >/dev/null || ! "$cxx" -fsanitize=fuzzer "$probe_cxx/t.cpp" -o "$probe_cxx/t" 2>/dev/null; then
  echo "fuzz: $cxx cannot build a libFuzzer program here; nothing run"
  exit 77
fi

echo "== building the harnesses in $build"
cmake -S "$src" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPROBE_BUILD_FUZZERS=ON -DPROBE_FUZZ_OPT="${FUZZ_OPT:--O1}" -DPROBE_BUILD_TESTS=ON -DPROBE_BUILD_TOOLS=OFF -DPROBE_BUILD_EXAMPLES=OFF \
  -DPROBE_BUILD_BENCHMARKS=OFF -DPROBE_INSTALL=OFF -DPROBE_USE_CUDA=OFF >"$build.log" 2>&1 || { cat "$build.log"; exit 1; }
cmake --build "$build" -j"$jobs" --target probe_fuzzers >>"$build.log" 2>&1 || { tail -50 "$build.log"; exit 1; }

all=$(sed -n 's/^set(probe_fuzzers \(.*\))$/\1/p' "$src/tests/fuzz/CMakeLists.txt")
names=${FUZZERS:-$all}
export PROBE_FUZZ_SKIP_KNOWN=1  # harnesses skip inputs of known library defects while fuzzing
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

status=0
# Reproducers: each must run clean, except those listed as known library failures.
known="$src/tests/fuzz/regressions/known_failures.txt"
for name in $names; do
  for input in "$src/tests/fuzz/regressions/$name"/*; do
    [ -f "$input" ] || continue
    rel="$name/$(basename "$input")"
    if env -u PROBE_FUZZ_SKIP_KNOWN "$build/tests/fuzz/fuzz_$name" -runs=1 "$input" >"$build/replay.log" 2>&1; then
      grep -q "^$rel " "$known" 2>/dev/null && echo "fuzz: $rel no longer fails: take it off known_failures.txt"
    elif grep -q "^$rel " "$known" 2>/dev/null; then
      echo "fuzz: $rel still fails (known)"
    else
      echo "fuzz: reproducer $rel fails again:"
      tail -30 "$build/replay.log"
      status=1
    fi
  done
done

printf '%-16s %10s %8s %10s  %s\n' harness executions seconds "exec/s" result
for name in $names; do
  work="$build/corpus_run/$name"
  mkdir -p "$work"
  log="$build/fuzz_$name.log"
  set +e
  # shellcheck disable=SC2046
  "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" $([ -n "${FUZZ_RUNS:-}" ] && echo "-runs=$FUZZ_RUNS") -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/crash_${name}_" "$work" "$src/tests/fuzz/corpus/$name" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ "$rc" = 0 ]; then
    result="ok, 0 crashes"
  else
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    result="CRASH (exit $rc) ${artifact:-see $log}"
    status=1
  fi
  printf '%-16s %10s %8s %10s  %s\n' "$name" "${runs:-?}" "${took:-$seconds}" "${rate:-?}" "$result"
done
exit $status
