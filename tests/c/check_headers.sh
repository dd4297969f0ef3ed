#!/usr/bin/env bash
# probe.h compiles, with every macro in use (c_features.c), under gcc and clang in C99 and C11
# with -Wall -Wextra -pedantic -Werror and the conversion, shadowing and float-promotion
# warnings, probe compiled in and compiled out (PROBE_DISABLE, linked without the library);
# C89 stops with one clear #error.
# Usage: check_headers.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
prog=$src/tests/c/c_features.c
compilers=()
for cc in gcc clang; do command -v $cc >/dev/null && compilers+=($cc); done
[ ${#compilers[@]} -gt 0 ] || { echo "no C compiler"; exit 1; }
for cc in "${compilers[@]}"; do
  for std in c99 c11 gnu99; do
    flags=(-std=$std -Wall -Wextra -pedantic -Wconversion -Wsign-conversion -Wshadow -Wdouble-promotion -Werror
           -D_POSIX_C_SOURCE=200809L -I"$src/include")
    "$cc" "${flags[@]}" -fsyntax-only "$prog" || { echo "FAIL: $cc -std=$std"; exit 1; }
    "$cc" "${flags[@]}" -fsyntax-only -fopenmp "$prog" 2>/dev/null ||
      { "$cc" "${flags[@]}" -fsyntax-only -fopenmp "$prog" 2>&1 | grep -q "unsupported option\|openmp" || { echo "FAIL: $cc -std=$std -fopenmp"; exit 1; }; }
    # Compiled out: nothing to link but libc (the threads of the worker mode).
    "$cc" "${flags[@]}" -O2 -DPROBE_DISABLE "$prog" -o "$work/disabled_${cc}_$std" -pthread -lm ||
      { echo "FAIL: $cc -std=$std -DPROBE_DISABLE"; exit 1; }
    out=$(PROBE_FLAGS=--probe_print=on "$work/disabled_${cc}_$std" print 2>&1)
    [ -z "$out" ] || { echo "FAIL: the PROBE_DISABLE build printed: $out"; exit 1; }
    if nm "$work/disabled_${cc}_$std" | grep -q ' U probe_'; then echo "FAIL: the PROBE_DISABLE build calls probe"; exit 1; fi
    echo "ok: $cc -std=$std"
  done
  if "$cc" -std=c89 -pedantic -fsyntax-only -I"$src/include" "$prog" 2>"$work/c89.txt"; then
    echo "FAIL: $cc -std=c89 compiled"; exit 1
  fi
  grep -q "probe.h needs C99 or later" "$work/c89.txt" || { echo "FAIL: $cc -std=c89 without the #error:"; cat "$work/c89.txt"; exit 1; }
  # The #error is probe's one message: no other error from probe's headers.
  n=$(grep "include/probe/.*error" "$work/c89.txt" | grep -vc "needs C99" || true)
  [ "$n" -eq 0 ] || { echo "FAIL: $cc -std=c89: more errors from probe's headers:"; cat "$work/c89.txt"; exit 1; }
  echo "ok: $cc -std=c89 stops at the one #error"
done
echo "headers ok"
