#!/usr/bin/env bash
# plumb check on the bundled example: the torch export matches torch (exit 0); the mis-converted
# copy (Softmax axis changed) exits 1 and names the Softmax node as the first divergence.
# Exit 77 (skipped) in a build without the ONNX tools (the tiny configuration).
set -uo pipefail
plumb=$1 src=$2
ex=$src/examples/mlp_torch
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" 2>&1)
rc=$?
if [[ $rc -eq 2 && "$out" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
if [[ $rc -ne 0 ]]; then
  echo "expected exit 0 for the faithful export, got $rc:"; echo "$out"; exit 1
fi
out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$ex/data" 2>&1)
rc=$?
if [[ $rc -ne 1 ]]; then
  echo "expected exit 1 for the mis-converted copy, got $rc:"; echo "$out"; exit 1
fi
if ! grep -qx "first divergence: node '/softmax/Softmax' (Softmax-13)" <<<"$out"; then
  echo "the first divergence is not the Softmax node:"; echo "$out"; exit 1
fi
out=$("$plumb" check "$ex/missing.onnx" --data "$ex/data" 2>&1)
rc=$?
if [[ $rc -ne 2 || $(wc -l <<<"$out") -ne 1 || "$out" != plumb:* ]]; then
  echo "a missing model must give one 'plumb: ...' line and exit 2, got $rc:"; echo "$out"; exit 1
fi
echo "ok"
