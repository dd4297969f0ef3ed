#!/usr/bin/env bash
# Compiles the README's usage example (its first C++ block) with a main that calls it, runs
# it with the README's flags, and checks that the dump and the prints it promises appear.
# Usage: check_readme_example.sh CXX SOURCE_DIR WORK_DIR
set -euo pipefail
cxx=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
awk '/^```cpp$/ {on = 1; next} on && /^```$/ {exit} on' "$src/README.md" >"$work/example.cpp"
grep -q 'probe::op' "$work/example.cpp" || { echo "no C++ example found in README.md" >&2; exit 1; }
cat >>"$work/example.cpp" <<'MAIN'
int main() {
  std::vector<float> x(1024, 1.5f), y(1024);
  for (int step = 0; step < 2; ++step) layer(x, y, step);
}
MAIN
"$cxx" -std=c++17 -Wall -Wextra -Werror -I"$src/include" "$work/example.cpp" -o "$work/example" -pthread
PROBE_FLAGS="--probe_dump_to=$work/dump --probe_dump_as_npy" "$work/example" 2>"$work/stderr"
grep -q '^step 1: y = \[3\. 3\. 3\. \.\.\. 3\. 3\. 3\.\]$' "$work/stderr" || { cat "$work/stderr"; echo "print line missing" >&2; exit 1; }
for f in manifest.jsonl op_000001.scale.in.x.npy op_000002.scale.out.y.npy; do
  [ -s "$work/dump/$f" ] || { ls "$work/dump"; echo "missing $f" >&2; exit 1; }
done
echo "README example: ok"
