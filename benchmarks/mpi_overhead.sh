#!/usr/bin/env bash
# probe::mpi with every flag off against the same program without it: bench_mpi (the
# wrappers linked) and bench_mpi_plain (none), RUNS interleaved pairs of 2-rank runs; prints
# each pair's MPI_Sendrecv times (no peer, and around a ring) and the median ratios.
#   benchmarks/mpi_overhead.sh BUILD_DIR [RUNS]
set -euo pipefail
build=$1 runs=${2:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
run() { mpirun "${root[@]}" --oversubscribe -np 2 "$build/benchmarks/$1"; }
null=() ring=()
for i in $(seq "$runs"); do
  a=$(run bench_mpi) b=$(run bench_mpi_plain)
  an=$(sed -n 's/^null_ns: //p' <<<"$a") ar=$(sed -n 's/^ring_ns: //p' <<<"$a")
  bn=$(sed -n 's/^null_ns: //p' <<<"$b") br=$(sed -n 's/^ring_ns: //p' <<<"$b")
  rn=$(awk -v a="$an" -v b="$bn" 'BEGIN { printf "%.4f", a / b }')
  rr=$(awk -v a="$ar" -v b="$br" 'BEGIN { printf "%.4f", a / b }')
  echo "pair $i: no peer $an vs $bn ns ($rn); ring $ar vs $br ns ($rr)"
  null+=("$rn") ring+=("$rr")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%s (min %s, max %s)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
echo "median ratio with/without probe::mpi: no peer $(median "${null[@]}"), ring $(median "${ring[@]}") over $runs pairs"
