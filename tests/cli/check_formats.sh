#!/usr/bin/env bash
# plumb check reads expected values as .pb (by TensorProto name), .npz (stored and deflated) and
# Polygraphy's JSON (RunResults, LazyArray-wrapped and plain ndarray entries), from a folder or as
# one file given to --expected; a corrupt one is one error line and exit 2. Fixtures:
# examples/check_formats (make_formats.py, from examples/mlp_torch/data).
set -uo pipefail
plumb=$1 src=$2
ex=$src/examples/mlp_torch
fx=$src/examples/check_formats
fail() { echo "FAIL: $*"; exit 1; }
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" 2>&1)
rc=$?
if [[ $rc -eq 2 && "$out" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
for f in mlp_torch.npz mlp_torch_deflate.npz polygraphy_outputs.json polygraphy_legacy.json; do
  out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$fx/$f" 2>&1)
  rc=$?
  [[ $rc -eq 0 ]] || fail "$f: exit $rc, expected 0: $out"
  # all four tensors (three intermediates and the output) were compared
  grep -q "^match: 4 tensors" <<<"$out" || fail "$f: not 4 tensors compared: $out"
  out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$ex/data" --expected "$fx/$f" 2>&1)
  rc=$?
  [[ $rc -eq 1 ]] || fail "$f (wrong axis): exit $rc, expected 1: $out"
  grep -qx "first divergence: node '/softmax/Softmax' (Softmax-13)" <<<"$out" || fail "$f (wrong axis): $out"
done
# A folder mixing formats: .npz intermediates next to the input.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$ex/data/input_0.pb" "$fx/mlp_torch.npz" "$tmp/"
out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$tmp" 2>&1)
rc=$?
[[ $rc -eq 1 ]] || fail "npz in the data folder: exit $rc: $out"
grep -qx "first divergence: node '/softmax/Softmax' (Softmax-13)" <<<"$out" || fail "npz in the data folder: $out"
# A single .pb file as --expected (an intermediate only).
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$ex/data/act_fc1.pb" 2>&1)
rc=$?
[[ $rc -eq 0 ]] || fail "single .pb: exit $rc: $out"
# Corrupt Polygraphy JSON: one line, exit 2.
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$fx/bad_array.json" 2>&1)
rc=$?
[[ $rc -eq 2 && $(wc -l <<<"$out") -eq 1 && "$out" == plumb:* ]] || fail "bad json: exit $rc: $out"
printf '{"lst": [[[[[[' >"$tmp/trunc.json"
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$tmp/trunc.json" 2>&1)
rc=$?
[[ $rc -eq 2 && $(wc -l <<<"$out") -eq 1 ]] || fail "truncated json: exit $rc: $out"
echo "ok"
