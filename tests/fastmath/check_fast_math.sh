#!/usr/bin/env bash
# Runs one fast-math build of fast_math_program with a stats-only dump and a non-finite break
# (mode dump: the variables are written and the program goes on), then checks the manifest
# counted the NaN and the break fired. Usage: check_fast_math.sh PROGRAM WORK_DIR
set -euo pipefail
prog=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$prog" --probe_dump_to="$work/dump" --probe_dump_stats_only --probe_break_on_nonfinite \
  --probe_breakpoint=dump 2>"$work/stderr.txt"
grep -q '"op":"planted".*"slot":"y".*"nan":1' "$work/dump/manifest.jsonl" ||
  grep -q '"slot":"y".*"op":"planted".*"nan":1' "$work/dump/manifest.jsonl" ||
  { echo "manifest lacks the NaN count of planted's output"; cat "$work/dump/manifest.jsonl"; exit 1; }
grep -qi "non-finite" "$work/stderr.txt" || { echo "the non-finite break did not fire"; cat "$work/stderr.txt"; exit 1; }
echo "ok: $(basename "$prog")"
