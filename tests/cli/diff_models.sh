#!/usr/bin/env bash
# plumb diff A B (issue 24) on real torch exports (tests/models), the variants made at test time by
# tests/models/diff_variants.py: a model against itself and against torch's re-export at another
# opset is equivalent (exit 0); one attribute changed, one weight slice scaled, one op swapped is
# different (exit 1), each finding named at its node and classified (ONNX attribute text, real
# change with its scale, op swap); weights rounded to f16, or quantized to int8, uint8 or int4
# (dequantized, or through DequantizeLinear) are precision losses naming the scheme and the scale,
# and a weight one step off its int8 grid a real change; a BatchNormalization folded into a Conv or
# a Gemm is fused (the other way round split), naming the ONNX nodes on each side, and equivalent on
# the data; so are the encoder's LayerNormalizations expanded (torch's opset-16 export), its Erf
# arithmetic contracted into a Gelu, its Softmax expanded, and mobilenet_v3's HardSigmoid + Mul
# fused into HardSwish; a Gemm as MatMul + Add is the same computation (equivalent). With --data
# the first divergence is named at the changed node, and `plumb check --against` the original
# localizes each fault where `plumb check --expected` with onnxruntime's dumped values of the
# original does. Errors: exit 2, one line naming the file. Exit 77 (skipped) in a build without the
# ONNX tools.
set -uo pipefail
plumb=$1 src=$2
models=$src/tests/models
res=$models/resnet_small
failures=0 cases=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
if [[ "$("$plumb" diff 2>&1)" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$models/diff_variants.py" "$src" "$tmp" || { echo "FAIL: diff_variants.py"; exit 1; }

out="" rc=0
run() {  # command... : sets out (stdout and stderr) and rc
  cases=$((cases + 1))
  out=$("$plumb" "$@" 2>&1)
  rc=$?
}
expect() {  # exit, then fixed strings that must be whole lines of the output; needs out, rc, what
  local want=$1 line
  shift
  [[ $rc -eq $want ]] || { fail "$what: exit $rc, expected $want"$'\n'"$out"; return; }
  for line in "$@"; do
    grep -qxF -- "$line" <<<"$out" || fail "$what: no line '$line' in:"$'\n'"$out"
  done
}

finds() {  # COUNT PATTERN: COUNT findings match the grep pattern PATTERN, and there are no others
  local n
  n=$(grep -c -- "$2" <<<"$out")
  [[ $n -eq $1 && $(grep -c "^changed node" <<<"$out") -eq $1 ]] ||
    fail "$what: $n findings, not $1, match '$2', or there are others:"$'\n'"$out"
}

what="resnet_small against itself"
run diff "$res/model.onnx" "$res/model.onnx"
expect 0 "equivalent"
[[ $(wc -l <<<"$out") -eq 1 ]] || fail "$what: findings on an identical model:"$'\n'"$out"

what="resnet_small against its .plumb conversion"
"$plumb" convert "$res/model.onnx" -o "$tmp/model.plumb" >/dev/null && "$plumb" convert "$tmp/pads.onnx" -o "$tmp/pads.plumb" >/dev/null ||
  fail "plumb convert"
run diff "$res/model.onnx" "$tmp/model.plumb"
expect 0 "equivalent"
what="a .plumb pair: attributes in core terms"
run diff "$tmp/model.plumb" "$tmp/pads.plumb"
expect 1 "changed node '/layer4/layer4.0/conv1/Conv' (Conv): core conv pads_low [1,1] -> [0,1], pads_high [1,1] -> [2,1]"

what="cnn (opset 13) against torch's re-export at opset 9"
run diff "$models/cnn/model.onnx" "$tmp/cnn_opset9.onnx"
expect 0 "equivalent"

what="one attribute changed"
run diff "$res/model.onnx" "$tmp/pads.onnx"
expect 1 "changed node '/layer4/layer4.0/conv1/Conv' (Conv): pads [1,1,1,1] -> [0,1,2,1]" "different"
[[ $(wc -l <<<"$out") -eq 2 ]] || fail "$what: more than one finding:"$'\n'"$out"
what="one attribute changed, on the data"
run diff "$res/model.onnx" "$tmp/pads.onnx" --data "$res/data" --report "$tmp/pads.json"
expect 1 "first divergence: node '/layer4/layer4.0/conv1/Conv' (Conv-17)" "different"
/usr/bin/python3 - "$tmp/pads.json" <<'PY' || fail "$what: the JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "different", r["verdict"]
assert [f["node"] for f in r["findings"]] == ["/layer4/layer4.0/conv1/Conv"], r["findings"]
assert r["findings"][0]["kind"] == "attribute", r["findings"][0]
assert r["data"]["first_divergence"]["node"] == "/layer4/layer4.0/conv1/Conv", r["data"]["first_divergence"]
PY

what="one weight slice scaled"
run diff "$res/model.onnx" "$tmp/weight.onnx"
expect 1 "different"
grep -q "^changed node '/layer4/layer4.0/conv2/Conv' (Conv): weight '[^']*' f32\[64,64,3,3\]: real change: 576 of 36864 elements differ (slice 0 of 64 along axis 0), scaled by 1.05, " <<<"$out" ||
  fail "$what: no real change of slice 0 scaled by 1.05 at /layer4/layer4.0/conv2/Conv:"$'\n'"$out"
[[ $(wc -l <<<"$out") -eq 2 ]] || fail "$what: more than one finding:"$'\n'"$out"

what="one op swapped"
run diff "$res/model.onnx" "$tmp/op.onnx" --data "$res/data"
expect 1 "first divergence: node '/relu/Relu' (Sigmoid-17)" "different"
grep -q "^changed node '/relu/Relu' (Relu -> Sigmoid): op Relu -> Sigmoid" <<<"$out" ||
  fail "$what: no op swap at /relu/Relu:"$'\n'"$out"

what="weights rounded to f16"
run diff "$res/model.onnx" "$tmp/f16.onnx"
expect 1 "different"
n=$(grep -c "^changed node '[^']*' ([A-Za-z]*): weight .*: precision loss (equal after rounding to f16): " <<<"$out")
[[ $n -ge 10 && $(grep -c "^changed node" <<<"$out") -eq $n ]] ||
  fail "$what: not every finding a precision loss to f16 ($n):"$'\n'"$out"

what="BatchNormalization folded into /conv1/Conv by hand"
run diff "$tmp/unfolded.onnx" "$res/model.onnx" --data "$res/data"
expect 0 "equivalent on the data"
bn="BatchNormalization '/conv1/Conv/bn'"
finds 1 "^changed node '/conv1/Conv' (Conv): fused: A's Conv '/conv1/Conv' + $bn -> B's Conv '/conv1/Conv' ($bn folded into it), [0-9]* core nodes \[conv, .*\] -> 2 core nodes \[conv, binary add\]; changed with it: weight '[^']*' f32\[8,3,7,7\] (real change, [^)]*); weight '[^']*' f32\[8\] (real change, [^)]*)$"
what="the BatchNormalization split out of /conv1/Conv"
run diff "$res/model.onnx" "$tmp/unfolded.onnx"
expect 1 "different"
finds 1 "^changed node '/conv1/Conv' (Conv): split: A's Conv '/conv1/Conv' -> B's Conv '/conv1/Conv' + $bn ($bn split out of it), "

# Quantized weights (int8, uint8, int4; dequantized initializers, or int8 with DequantizeLinear):
# precision losses naming the scheme and the scale; one weight one step off the grid: a real change.
what="Conv and Gemm weights int8, per channel"
run diff "$res/model.onnx" "$tmp/int8.onnx"
expect 1 "different"
finds 13 "^changed node '[^']*' (\(Conv\|Gemm\)): weight '[^']*' f32\[[0-9,]*\]: precision loss (equal after rounding to int8, symmetric, per axis 0: [0-9]* scales [0-9.e-]* to [0-9.e-]*): "
grep -q "^changed node '/conv1/Conv' (Conv): weight 'onnx::Conv_117' f32\[8,3,7,7\]: precision loss (equal after rounding to int8, symmetric, per axis 0: 8 scales " <<<"$out" ||
  fail "$what: /conv1/Conv's weight:"$'\n'"$out"
what="Conv weights uint8 with a zero point, per tensor"
run diff "$res/model.onnx" "$tmp/uint8.onnx"
expect 1 "different"
n=$(grep -c "^changed node '[^']*' (Conv): weight .*: precision loss (equal after rounding to u\?int8, [a-z]*,\? \?scale [0-9.e-]*\(, zero point [0-9]*\)\?): " <<<"$out")
u=$(grep -c ": precision loss (equal after rounding to uint8, scale [0-9.e-]*, zero point [0-9]*): " <<<"$out")
[[ $n -eq 12 && $u -ge 6 && $(grep -c "^changed node" <<<"$out") -eq 12 ]] ||
  fail "$what: not 12 8-bit precision losses, most uint8 ($n, $u):"$'\n'"$out"
what="Conv weights int4, per channel"
run diff "$res/model.onnx" "$tmp/int4.onnx"
expect 1 "different"
finds 12 "^changed node '[^']*' (Conv): weight .*: precision loss (equal after rounding to int4, symmetric, per axis 0: "
what="Conv weights as int8 with a DequantizeLinear"
run diff "$res/model.onnx" "$tmp/qdq.onnx"
expect 1 "different"
finds 12 "^changed node '\([^']*\)' (Conv): weight '[^']*' f32\[[0-9,]*\] (in B '[^']*_dequantized', computed by DequantizeLinear '\1/DequantizeLinear'): precision loss (equal after rounding to int8, symmetric, per axis 0: "
what="int8 weights, one of them one step off"
run diff "$res/model.onnx" "$tmp/int8_off.onnx"
expect 1 "different"
grep -q "^changed node '/layer4/layer4.0/conv2/Conv' (Conv): weight '[^']*' f32\[64,64,3,3\]: real change: " <<<"$out" ||
  fail "$what: no real change at /layer4/layer4.0/conv2/Conv:"$'\n'"$out"
[[ $(grep -c ": real change: " <<<"$out") -eq 1 && $(grep -c ": precision loss (equal after rounding to int8, " <<<"$out") -eq 12 ]] ||
  fail "$what: other real changes:"$'\n'"$out"

# Fusions and splits, named by the ONNX nodes on each side.
what="a BatchNormalization split out of a Gemm"
run diff "$models/cnn/model.onnx" "$tmp/cnn_gemm_bn.onnx"
expect 1 "different"
gemm="Gemm '/head/head.1/Gemm'" bn="BatchNormalization '/head/head.1/Gemm/bn'"
grep -q "^changed node '/head/head.1/Gemm' (Gemm): split: A's $gemm -> B's $gemm + $bn ($bn split out of it), 2 core nodes \[matmul, binary add\] -> " <<<"$out" ||
  fail "$what: not a split:"$'\n'"$out"
what="the BatchNormalization folded into the Gemm, on the data"
run diff "$tmp/cnn_gemm_bn.onnx" "$models/cnn/model.onnx" --data "$models/cnn/data"
expect 0 "equivalent on the data"
grep -q "^changed node '/head/head.1/Gemm' (Gemm): fused: A's $gemm + $bn -> B's $gemm ($bn folded into it), .*; changed with it: weight 'head.1.weight' f32\[32,256\] (real change, [^)]*); weight 'head.1.bias' f32\[32\] (real change, [^)]*)$" <<<"$out" ||
  fail "$what: not fused:"$'\n'"$out"
what="a Gemm as MatMul and Add"
run diff "$models/cnn/model.onnx" "$tmp/cnn_matmul.onnx"
expect 0 "same computation: split: A's $gemm -> B's MatMul '/head/head.1/MatMul' + Add '/head/head.1/Add'; the same 2 core nodes [matmul, binary add]" "equivalent"
enc=$models/encoder
what="the encoder re-exported at opset 16: each LayerNormalization expanded"
run diff "$enc/model.onnx" "$tmp/encoder_opset16.onnx" --data "$enc/data"
expect 0 "equivalent on the data"
for ln in norm1 norm2; do
  grep -q "^changed node '/layer/$ln/LayerNormalization' (LayerNormalization): split: A's LayerNormalization '/layer/$ln/LayerNormalization' -> B's ReduceMean '/layer/$ln/ReduceMean' + Sub '/layer/$ln/Sub' + Pow '/layer/$ln/Pow' + ReduceMean '/layer/$ln/ReduceMean_1' + Add '/layer/$ln/Add' + Sqrt '/layer/$ln/Sqrt' + Div '/layer/$ln/Div' + Mul '/layer/$ln/Mul' + ... (9 in all), " <<<"$out" ||
    fail "$what: /layer/$ln/LayerNormalization is not split:"$'\n'"$out"
done
[[ $(grep -c "^changed node" <<<"$out") -eq 2 ]] || fail "$what: other findings:"$'\n'"$out"
what="the encoder's Erf arithmetic as a Gelu"
run diff "$enc/model.onnx" "$tmp/encoder_gelu.onnx" --data "$enc/data"
expect 0 "equivalent on the data"
finds 1 "^changed node '/layer/Gelu' (Gelu): fused: A's Div '/layer/Div' + Erf '/layer/Erf' + Add '/layer/Add_1' + Mul '/layer/Mul' + Mul '/layer/Mul_1' -> B's Gelu '/layer/Gelu', 5 core nodes \[binary div, unary erf, binary add, binary mul, binary mul\] -> "
what="the encoder's Softmax expanded"
run diff "$enc/model.onnx" "$tmp/encoder_softmax.onnx"
expect 1 "different"
sm=/layer/self_attn/softmax
finds 1 "^changed node '/layer/self_attn/Softmax' (Softmax): split: A's Softmax '/layer/self_attn/Softmax' -> B's ReduceMax '$sm/ReduceMax' + Sub '$sm/Sub' + Exp '$sm/Exp' + ReduceSum '$sm/ReduceSum' + Div '$sm/Div', "
what="HardSigmoid and Mul fused into HardSwish"
mob=$models/mobilenet_v3_small
run diff "$tmp/hardswish.onnx" "$mob/model.onnx" --data "$mob/data"
expect 0 "equivalent on the data"
finds 9 "^changed node '\([^']*\)/HardSwish' (HardSwish): fused: A's HardSigmoid '\1/HardSigmoid' + Mul '\1/Mul' -> B's HardSwish '\1/HardSwish', "

# check --against the original localizes each fault as --expected with the dumped values does.
/usr/bin/python3 "$models/real_cases.py" full "$res" "$tmp/full" >/dev/null || fail "real_cases.py full"
for v in pads weight op; do
  what="check $v.onnx --against the original"
  run check "$tmp/$v.onnx" --data "$res/data" --expected "$tmp/full"
  dumped=$(grep "^first divergence:" <<<"$out")
  run check "$tmp/$v.onnx" --data "$res/data" --against "$res/model.onnx"
  against=$(grep "^first divergence:" <<<"$out")
  [[ $rc -eq 1 && -n "$against" && "$against" == "$dumped" ]] ||
    fail "$what: exit $rc, '$against', with the dumped values '$dumped':"$'\n'"$out"
done
what="check the original --against itself"
run check "$res/model.onnx" --data "$res/data" --against "$res/model.onnx"
expect 0

what="a missing model"
run diff "$res/model.onnx" "$tmp/nosuch.onnx"
[[ $rc -eq 2 && $(wc -l <<<"$out") -eq 1 && "$out" == "plumb: $tmp/nosuch.onnx: "* ]] ||
  fail "$what: exit $rc: $out"
what="a single model"
run diff "$res/model.onnx"
[[ $rc -eq 2 && "$out" == "plumb: diff: usage: plumb diff A B"* ]] || fail "$what: exit $rc: $out"

if [[ $failures -ne 0 ]]; then
  echo "$failures of $cases cases failed"
  exit 1
fi
echo "ok: $cases cases"
