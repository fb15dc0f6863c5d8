#!/usr/bin/env bash
# Whole-model check of the recurrent lowering: a torch-exported 2-layer bidirectional LSTM (with
# initial states and a Linear head; tests/models/lstm/make.py) must match the outputs torch
# computed, under plumb check's default tolerance and a tight one; so must the same export with
# symbolic sequence and batch lengths (tests/models/lstm/model_dynamic.onnx).
# Exit 77 (skipped) in a build without the ONNX tools (the tiny configuration).
set -uo pipefail
plumb=$1 src=$2
m=$src/tests/models/lstm
out=$("$plumb" check "$m/model.onnx" --data "$m/data" 2>&1)
rc=$?
if [[ $rc -eq 2 && "$out" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
if [[ $rc -ne 0 ]]; then
  echo "expected exit 0 (match), got $rc:"; echo "$out"; exit 1
fi
out=$("$plumb" check "$m/model.onnx" --data "$m/data" --rtol 1e-5 --atol 1e-6 2>&1)
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "expected a match within rtol 1e-5, atol 1e-6, got $rc:"; echo "$out"; exit 1
fi
# The export with symbolic sequence and batch lengths (the LSTMs become `while` loops).
out=$("$plumb" check "$m/model_dynamic.onnx" --data "$m/data" --rtol 1e-5 --atol 1e-6 2>&1)
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "symbolic-length export: expected a match within rtol 1e-5, atol 1e-6, got $rc:"; echo "$out"; exit 1
fi
echo "ok"
