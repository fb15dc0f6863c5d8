#!/usr/bin/env bash
# PLUMB_VERBOSE=dispatch: plumb run prints the schedule (runtime/schedule.h describe_schedule) to
# stderr, one line per step; on ref every step is a node on ref with no fallback reason, and
# nothing is printed without the variable. Exit 77 (skipped) in a build without the ONNX tools.
# Usage: dispatch_verbose.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$src/tests/models/cnn
PLUMB_VERBOSE=dispatch "$plumb" run "$d/model.onnx" --data "$d/data" --out "$tmp/a" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [[ $rc -eq 2 ]] && grep -q "not supported in this build" "$tmp/err"; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
[[ $rc -eq 0 ]] || fail "run exit $rc: $(cat "$tmp/err")"
head -1 "$tmp/err" | grep -Eq '^dispatch: backend ref, [0-9]+ steps \(0 spans, 0 copies\), host arena [0-9]+ B$' ||
  fail "first line: $(head -1 "$tmp/err")"
steps=$(head -1 "$tmp/err" | sed -E 's/.* ([0-9]+) steps.*/\1/')
[[ $(grep -c '^  \[[0-9]*\] ref node #[0-9]* ' "$tmp/err") -eq $steps ]] || fail "expected $steps step lines: $(cat "$tmp/err")"
grep -q "conv \[from '/block1/block1.0/Conv' (Conv-13)\]$" "$tmp/err" || fail "no conv step with its origin: $(cat "$tmp/err")"
grep -q "declined" "$tmp/err" && fail "ref gives fallback reasons: $(cat "$tmp/err")"
"$plumb" run "$d/model.onnx" --data "$d/data" --out "$tmp/b" > /dev/null 2> "$tmp/err2" || fail "run without the variable"
[[ -s "$tmp/err2" ]] && fail "stderr without PLUMB_VERBOSE: $(cat "$tmp/err2")"
cmp -s "$tmp/a/output_0.pb" "$tmp/b/output_0.pb" || fail "the print changed the outputs"
"$plumb" run "$d/model.onnx" --data "$d/data" --backend nope > /dev/null 2> "$tmp/err3" && fail "unknown backend accepted"
grep -Eq "unknown backend 'nope' \(available: ref(, cpu)?(, cuda)?\)" "$tmp/err3" || fail "unknown backend: $(cat "$tmp/err3")"
echo ok
