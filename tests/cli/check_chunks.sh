#!/usr/bin/env bash
# plumb check --chunk-mb: the compared tensors taken in chunks (one run set per chunk, here one
# tensor per chunk) give the same report as one chunk, on the bundled PyTorch example with its
# intermediates, for the faithful export (exit 0) and the mis-converted copy (exit 1, same first
# divergence). Exit 77 (skipped) in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
dir=$src/examples/mlp_torch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for model in model model_wrong_axis; do
  "$plumb" check "$dir/$model.onnx" --data "$dir/data" --report "$tmp/one.json" > "$tmp/one.txt" 2>&1
  rc1=$?
  if [[ $rc1 -eq 2 ]] && grep -q "not implemented in this build" "$tmp/one.txt"; then
    echo "no ONNX tools in this build: skipped"
    exit 77
  fi
  "$plumb" check "$dir/$model.onnx" --data "$dir/data" --report "$tmp/many.json" --chunk-mb 0 > "$tmp/many.txt" 2>&1
  rc2=$?
  [[ $rc1 -eq $rc2 ]] || fail "$model: exit $rc1 in one chunk, $rc2 in chunks"
  [[ $rc1 -le 1 ]] || fail "$model: exit $rc1: $(cat "$tmp/one.txt")"
  cmp -s "$tmp/one.json" "$tmp/many.json" || fail "$model: reports differ: $(diff "$tmp/one.json" "$tmp/many.json" | head -5)"
  cmp -s "$tmp/one.txt" "$tmp/many.txt" || fail "$model: terminal output differs: $(diff "$tmp/one.txt" "$tmp/many.txt" | head -5)"
done
"$plumb" check "$dir/model.onnx" --data "$dir/data" --chunk-mb -1 > "$tmp/bad.txt" 2>&1
[[ $? -eq 2 ]] || fail "--chunk-mb -1 is not an error"
echo ok
