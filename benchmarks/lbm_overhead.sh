#!/usr/bin/env bash
# Flags off in a whole program: examples/lbm's MLUPS with probe compiled in and every flag off,
# against the same solver built with PROBE_DISABLE (lbm_disabled), in interleaved runs.
# Prints each pair's ratio (marked / disabled MLUPS; 1 = no cost, < 1 = slower), their median,
# and the spread (min and max of the pair ratios).
#
# Usage: benchmarks/lbm_overhead.sh BUILD_DIR [PAIRS] [lbm options...]
#   default: 11 pairs of `lbm --size 48 --steps 30 --repeat 3` (best of 3 inside each run)
set -euo pipefail
build=${1:?usage: lbm_overhead.sh BUILD_DIR [PAIRS] [lbm options]}
pairs=${2:-11}
shift $(( $# >= 2 ? 2 : 1 ))
opts=("$@")
((${#opts[@]})) || opts=(--size 48 --steps 30 --repeat 3)
marked=$build/examples/lbm/lbm
disabled=$build/examples/lbm/lbm_disabled
for exe in "$marked" "$disabled"; do
  [ -x "$exe" ] || { echo "lbm_overhead: $exe not built" >&2; exit 2; }
done
mlups() { PROBE_FLAGS= "$1" "${opts[@]}" 2>/dev/null | sed -n 's/^MLUPS: //p'; }
ratios=()
for ((i = 0; i < pairs; ++i)); do
  # Alternate which one runs first, so a drift in machine load does not favour either.
  if ((i % 2)); then a=$(mlups "$marked"); b=$(mlups "$disabled")
  else b=$(mlups "$disabled"); a=$(mlups "$marked"); fi
  r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", a / b }')
  ratios+=("$r")
  printf 'pair %2d: marked %8.2f MLUPS, disabled %8.2f MLUPS, ratio %s\n' "$i" "$a" "$b" "$r"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END {
  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "median ratio %.4f (%d pairs, min %.4f, max %.4f)\n", m, NR, v[1], v[NR] }'
