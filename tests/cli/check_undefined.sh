#!/usr/bin/env bash
# A result ONNX leaves undefined (spec/onnx-rulings.md R11): plumb check on a ReduceMean over an
# empty set (tests/models/undefined_mean, with torch's NaN outputs as expected values) gives no
# verdict: exit 2 and one stderr line naming the node and saying the result is undefined; plumb run
# refuses it the same way. Exit 77 (skipped) in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
d=$src/tests/models/undefined_mean
fail() { echo "FAIL: $*"; exit 1; }
for cmd in check run; do
  err=$("$plumb" $cmd "$d/model.onnx" --data "$d/data" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -eq 2 && "$err" == *"not implemented in this build"* ]]; then echo "no ONNX tools: skipped"; exit 77; fi
  [[ $rc -eq 2 ]] || fail "$cmd: exit $rc, want 2: $err"
  [[ $(wc -l <<<"$err") -eq 1 ]] || fail "$cmd: not one line: $err"
  [[ "$err" == *"[from 'mean_of_bags' (ReduceMean-13)]"* ]] || fail "$cmd: the node is not named: $err"
  [[ "$err" == *"the result is undefined: ReduceMean over an empty set"*"(onnx-rulings.R11)" ]] \
    || fail "$cmd: not said undefined: $err"
done
echo ok
