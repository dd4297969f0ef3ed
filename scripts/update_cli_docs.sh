#!/usr/bin/env bash
# Regenerates the option tables in docs/cli-*.md and docs/replay.md from the CLI's own
# tables: each block
#   <!-- options:VERB -->
#   ...
#   <!-- /options -->
# is replaced by the output of `probe help VERB --markdown`, between blank lines.
#
# Usage: scripts/update_cli_docs.sh [--check] [PATH/TO/probe]   (default build/tools/probe)
#   --check: change nothing; show the differences and exit 1 if a doc is out of date, or if
#            a verb has no table in any doc.
set -euo pipefail
cd "$(dirname "$0")/.."
docs="docs/cli-*.md docs/replay.md"
check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
probe=${1:-build/tools/probe}
[ -x "$probe" ] || { echo "update_cli_docs: no probe binary at $probe (build the probe_cli target)" >&2; exit 2; }

# Every verb `probe help` lists must have its table somewhere.
verbs=$("$probe" help | awk '/^verbs:/ { on = 1; next } on && NF { print $1 }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for verb in $verbs; do
  "$probe" help "$verb" --markdown >"$tmp/$verb.md"
  if ! grep -q "^<!-- options:$verb -->\$" $docs; then
    echo "update_cli_docs: no '<!-- options:$verb -->' block in $docs" >&2
    status=1
  fi
done

for doc in $docs; do
  # Copies the doc, replacing each block's body with the generated table; an unknown verb
  # or a block left open is an error.
  if ! awk -v dir="$tmp" '
    match($0, /^<!-- options:[a-z-]+ -->$/) {
      print
      print ""
      verb = substr($0, 14, length($0) - 17)
      file = dir "/" verb ".md"
      if ((getline line < file) <= 0) { print FILENAME ": no verb " verb > "/dev/stderr"; bad = 1; next }
      print line
      while ((getline line < file) > 0) print line
      close(file)
      print ""
      inside = 1
      next
    }
    /^<!-- \/options -->$/ { inside = 0 }
    !inside { print }
    END { if (inside) { print FILENAME ": a block is not closed by <!-- /options -->" > "/dev/stderr"; bad = 1 }
          exit bad }
  ' "$doc" >"$tmp/new.md"; then
    status=1
    continue
  fi
  if ! cmp -s "$doc" "$tmp/new.md"; then
    if [ "$check" = 1 ]; then
      echo "update_cli_docs: $doc is out of date with the CLI's option tables; run scripts/update_cli_docs.sh" >&2
      diff -u "$doc" "$tmp/new.md" >&2 || true
      status=1
    else
      cp "$tmp/new.md" "$doc"
      echo "updated $doc"
    fi
  fi
done
exit $status
