#!/usr/bin/env bash
# Whole-model checks of torch exports (tests/models/<name>/make.py; expected outputs from torch,
# independently of plumb):
# - cnn: Conv, BatchNormalization, Relu, MaxPool, AveragePool, Gemm;
# - encoder: a transformer encoder layer (attention with a padding mask, LayerNormalization, Erf
#   GELU);
# - lstm: a 2-layer bidirectional LSTM with initial states and a Linear head, and the same export
#   with symbolic sequence and batch lengths (model_dynamic.onnx: the LSTMs become `while` loops).
# Each must match under plumb check's default tolerance and a tight one (rtol 1e-5, atol 1e-6).
# A copy of the expected data whose last output element is replaced by 1000 must make plumb check
# fail (exit 1), so the check cannot pass vacuously. Exit 77 (skipped) in a build without the
# ONNX tools (the tiny configuration). PLUMB_EXPORT_STATIC_ONLY=1 leaves out model_dynamic.onnx
# (its `while` loops take many times longer in a Debug ASan build; cli.dynamic_models runs the
# dynamic LSTM there).
set -uo pipefail
plumb=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for name in cnn encoder lstm; do
  d=$src/tests/models/$name
  for model in "$d"/model.onnx "$d"/model_dynamic.onnx; do
    [[ -f $model ]] || continue
    [[ ${PLUMB_EXPORT_STATIC_ONLY:-0} == 1 && $model == */model_dynamic.onnx ]] && continue
    out=$("$plumb" check "$model" --data "$d/data" 2>&1)
    rc=$?
    if [[ $rc -eq 2 && "$out" == *"not implemented in this build"* ]]; then
      echo "no ONNX tools in this build: skipped"
      exit 77
    fi
    if [[ $rc -ne 0 ]]; then
      echo "$model: expected exit 0 (match), got $rc:"; echo "$out"; exit 1
    fi
    out=$("$plumb" check "$model" --data "$d/data" --rtol 1e-5 --atol 1e-6 2>&1)
    rc=$?
    if [[ $rc -ne 0 ]]; then
      echo "$model: expected a match within rtol 1e-5, atol 1e-6, got $rc:"; echo "$out"; exit 1
    fi
  done
  # output_0.pb ends with its raw_data (TensorProto field 9, serialized last): overwrite the last
  # f32 with 1000.0 (bytes 00 00 7a 44).
  rm -rf "$tmp/data" && cp -r "$d/data" "$tmp/data"
  f=$tmp/data/output_0.pb
  printf '\x00\x00\x7a\x44' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 4)) conv=notrunc status=none
  out=$("$plumb" check "$d/model.onnx" --data "$tmp/data" 2>&1)
  rc=$?
  if [[ $rc -ne 1 ]]; then
    echo "$name: a perturbed expected output must give exit 1 (mismatch), got $rc:"; echo "$out"; exit 1
  fi
done
echo "ok"
