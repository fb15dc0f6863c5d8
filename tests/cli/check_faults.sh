#!/usr/bin/env bash
# plumb check on injected faults (examples/check_faults, made by make_faults.py from torch's values):
# for each model, the faithful export matches torch (exit 0), and so do expected values moved by
# about 2 ulp and values computed with float sums in another association order; every single-node
# mutation (wrong axis, swapped inputs, changed alpha / epsilon / dilation) exits 1 and names the
# mutated node as the first divergence. Also the bundled examples/mlp_torch pair. Exit 77 (skipped)
# in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
dir=$src/examples/check_faults
failures=0 cases=0
check_case() {  # model data expected_exit node
  local model=$1 data=$2 rc=$3 node=$4 out got
  out=$("$plumb" check "$model" --data "$data" 2>&1)
  got=$?
  if [[ $got -eq 2 && "$out" == *"not implemented in this build"* ]]; then
    echo "no ONNX tools in this build: skipped"
    exit 77
  fi
  cases=$((cases + 1))
  if [[ $got -ne $rc ]]; then
    echo "FAIL: plumb check $model --data $data: exit $got, expected $rc"
    echo "$out"
    failures=$((failures + 1))
    return
  fi
  if [[ $node != - ]] && ! grep -q "^first divergence: node '$node' (" <<<"$out"; then
    echo "FAIL: plumb check $model --data $data: the first divergence is not node '$node':"
    echo "$out"
    failures=$((failures + 1))
  fi
}
while read -r model data rc node; do
  [[ -z "${model:-}" || "$model" == \#* ]] && continue
  check_case "$dir/$model" "$dir/$data" "$rc" "$node"
done <"$dir/cases.txt"
check_case "$src/examples/mlp_torch/model.onnx" "$src/examples/mlp_torch/data" 0 -
check_case "$src/examples/mlp_torch/model_wrong_axis.onnx" "$src/examples/mlp_torch/data" 1 /softmax/Softmax

# Without intermediates only the output is compared: the mutation is still caught (exit 1).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$dir/block/data/input_0.pb" "$dir/block/data/output_0.pb" "$tmp/"
check_case "$dir/block/model_leaky_alpha.onnx" "$tmp" 1 -
check_case "$dir/block/model.onnx" "$tmp" 0 -

if [[ $failures -ne 0 ]]; then
  echo "$failures of $cases cases failed"
  exit 1
fi
echo "ok: $cases cases"
