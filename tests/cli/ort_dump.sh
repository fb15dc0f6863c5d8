#!/usr/bin/env bash
# tools/ort_dump.mjs (issue 20, docs/check.md "Is onnxruntime right on my model?"): onnxruntime's
# value of every node output, in the expected-folder layout, checked by plumb check: the faithful
# example matches with all 4 tensors compared (none skipped: every file is named after its ONNX
# tensor); onnxruntime's values for the mis-converted copy, given as the expected values of the
# right model, are a mismatch at the Softmax. onnxruntime-node is optional: the test runs where
# node and an npm install of it are present (ORT_PREFIX, default /tmp/ort-peer, as
# bench/peer_ort.sh), and is skipped (77) elsewhere.
set -uo pipefail
plumb=$1 src=$2
ex=$src/examples/mlp_torch
fail() { echo "FAIL: $*"; exit 1; }
prefix=${ORT_PREFIX:-/tmp/ort-peer}
if ! command -v node >/dev/null || [[ ! -d $prefix/node_modules/onnxruntime-node ]]; then
  echo "no node or onnxruntime-node in $prefix: skipped"
  exit 77
fi
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dump() { NODE_PATH=$prefix/node_modules node "$src/tools/ort_dump.mjs" "$@"; }
out=$(dump "$ex/model.onnx" "$ex/data" "$tmp/ort" 2>&1) || fail "ort_dump: $out"
[[ "$out" == "$tmp/ort: 4 tensors (1 outputs)" ]] || fail "ort_dump: $out"
[[ -f $tmp/ort/output_0.pb && -f $tmp/ort/t0.pb ]] || fail "layout: $(ls "$tmp/ort")"
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$tmp/ort" 2>&1)
[[ $? -eq 0 ]] || fail "onnxruntime's values: $out"
grep -q "^match: 4 tensors" <<<"$out" || fail "onnxruntime's values: not 4 tensors: $out"
grep -q "^skip" <<<"$out" && fail "onnxruntime's values: skipped some: $out"
out=$(dump "$ex/model_wrong_axis.onnx" "$ex/data" "$tmp/wrong" 2>&1) || fail "ort_dump wrong axis: $out"
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$tmp/wrong" 2>&1)
[[ $? -eq 1 ]] || fail "a runtime that computes another Softmax: $out"
grep -qx "first divergence: node '/softmax/Softmax' (Softmax-13)" <<<"$out" || fail "wrong axis: $out"
out=$(dump "$ex/model.onnx" "$ex/data" "$tmp/opt" --optimize 2>&1) || fail "ort_dump --optimize: $out"
"$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$tmp/opt" >/dev/null 2>&1 || fail "--optimize values"
out=$(dump "$ex/model.onnx" "$tmp/nowhere" "$tmp/x" 2>&1)
[[ $? -eq 2 && "$out" == "ort_dump: $tmp/nowhere: no input_0.pb or .npy for input 'x'" ]] || fail "no inputs: $out"
echo "ok"
