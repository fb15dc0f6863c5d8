#!/usr/bin/env bash
# plumb check's progress (issue 20): with --progress and stderr not a terminal (a CI log), one line
# per stage on stderr, a stage of repeated runs once, the report on stdout as without it; without
# --progress nothing on stderr; on a terminal (util-linux `script` gives one) a line rewritten in
# place that counts the graph runs done of those expected and the nodes of the run under way,
# erased at the end.
set -uo pipefail
plumb=$1 src=$2
ex=$src/examples/mlp_torch
fail() { echo "FAIL: $*"; exit 1; }
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$plumb" check "$ex/model.onnx" --data "$ex/data" --samples 3 >"$tmp/plain" 2>"$tmp/plain.err" || fail "plain run"
[[ ! -s $tmp/plain.err ]] || fail "stderr not empty without --progress: $(cat "$tmp/plain.err")"
"$plumb" check "$ex/model.onnx" --data "$ex/data" --samples 3 --progress >"$tmp/out" 2>"$tmp/err" || fail "--progress run"
cmp -s "$tmp/plain" "$tmp/out" || fail "--progress changed the report"
expected="plumb check: lowering $ex/model.onnx
plumb check: reading expected values
plumb check: model: native run
plumb check: model: precise (f64) run
plumb check: model: stochastic runs
plumb check: comparing
plumb check: isolated nodes: native run
plumb check: isolated nodes: precise (f64) run
plumb check: isolated nodes: stochastic runs
plumb check: isolated nodes: expected-input noise runs
plumb check: comparing"
[[ "$(cat "$tmp/err")" == "$expected" ]] || fail "--progress lines: $(cat "$tmp/err")"
# A terminal: the progress line counts runs (2 + 3 end to end, 2 + 3 + 3 isolated: 13) and is erased.
if command -v script >/dev/null; then
  script -qec "'$plumb' check '$ex/model.onnx' --data '$ex/data' --samples 3 >/dev/null" "$tmp/typescript" \
    >/dev/null 2>&1 </dev/null
  tr '\r' '\n' <"$tmp/typescript" >"$tmp/tty.lines"
  grep -q "plumb check: model: native run  \[0 of 13 runs done\]" "$tmp/tty.lines" || fail "tty: no run counter: $(cat -v "$tmp/typescript")"
  # Within a run, the node counter: its last update (every node done) is always shown.
  grep -qE "plumb check: model: native run  \[0 of 13 runs done, node ([1-9][0-9]*) of \1[],]" "$tmp/tty.lines" ||
    fail "tty: no node counter: $(cat -v "$tmp/typescript")"
  grep -q "plumb check: isolated nodes: expected-input noise runs 3/3  \[12 of 13 runs done" "$tmp/tty.lines" ||
    fail "tty: the last run: $(cat -v "$tmp/typescript")"
  # After the last progress text, the line is erased (ESC [ K) and nothing more of it is printed.
  last=$(grep -n "plumb check:" "$tmp/tty.lines" | tail -1 | cut -d: -f1)
  tail -n +$((last + 1)) "$tmp/tty.lines" | grep -q $'^\033\[K' || fail "tty: the line is not erased at the end"
fi
echo "ok"
