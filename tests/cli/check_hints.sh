#!/usr/bin/env bash
# plumb check's hint lines (issue 20, check/hints.h): when the evidence points at the expected
# values rather than the model, the verdict says so as a possibility. tests/models/expected_traps
# (make.py): a torch CNN whose exporter folds bn0 into the first Conv and whose relu1 is in place,
# dumped right (data/: match, no hint), naively (naive/: the first Conv differs and reads only the
# graph input and weights), with the BatchNorm mapped right but no copy (bn_fixed/: conv1's expected
# value is relu1's), and without relu1's value (its expected value has no negative element). A
# real mis-conversion whose node reads a compared, agreeing tensor gets no hint; a transposed
# expected value gets the layout hint.
set -uo pipefail
plumb=$1 src=$2
m=$src/tests/models/expected_traps
fail() { echo "FAIL: $*"; exit 1; }
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
out=$("$plumb" check "$m/model.onnx" --data "$m/data" 2>&1)
rc=$?
[[ $rc -eq 0 ]] || fail "right dump: exit $rc: $out"
grep -q "^match: 5 tensors" <<<"$out" || fail "right dump: $out"
grep -q "^hint:" <<<"$out" && fail "right dump has a hint: $out"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$plumb" check "$m/model.onnx" --data "$m/data" --expected "$m/naive" --report "$tmp/naive.json" 2>&1)
[[ $? -eq 1 ]] || fail "naive dump: $out"
grep -qx "first divergence: node '/conv0/Conv' (Conv-13)" <<<"$out" || fail "naive dump: $out"
grep -q "^hint: node '/conv0/Conv' (Conv-13) reads only graph inputs and constants, and is the first to differ: the expected value of '/conv0/Conv_output_0' may not be this ONNX node's output (an exporter folds a BatchNormalization" \
  <<<"$out" || fail "naive dump: no BatchNorm hint: $out"
grep -q '"hints": \["node '"'"'/conv0/Conv'"'"' (Conv-13) reads only graph inputs' "$tmp/naive.json" || fail "naive.json hints"

out=$("$plumb" check "$m/model.onnx" --data "$m/data" --expected "$m/bn_fixed" 2>&1)
[[ $? -eq 1 ]] || fail "bn_fixed dump: $out"
grep -qx "first divergence: node '/conv1/Conv' (Conv-13)" <<<"$out" || fail "bn_fixed dump: $out"
grep -q "^hint: the expected value of '/conv1/Conv_output_0' is identical to that of '/relu1/Relu_output_0', the output of node '/relu1/Relu' (Relu-13) which reads it: the value may have been overwritten in place" \
  <<<"$out" || fail "bn_fixed dump: no in-place hint: $out"
[[ $(grep -c "^hint:" <<<"$out") -eq 1 ]] || fail "bn_fixed dump: more than the in-place hint: $out"

mkdir "$tmp/convs"
cp "$m/bn_fixed/0.npy" "$m/bn_fixed/2.npy" "$tmp/convs/"
echo '{"0.npy": "/conv0/Conv_output_0", "2.npy": "/conv1/Conv_output_0"}' >"$tmp/convs/names.json"
out=$("$plumb" check "$m/model.onnx" --data "$m/data" --expected "$tmp/convs" 2>&1)
[[ $? -eq 1 ]] || fail "conv outputs only: $out"
grep -Eq "^hint: the expected value of '/conv1/Conv_output_0' has no negative element where the computed one has [0-9]+, and node '/relu1/Relu' \(Relu-13\) reads it" \
  <<<"$out" || fail "conv outputs only: no in-place hint: $out"

# A real mis-conversion (Softmax axis) after compared, agreeing tensors: no hint.
ex=$src/examples/mlp_torch
out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$ex/data" 2>&1)
[[ $? -eq 1 ]] || fail "wrong axis: $out"
grep -q "^hint:" <<<"$out" && fail "wrong axis has a hint: $out"

# A transposed expected value: the shapes differ, and the hint names layouts.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  mkdir "$tmp/t"
  /usr/bin/python3 -c 'import sys, numpy as np; a = np.load(sys.argv[1]); np.save(sys.argv[2], np.ascontiguousarray(a.transpose(0, 2, 3, 1)))' \
    "$m/data/2.npy" "$tmp/t/nhwc.npy" || fail "numpy"
  echo '{"nhwc.npy": "/conv1/Conv_output_0"}' >"$tmp/t/names.json"
  out=$("$plumb" check "$m/model.onnx" --data "$m/data" --expected "$tmp/t" 2>&1)
  [[ $? -eq 1 ]] || fail "NHWC expected value: $out"
  grep -q "^hint: the expected value of '/conv1/Conv_output_0' has another shape (shape \[1,4,8,8\], expected \[1,8,8,4\]): it may be another tensor's value, or this one in another layout" \
    <<<"$out" || fail "NHWC expected value: no layout hint: $out"
fi
echo "ok"
