#!/usr/bin/env bash
# Compile cost where users pay it: a kernel file that marks one op (input + output), one
# PROBE_SCOPE and one probe::metric, against the same file unmarked, in each build mode; and
# a file that only includes probe.hpp. `$CXX -std=c++17 -O2 -c`, median of interleaved runs
# (one warm-up round first; none for a single run), net of the unmarked file measured in the
# same run; object code is the size of the .text sections. Baselines compiled in the same run,
# interleaved: spdlog's header-only mode (a file that logs two lines; Debian's libspdlog-dev
# with fmt header-only: SPDLOG_HEADER_ONLY and FMT_HEADER_ONLY) and, where doctest is
# installed, doctest's implementation TU; the header-only marking file is printed as a ratio
# against spdlog's.
#
# Usage: benchmarks/compile_cost.sh [--quick] [--instructions]    (env: CXX, RUNS, BEFORE)
#   --quick         one run, no warm-up: a smoke run (the test compile_cost_smoke)
#   BEFORE=DIR      also compile the header-only rows against the include/ directory DIR (an
#                   older checkout's), interleaved with the others: before and after in one run
#   --instructions  also count the compiler's instructions under valgrind (repeatable on a
#                   loaded machine; slow: minutes for the header-only rows)
#   --text-recorded=BYTES   fail when the header-only marking file's .text is more than 10%
#                   over BYTES, as ctest header_only_marking_text does (the whole suite checks
#                   it here, in the one compile of that file)
set -euo pipefail
cd "$(dirname "$0")/.."

