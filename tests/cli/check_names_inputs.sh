#!/usr/bin/env bash
# plumb check as a user with .npy files meets it (issue 20): --input NAME=FILE.npy without --data;
# .npy expected values named through names.json (ONNX names with '/'), a stray names.json that is
# no mapping (ignored with a note, never an abort), input_<k>.npy skipped and output_<k>.npy as
# graph output k; two expected files for one tensor (the same values: one expectation; different
# values: an error naming both files); error lines that name a file once; a shape mismatch said as
# such. The .npy files are made here from examples/mlp_torch/data by Debian's python3 (numpy, onnx).
set -uo pipefail
plumb=$(realpath "$1") src=$2
ex=$src/examples/mlp_torch
fail() { echo "FAIL: $*"; exit 1; }
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
skip_without_python numpy onnx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/npy"
/usr/bin/python3 - "$ex/data" "$tmp" <<'PY' || fail "making the .npy files"
import sys, numpy as np, onnx, onnx.numpy_helper as nh
data, tmp = sys.argv[1:]
arr = lambda f: nh.to_array(onnx.load_tensor(f"{data}/{f}.pb"))
np.save(f"{tmp}/x.npy", arr("input_0"))
np.save(f"{tmp}/npy/input_0.npy", arr("input_0"))
for f in ["act_fc1", "act_act", "act_fc2"]:
    np.save(f"{tmp}/npy/{f}.npy", arr(f))
np.save(f"{tmp}/npy/output_0.npy", arr("output_0"))
np.save(f"{tmp}/fc1_transposed.npy", arr("act_fc1").T.copy())
bad = arr("act_fc1").copy()
bad[0, 0] += 1
np.save(f"{tmp}/fc1_other.npy", bad)
PY
names='{"act_fc1.npy": "/fc1/Gemm_output_0", "act_act": "/act/Relu_output_0", "act_fc2.npy": "/fc2/Gemm_output_0"}'

# --input NAME=FILE.npy, expected values from the example's .pb folder.
out=$("$plumb" check "$ex/model.onnx" --input x="$tmp/x.npy" --expected "$ex/data" 2>&1)
rc=$?
[[ $rc -eq 0 ]] || fail "--input x=x.npy: exit $rc: $out"
grep -q "^match: 4 tensors" <<<"$out" || fail "--input: not 4 tensors: $out"
out=$("$plumb" check "$ex/model.onnx" --input x="$tmp/x.npy" 2>&1)
[[ $? -eq 2 && "$out" == *"--expected"* ]] || fail "--input without --data or --expected: $out"

# names.json names the .npy intermediates (by file name or stem); output_0.npy is output 0 and
# input_0.npy is not an expected value.
echo "$names" >"$tmp/npy/names.json"
out=$("$plumb" check "$ex/model.onnx" --data "$tmp/npy" 2>&1)
rc=$?
[[ $rc -eq 0 ]] || fail "names.json: exit $rc: $out"
grep -q "^match: 4 tensors" <<<"$out" || fail "names.json: not 4 tensors: $out"
grep -q "^skip" <<<"$out" && fail "names.json: something skipped: $out"
out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$tmp/npy" 2>&1)
[[ $? -eq 1 ]] || fail "names.json, wrong axis: $out"
grep -qx "first divergence: node '/softmax/Softmax' (Softmax-13)" <<<"$out" || fail "names.json, wrong axis: $out"
# A mapping entry for a file that is not there is a note, not an error.
echo '{"act_fc1.npy": "/fc1/Gemm_output_0", "gone.npy": "/fc2/Gemm_output_0"}' >"$tmp/npy/names.json"
out=$("$plumb" check "$ex/model.onnx" --data "$tmp/npy" 2>&1)
[[ $? -eq 0 ]] || fail "names.json with a missing file: $out"
grep -q "^skip  names.json: 'gone.npy' (no such .npy file in the folder)" <<<"$out" || fail "no note for gone.npy: $out"
# A stray names.json (another tool's list): ignored with a note; the .npy files keep their stems.
echo '["conv1", "relu1"]' >"$tmp/npy/names.json"
out=$("$plumb" check "$ex/model.onnx" --data "$tmp/npy" 2>&1)
rc=$?
[[ $rc -eq 0 ]] || fail "stray names.json: exit $rc: $out"
grep -q "^skip  names.json (not a {file.npy: tensor name} mapping" <<<"$out" || fail "stray names.json: no note: $out"
grep -q "^skip  act_fc1 (not a tensor of this model)" <<<"$out" || fail "stray names.json: stems: $out"
grep -q "^match: 1 tensor within" <<<"$out" || fail "stray names.json: output not compared: $out"
printf 'not json at all' >"$tmp/npy/names.json"
out=$("$plumb" check "$ex/model.onnx" --data "$tmp/npy" 2>&1)
[[ $? -eq 0 ]] || fail "names.json that is not JSON: $out"

