#!/usr/bin/env bash
# The whole-model tests (tests/models/*) on the cuda backend:
# - `plumb check MODEL --data DATA --backend cuda` (the default auto tolerance) gives the verdict
#   `--backend ref` gives, and so does `--rtol 1e-4 --atol 1e-6` wherever ref passes it;
# - two `plumb run --backend cuda` give byte-identical outputs (no atomics, fixed cuBLAS
#   algorithms), or the same error;
# - some model really runs spans on cuda (the dispatch print).
# Usage: models_check.sh PLUMB SRC
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cuda/lib.sh"
cuda_or_skip "$plumb" "$src"
if [[ "$("$plumb" check 2>&1)" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for model in "$src"/tests/models/*/model*.onnx; do
  d=$(dirname "$model")
  [[ -d $d/data ]] || continue
  name=${model#"$src"/tests/models/}
  n=$((n + 1))
  "$plumb" check "$model" --data "$d/data" --backend ref > "$tmp/ref.txt" 2>&1
  ref_rc=$?
  "$plumb" check "$model" --data "$d/data" --backend cuda > "$tmp/cuda.txt" 2>&1
  cuda_rc=$?
  "$plumb" check "$model" --data "$d/data" --backend ref --rtol 1e-4 --atol 1e-6 --no-isolate > /dev/null 2>&1
  ref_fixed=$?
  "$plumb" check "$model" --data "$d/data" --backend cuda --rtol 1e-4 --atol 1e-6 --no-isolate \
    > "$tmp/cuda_fixed.txt" 2>&1
  cuda_fixed=$?
  if [[ $cuda_rc -ne $ref_rc || ($ref_fixed -eq 0 && $cuda_fixed -ne 0) ]]; then
    echo "FAIL: $name: check --backend cuda exits $cuda_rc (fixed tolerance $cuda_fixed), --backend ref $ref_rc ($ref_fixed):"
    grep -v "^ " "$tmp/cuda.txt" "$tmp/cuda_fixed.txt" | head -8
    fail=1
  else
    echo "ok: $name: check exits $cuda_rc on cuda and on ref (fixed tolerance: cuda $cuda_fixed, ref $ref_fixed)"
  fi
  for k in 1 2; do
    rm -rf "$tmp/out$k" && mkdir "$tmp/out$k"
    "$plumb" run "$model" --data "$d/data" --out "$tmp/out$k" --backend cuda > /dev/null 2> "$tmp/run$k.err"
    echo "rc $?" >> "$tmp/run$k.err"
  done
  if ! diff -r "$tmp/out1" "$tmp/out2" > /dev/null || ! cmp -s "$tmp/run1.err" "$tmp/run2.err"; then
    echo "FAIL: $name: two runs on cuda differ"
    fail=1
  fi
done
spans=$(PLUMB_VERBOSE=dispatch "$plumb" run "$src/tests/models/resnet_small/model.onnx" \
  --data "$src/tests/models/resnet_small/data" --backend cuda 2>&1 > /dev/null | grep -c "cuda span")
echo "$n models; resnet_small runs $spans cuda spans"
[[ $spans -gt 0 ]] || { echo "FAIL: resnet_small ran no cuda span"; fail=1; }
exit $fail
