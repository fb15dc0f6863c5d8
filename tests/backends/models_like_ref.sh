# shellcheck shell=bash
# Sourced by tests/cpu/models_check.sh and tests/cuda/models_check.sh: the whole-model tests
# (tests/models/*) on one backend, against ref:
# - `plumb check MODEL --data DATA --backend B` (the default auto tolerance) gives the verdict
#   `--backend ref` gives (match for every model ref matches): B's own runs lie inside the noise
#   bound where ref's do (spec/numerics.md "Backends' declared error"), and so does
#   `--rtol 1e-4 --atol 1e-6` (B's outputs against the expected ones) wherever ref passes it;
# - two `plumb run --backend B` give byte-identical outputs, or the same error;
# - some model really runs spans on B (the dispatch print).
# models_like_ref PLUMB SRC B TMP prints a line per model and returns 1 on any failure; it exits 77
# (skipped) when this plumb has no ONNX tools.
models_like_ref() {
  local plumb=$1 src=$2 be=$3 tmp=$4
  local fail=0 n=0 model d name ref_rc be_rc ref_fixed be_fixed k spans
  if [[ "$("$plumb" check 2>&1)" == *"not implemented in this build"* ]]; then
    echo "no ONNX tools in this build: skipped"
    exit 77
  fi
  for model in "$src"/tests/models/*/model*.onnx; do
    d=$(dirname "$model")
    [[ -d $d/data ]] || continue
    name=${model#"$src"/tests/models/}
    n=$((n + 1))
    "$plumb" check "$model" --data "$d/data" --backend ref > "$tmp/ref.txt" 2>&1
    ref_rc=$?
    "$plumb" check "$model" --data "$d/data" --backend "$be" > "$tmp/be.txt" 2>&1
    be_rc=$?
    # and plumb's own outputs against the expected ones at a fixed tolerance (the backend's values
    # themselves, not only the calibration of the bound)
    "$plumb" check "$model" --data "$d/data" --backend ref --rtol 1e-4 --atol 1e-6 --no-isolate > /dev/null 2>&1
    ref_fixed=$?
    "$plumb" check "$model" --data "$d/data" --backend "$be" --rtol 1e-4 --atol 1e-6 --no-isolate \
      > "$tmp/be_fixed.txt" 2>&1
    be_fixed=$?
    # The fixed tolerance guards the backend's values: it must hold for B wherever it holds for ref.
    # Where ref's own outputs lie outside it (efficientnet_small's logits differ from torch's by
    # 2.6e-5 on ref here, 1.3e-5 on cpu: both inside the auto bound), B passing it is no fault.
    if [[ $be_rc -ne $ref_rc || ($ref_fixed -eq 0 && $be_fixed -ne 0) ]]; then
      echo "FAIL: $name: check --backend $be exits $be_rc (fixed tolerance $be_fixed), --backend ref $ref_rc ($ref_fixed):"
      grep -v "^ " "$tmp/be.txt" "$tmp/be_fixed.txt" | head -8
      fail=1
    else
      echo "ok: $name: check exits $be_rc on $be and on ref (fixed tolerance: $be $be_fixed, ref $ref_fixed)"
    fi
    for k in 1 2; do
      rm -rf "$tmp/out$k" && mkdir "$tmp/out$k"
      "$plumb" run "$model" --data "$d/data" --out "$tmp/out$k" --backend "$be" > /dev/null 2> "$tmp/run$k.err"
      echo "rc $?" >> "$tmp/run$k.err"
    done
    if ! diff -r "$tmp/out1" "$tmp/out2" > /dev/null || ! cmp -s "$tmp/run1.err" "$tmp/run2.err"; then
      echo "FAIL: $name: two runs on $be differ"
      fail=1
    fi
  done
  spans=$(PLUMB_VERBOSE=dispatch "$plumb" run "$src/tests/models/resnet_small/model.onnx" \
    --data "$src/tests/models/resnet_small/data" --backend "$be" 2>&1 > /dev/null | grep -c "$be span")
  echo "$n models; resnet_small runs $spans $be spans"
  [[ $spans -gt 0 ]] || { echo "FAIL: resnet_small ran no $be span"; fail=1; }
  return $fail
}
