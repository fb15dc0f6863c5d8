#!/usr/bin/env bash
# The whole-model tests (tests/models/*) on the cpu backend:
# - `plumb check MODEL --data DATA --backend cpu` (the default auto tolerance) gives the verdict
#   `--backend ref` gives (match for every model ref matches): the cpu's own runs lie inside the
#   noise bound where ref's do (spec/numerics.md "Backends' declared error"), and so does
#   `--rtol 1e-4 --atol 1e-6` (the cpu's outputs against the expected ones);
# - two `plumb run --backend cpu` give byte-identical outputs (deterministic at a fixed thread
#   count), or the same error;
# - some model really runs spans on cpu (the dispatch print);
# - --threads 1 and 3 on cpu (oneDNN's thread count) keep resnet_small within the fixed tolerance.
# Usage: models_check.sh PLUMB SRC
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cpu/lib.sh"
cpu_or_skip "$plumb" "$src"
if [[ "$("$plumb" check 2>&1)" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for model in "$src"/tests/models/*/model*.onnx; do
  d=$(dirname "$model")
  [[ -d $d/data ]] || continue
  name=${model#$src/tests/models/}
  n=$((n + 1))
  "$plumb" check "$model" --data "$d/data" --backend ref > "$tmp/ref.txt" 2>&1
  ref_rc=$?
  "$plumb" check "$model" --data "$d/data" --backend cpu > "$tmp/cpu.txt" 2>&1
  cpu_rc=$?
  # and plumb's own outputs against the expected ones at a fixed tolerance (the cpu's values
  # themselves, not only the calibration of the bound)
  "$plumb" check "$model" --data "$d/data" --backend ref --rtol 1e-4 --atol 1e-6 --no-isolate > /dev/null 2>&1
  ref_fixed=$?
  "$plumb" check "$model" --data "$d/data" --backend cpu --rtol 1e-4 --atol 1e-6 --no-isolate > "$tmp/cpu_fixed.txt" 2>&1
  cpu_fixed=$?
  # The fixed tolerance guards the cpu's values: it must hold for cpu wherever it holds for ref.
  # Where ref's own outputs lie outside it (efficientnet_small's logits differ from torch's by
  # 2.6e-5 on ref here, 1.3e-5 on cpu: both inside the auto bound), cpu passing it is no fault.
  if [[ $cpu_rc -ne $ref_rc || ($ref_fixed -eq 0 && $cpu_fixed -ne 0) ]]; then
    echo "FAIL: $name: check --backend cpu exits $cpu_rc (fixed tolerance $cpu_fixed), --backend ref $ref_rc ($ref_fixed):"
    grep -v "^ " "$tmp/cpu.txt" "$tmp/cpu_fixed.txt" | head -8
    fail=1
  else
    echo "ok: $name: check exits $cpu_rc on cpu and on ref (fixed tolerance: cpu $cpu_fixed, ref $ref_fixed)"
  fi
  for k in 1 2; do
    rm -rf "$tmp/out$k" && mkdir "$tmp/out$k"
    "$plumb" run "$model" --data "$d/data" --out "$tmp/out$k" --backend cpu > /dev/null 2> "$tmp/run$k.err"
    echo "rc $?" >> "$tmp/run$k.err"
  done
  if ! diff -r "$tmp/out1" "$tmp/out2" > /dev/null || ! cmp -s "$tmp/run1.err" "$tmp/run2.err"; then
    echo "FAIL: $name: two runs on cpu differ"
    fail=1
  fi
done
spans=$(PLUMB_VERBOSE=dispatch "$plumb" run "$src/tests/models/resnet_small/model.onnx" \
  --data "$src/tests/models/resnet_small/data" --backend cpu 2>&1 > /dev/null | grep -c "cpu span")
echo "$n models; resnet_small runs $spans cpu spans"
[[ $spans -gt 0 ]] || { echo "FAIL: resnet_small ran no cpu span"; fail=1; }
# --threads reaches oneDNN (omp_threads.h): at 1 and 3 threads the cpu's outputs still lie within
# the fixed tolerance, and two runs at one count are byte-identical.
d=$src/tests/models/resnet_small
for t in 1 3; do
  "$plumb" check "$d/model.onnx" --data "$d/data" --backend cpu --threads $t --rtol 1e-4 --atol 1e-6 --no-isolate \
    > "$tmp/t.txt" 2>&1 || { echo "FAIL: resnet_small: check --backend cpu --threads $t: $(head -3 "$tmp/t.txt")"; fail=1; }
  for k in 1 2; do
    rm -rf "$tmp/t$k" && mkdir "$tmp/t$k"
    "$plumb" run "$d/model.onnx" --data "$d/data" --out "$tmp/t$k" --backend cpu --threads $t > /dev/null 2>&1
  done
  diff -r "$tmp/t1" "$tmp/t2" > /dev/null || { echo "FAIL: resnet_small: two runs at --threads $t differ"; fail=1; }
done
exit $fail
