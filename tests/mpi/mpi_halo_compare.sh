#!/usr/bin/env bash
# The MPI example on 4 ranks with a bug planted in rank 2's stencil at step 1: rank 3's halo
# exchange then receives rank 2's wrong edge cell. With probe::mpi linked, compare follows the
# message and names one root cause, rank 2's stencil#1; without it (the plain build), rank 3's
# halo stays a root of its rank but carries the note that it may have received rank 2's data.
#   mpi_halo_compare.sh MPIEXEC MPI_HALO MPI_HALO_PLAIN PROBE WORK_DIR
set -euo pipefail
mpiexec=$1 halo=$2 plain=$3 probe=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
run() {  # run PROGRAM DUMP [args]
  timeout 60 "$mpiexec" "${root[@]}" --oversubscribe -np 4 -x PROBE_FLAGS="--probe_dump_to=$2 --probe_dump_as_npy" \
    "$1" "${@:3}" >"$2.log" 2>&1 || { cat "$2.log"; echo "FAIL: mpirun $1 exited non-zero"; exit 1; }
}
run "$halo" good
run "$halo" bad --bug
run "$plain" plain_good
run "$plain" plain_bad --bug
for r in 0 1 2 3; do [ -f "good/rank_000$r/manifest.jsonl" ] || { echo "FAIL: no dump of rank $r"; exit 1; }; done
grep -q -e '"record":"message"' good/rank_0003/manifest.jsonl || { echo "FAIL: probe::mpi wrote no message record"; exit 1; }
if grep -q -e '"record":"message"' plain_good/rank_0003/manifest.jsonl; then echo "FAIL: messages without probe::mpi"; exit 1; fi

set +e
"$probe" compare bad good >report.txt 2>&1; rc=$?
"$probe" compare plain_bad plain_good >plain.txt 2>&1; rc_plain=$?
set -e
echo "== with probe::mpi"; cat report.txt
echo "== without"; cat plain.txt
[ "$rc" = 1 ] && [ "$rc_plain" = 1 ] || { echo "FAIL: compare exited $rc / $rc_plain, expected 1 (mismatch)"; exit 1; }
# Lines are wrapped at 120 columns: join continuation lines before matching.
join() { sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' "$1"; }
report=$(join report.txt) plain=$(join plain.txt)
roots=$(echo "$report" | grep -E 'Root cause:' | grep -Eo '^rank_[0-9]+: Root cause: op [a-z_]+#[0-9]+' || true)
[ "$roots" = "rank_0002: Root cause: op stencil#1" ] || { echo "FAIL: root causes: '$roots' (expected rank 2's stencil#1 alone)"; exit 1; }
grep -q -e 'first divergence in time: rank 2, op stencil#1' <<<"$report" || { echo "FAIL: first divergence across ranks"; exit 1; }
grep -q -e "rank 3: op halo#[0-9]* (Halo) at seq [0-9]* is not a root: .*received from rank 2 \`stencil#1\`'s output" <<<"$report" ||
  { echo "FAIL: rank 3's halo is not said to come from rank 2's stencil#1"; exit 1; }
grep -q -e 'Root stencil#1 on rank 2 reaches other ranks: rank 3: halo#' <<<"$report" || { echo "FAIL: reach on rank 3"; exit 1; }
plain_roots=$(echo "$plain" | grep -Eo '^rank_[0-9]+: Root cause: op [a-z_]+#[0-9]+' | sort | tr '\n' ' ' || true)
[ "$plain_roots" = "rank_0002: Root cause: op stencil#1 rank_0003: Root cause: op halo#2 " ] ||
  { echo "FAIL: without probe::mpi, roots: '$plain_roots'"; exit 1; }
grep -q -e "Note: root halo#2 on rank 3 comes after rank 2's first divergence (stencil#1): it may have received that rank's data" <<<"$plain" ||
  { echo "FAIL: no note on rank 3's root without probe::mpi"; exit 1; }
# A rank missing on one side is named.
cp -r good partial && rm -rf partial/rank_0003
set +e
"$probe" compare bad partial >missing.txt 2>&1
set -e
grep -q -e 'Missing: rank 3 of 4 has no dump in B' missing.txt || { cat missing.txt; echo "FAIL: the missing rank is not named"; exit 1; }
echo "ok: one root cause with probe::mpi (rank 2 stencil#1), the note without it"
