#!/usr/bin/env bash
# Writes a known-failures list from a `plumb conformance --csv` file: one line per failing test,
# `test_name  reason`. Used when a change makes tests pass (the list must only shrink) or when a
# new suite is added; every reason must say why the test fails, and the list is reviewed by hand.
#   tools/known_failures_from_csv.sh results.csv "header comment" > tests/conformance/X.txt
set -euo pipefail
csv=$1
header=${2:-}
[[ -n "$header" ]] && printf '# %s\n' "$header"
tail -n +2 "$csv" | awk -F, '$2 == "fail" || $2 == "skip" {
  name = $1
  reason = substr($0, length($1) + length($2) + 3)
  gsub(/^"|"$/, "", reason)
  sub(/^known failure: */, "", reason)
  sub(/ \[.*$/, "", reason)
  if (match(reason, /no lowering for [A-Za-z0-9_.]+ at opset [0-9]+/)) reason = "not lowered yet: " substr(reason, RSTART + 16, RLENGTH - 16)
  printf "%s  %s\n", name, reason
}'