cxx=${CXX:-g++}
runs=${RUNS:-7}
count=0
text_recorded=
for a in "$@"; do
  case $a in
    --quick) runs=1 ;;
    --instructions) count=1 ;;
    --text-recorded=*) text_recorded=${a#*=} ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kernel_body='void kernel(const std::vector<float>& x, std::vector<float>& y) {
  MARK_SCOPE
  MARK_OP
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];
  MARK_OUT
  MARK_METRIC
}'
unmarked=$(printf '#include <vector>\n%s\n' "$kernel_body" | sed 's/  MARK_[A-Z]*//')
marked=$(printf '#include <probe/probe.hpp>\n#include <vector>\n%s\n' "$kernel_body" |
  sed 's/MARK_SCOPE/PROBE_SCOPE("kernel");/; s/MARK_OP/probe::op op("scale", "Mul"); op.input("x", x);/;
       s/MARK_OUT/op.output("y", y);/; s/MARK_METRIC/probe::metric("MLUPS", 1.0);/')
echo "$unmarked" >"$tmp/unmarked.cpp"
echo "$marked" >"$tmp/marked.cpp"
printf '#include <probe/probe.hpp>\n' >"$tmp/include.cpp"
cat >"$tmp/spdlog.cpp" <<'CPP'
#include <spdlog/spdlog.h>
int main() {
  spdlog::info("step {} of {}", 1, 2);
  spdlog::warn("value {:.3f}", 0.5);
}
CPP
printf '#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN\n#include <doctest/doctest.h>\n' >"$tmp/doctest.cpp"
if ! echo '#include <spdlog/spdlog.h>' | "$cxx" -std=c++17 -E -x c++ - >/dev/null 2>&1; then
  echo "spdlog headers missing: installing libspdlog-dev" >&2
  apt-get install -y libspdlog-dev >&2 || { echo "could not install libspdlog-dev" >&2; exit 1; }
fi

# name:file:flags
variants=(
  "unmarked file:unmarked:"
  "include only, header-only:include:"
  "include only, compiled:include:-DPROBE_SEPARATE_IMPLEMENTATION"
  "include only, PROBE_DISABLE:include:-DPROBE_DISABLE"
  "marking file, header-only:marked:"
  "marking file, compiled:marked:-DPROBE_SEPARATE_IMPLEMENTATION"
  "marking file, PROBE_DISABLE:marked:-DPROBE_DISABLE"
  "spdlog header-only, 2 lines:spdlog:-DSPDLOG_HEADER_ONLY -DFMT_HEADER_ONLY"
)
if [ -n "${BEFORE:-}" ]; then
  variants+=("include only, header-only, BEFORE:include:-I$BEFORE"
    "marking file, header-only, BEFORE:marked:-I$BEFORE")
fi
if echo '#include <doctest/doctest.h>' | "$cxx" -std=c++17 -E -x c++ - >/dev/null 2>&1; then
  variants+=("doctest implementation TU:doctest:")
fi

# CPU time (user + system, of the compiler's processes) moves less than wall time on a
# machine shared with other jobs; both are printed.
compile() {  # file flags out -> "wall_ms cpu_ms"
  local start end
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%U %S' -o "$tmp/cpu" "$cxx" -std=c++17 -O2 $2 -Iinclude -c "$tmp/$1.cpp" -o "$3"
  else
    "$cxx" -std=c++17 -O2 $2 -Iinclude -c "$tmp/$1.cpp" -o "$3"
    echo 0 0 >"$tmp/cpu"
  fi
  end=$(date +%s%N)
  echo "$(((end - start) / 1000000)) $(awk '{printf "%d", ($1 + $2) * 1000}' "$tmp/cpu")"
}
instructions() {  # file flags -> millions of compiler instructions
  # shellcheck disable=SC2086
  # cachegrind without its cache simulation: callgrind's count (within 0.5%), 3x faster
  valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
    "$cxx" -std=c++17 -O2 $2 -Iinclude -c "$tmp/$1.cpp" -o "$tmp/i.o" 2>&1 |
    awk '/Command: .*cc1plus/ {c = 1; next} c && /I *refs/ {gsub(",", "", $4); printf "%d\n", $4 / 1e6; exit}'
}
text_bytes() { size -A "$1" | awk '$1 ~ /^\.text/ {t += $2} END {print t + 0}'; }

n=${#variants[@]}
warm=1
((runs == 1)) && warm=0  # --quick: a smoke run, no median to steady
for ((v = 0; warm && v < n; v++)); do
  IFS=: read -r _ file flags <<<"${variants[$v]}"
  compile "$file" "$flags" "$tmp/o$v.o" >/dev/null  # warm-up
done
for ((r = 0; r < runs; r++)); do
  for ((v = 0; v < n; v++)); do
    IFS=: read -r _ file flags <<<"${variants[$v]}"
    compile "$file" "$flags" "$tmp/o$v.o" >>"$tmp/t$v"
  done
done
median() {  # file [column] -> the median of that column
  awk -v c="${2:-1}" '{print $c}' "$1" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

base=$(median "$tmp/t0")
echo "compile cost: $("$cxx" --version | head -1), -std=c++17 -O2, median of $runs runs"
printf '%-36s %9s %9s %9s %12s' "TU" "wall ms" "net ms" "cpu ms" ".text bytes"
((count)) && printf ' %14s %10s' "instructions M" "net M"
printf '\n'
for ((v = 0; v < n; v++)); do
  IFS=: read -r label file flags <<<"${variants[$v]}"
  ms=$(median "$tmp/t$v")
  printf '%-36s %9d %9d %9d %12d' "$label" "$ms" $((ms - base)) "$(median "$tmp/t$v" 2)" \
    "$(text_bytes "$tmp/o$v.o")"
  if ((count)); then
    ins=$(instructions "$file" "$flags")
    ((v == 0)) && base_ins=$ins
    printf ' %14d %10d' "$ins" $((ins - base_ins))
  fi
  printf '\n'
done

# The header-only marking file against spdlog's header-only file, same run.
row() { for ((v = 0; v < n; v++)); do [[ ${variants[$v]} == "$1:"* ]] && echo "$v"; done; return 0; }
sp=$(row "spdlog header-only, 2 lines")
for label in "marking file, header-only" "marking file, header-only, BEFORE"; do
  hm=$(row "$label")
  [ -n "$hm" ] || continue
  awk -v l="$label" -v a="$(median "$tmp/t$hm")" -v b="$(median "$tmp/t$sp")" \
    -v ca="$(median "$tmp/t$hm" 2)" -v cb="$(median "$tmp/t$sp" 2)" \
    -v ta="$(text_bytes "$tmp/o$hm.o")" -v tb="$(text_bytes "$tmp/o$sp.o")" \
    'BEGIN {printf "%s / spdlog header-only file: wall %.2fx, cpu %.2fx, .text %.2fx\n", l, a / b, (cb ? ca / cb : 0), ta / tb}'
done

if [ -n "$text_recorded" ]; then
  bash tests/compile/header_only_text.sh --object "$tmp/o$(row "marking file, header-only").o" "$text_recorded"
fi
