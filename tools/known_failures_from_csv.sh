#!/usr/bin/env bash
# Writes a known-failures list from a `plumb conformance --csv` file: one line per failing test,
# `test_name  reason`. Used when a change makes tests pass (the list must only shrink) or when a
# new suite is added; every reason must say why the test fails, and the list is reviewed by hand.
#   tools/known_failures_from_csv.sh results.csv "header comment" [previous_list] > tests/conformance/X.txt
# With a previous list, a hand-written reason there (a ruling, a suite data error: any reason that
# is not the runner's own "stage: ..." text) is kept for a test that still fails.
set -euo pipefail
csv=$1
header=${2:-}
previous=${3:-/dev/null}
[[ -n "$header" ]] && printf '# %s\n' "$header"
awk -F, -v prev="$previous" '
BEGIN {
  while ((getline line < prev) > 0) {
    if (line ~ /^#/ || line == "") continue
    split(line, parts, "  ")
    name = parts[1]
    reason = substr(line, length(name) + 3)
    if (reason !~ /^(not lowered yet|load|lower|compile|input|run|expected|mismatch|crashed|timeout)[: ]/) kept[name] = reason
  }
}
NR > 1 && ($2 == "fail" || $2 == "skip") {
  name = $1
  reason = substr($0, length($1) + length($2) + 3)
  gsub(/^"|"$/, "", reason)
  sub(/^known failure: */, "", reason)
  sub(/ \[.*$/, "", reason)
  if (match(reason, /no lowering for [A-Za-z0-9_.]+ at opset [0-9]+/)) reason = "not lowered yet: " substr(reason, RSTART + 16, RLENGTH - 16)
  if (name in kept) reason = kept[name]
  printf "%s  %s\n", name, reason
}' "$csv"