# Two expected files for one tensor: the same values are fine, different values are an error
# naming both files.
echo "$names" >"$tmp/npy/names.json"
cp "$ex/data/act_fc1.pb" "$tmp/npy/"
out=$("$plumb" check "$ex/model.onnx" --data "$tmp/npy" 2>&1)
[[ $? -eq 0 ]] || fail "duplicate with the same values: $out"
cp "$tmp/fc1_other.npy" "$tmp/npy/act_fc1.npy"
out=$("$plumb" check "$ex/model.onnx" --data "$tmp/npy" 2>&1)
rc=$?
[[ $rc -eq 2 && $(wc -l <<<"$out") -eq 1 ]] || fail "different duplicates: exit $rc: $out"
[[ "$out" == *"'/fc1/Gemm_output_0'"*"npy/act_fc1.npy"*"npy/act_fc1.pb"* ]] || fail "different duplicates: $out"
rm "$tmp/npy/act_fc1.pb"
cp "$ex/data/act_fc1.pb" "$tmp/npy/act_fc1.npy.pb"  # unrelated name, same tensor name: by value too
out=$("$plumb" check "$ex/model.onnx" --data "$tmp/npy" 2>&1)
[[ $? -eq 2 && "$out" == *"act_fc1.npy"*"act_fc1.npy.pb"* ]] || fail "duplicate by TensorProto name: $out"
rm "$tmp/npy/act_fc1.npy.pb"

# Error lines name a file once, and the file the error is about.
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$tmp/nowhere" 2>&1)
[[ $? -eq 2 && "$out" == "plumb: $tmp/nowhere: no such file or folder" ]] || fail "missing expected: $out"
# An empty path (a script's unset variable) is an error, not the option left out.
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "" 2>&1)
[[ $? -eq 2 && "$out" == "plumb: check: --expected needs a PATH"* ]] || fail "empty --expected: $out"
out=$("$plumb" check "$ex/model.onnx" --data "" 2>&1)
[[ $? -eq 2 && "$out" == "plumb: check: --data needs a folder"* ]] || fail "empty --data: $out"
out=$("$plumb" check "$ex/model.onnx" --input x="$tmp/none.npy" --expected "$ex/data" 2>&1)
[[ $? -eq 2 && "$out" == "plumb: $tmp/none.npy: cannot open file" ]] || fail "missing input file: $out"
printf 'garbage' >"$tmp/m.onnx"
for cmd in check run print convert; do
  case $cmd in
    check) args=(--data "$ex/data") ;;
    run) args=(--data "$ex/data") ;;
    convert) args=(-o "$tmp/m.plumb") ;;
    *) args=() ;;
  esac
  out=$(cd "$tmp" && "$plumb" $cmd m.onnx "${args[@]}" 2>&1)
  [[ $? -eq 2 && $(wc -l <<<"$out") -eq 1 ]] || fail "$cmd on a malformed model: $out"
  [[ $(grep -o "m\.onnx" <<<"$out" | wc -l) -eq 1 && "$out" == "plumb: m.onnx: "* ]] || fail "$cmd: file named twice: $out"
done

# A shape mismatch says the shapes differ, not "0 of N elements" or a minimum tolerance.
mkdir "$tmp/t"
cp "$tmp/fc1_transposed.npy" "$tmp/t/"
echo '{"fc1_transposed": "/fc1/Gemm_output_0"}' >"$tmp/t/names.json"
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --expected "$tmp/t" 2>&1)
rc=$?
[[ $rc -eq 1 ]] || fail "transposed expected value: exit $rc: $out"
grep -q "tensor '/fc1/Gemm_output_0': the shapes differ (shape \[3,16\], expected \[16,3\]), no element compared" \
  <<<"$out" || fail "shape mismatch not said: $out"
grep -q "elements beyond the noise bound\|minimum tolerance" <<<"$out" && fail "shape mismatch with counts: $out"
echo "ok"
