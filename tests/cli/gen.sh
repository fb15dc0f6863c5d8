#!/usr/bin/env bash
# plumb gen (issue 22): 12 models of one seed written unsharded and as 3 shards run as parallel
# processes must be the same folders, byte for byte; another seed gives other models. Every model
# passes onnx.checker (full check), `plumb check` against its own folder, and its outputs match an
# independent float64 numpy evaluation of the graph (lib/gen_oracle.py, gen_oracle_ops.py and
# gen_oracle_signal.py know each op gen builds); 354 models of opset 17 in six --ops runs hold every
# op gen builds (175). --ops builds only the ops asked for. check-many of the folders as 3
# parallel shards, merged, equals its unsharded run. --targets (a coverage report of tests/models)
# covers more of the report's uncovered 2-/3-grams than the same seeds without it, sharded too.
# Usage errors: exit 2, one line. Exit 77 in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
skip_without_python onnx numpy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

"$plumb" gen -o "$tmp/all" --seed 11 --count 12 || fail "unsharded gen exited $?"
pids=()
for i in 0 1 2; do
  "$plumb" gen -o "$tmp/sharded" --seed 11 --count 12 --shard "$i/3" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a shard exited non-zero"; done
[[ $(ls "$tmp/all" | wc -l) -eq 12 ]] || fail "unsharded run wrote $(ls "$tmp/all" | wc -l) folders, not 12"
diff -r "$tmp/all" "$tmp/sharded" > /dev/null || fail "shards differ from the unsharded run"
"$plumb" gen -o "$tmp/other" --seed 12 --count 12 || fail "seed 12 gen exited $?"
diff -r "$tmp/all" "$tmp/other" > /dev/null && fail "seeds 11 and 12 gave the same models"

# plumb check of each against its own folder: a match, or inconclusive (exit 3) where check's
# noise bound cannot decide a tensor (e.g. Hardmax of a dequantized value: docs/gen.md), never a
# mismatch; at most one of the 12 inconclusive.
inconclusive=0
for d in "$tmp"/all/model_*; do
  "$plumb" check "$d/model.onnx" --data "$d/test_data_set_0" > /dev/null 2>&1
  rc=$?
  [[ $rc -eq 3 ]] && inconclusive=$((inconclusive + 1))
  [[ $rc -eq 0 || $rc -eq 3 ]] || fail "plumb check $d exited $rc"
done
[[ $inconclusive -le 1 ]] || fail "$inconclusive of 12 plumb checks inconclusive"

# Every op of the first generator (55 op types) appears in 120 models of opset 17 restricted to
# them (LayerNormalization's first); those, the 12 above and the runs of the newer recipes below
# pass the checker and match the numpy oracle.
all_ops=Abs,Neg,Relu,Sigmoid,Tanh,Add,Sub,Mul,Max,Min,MatMul,Gemm,Conv,BatchNormalization
all_ops+=,LayerNormalization,MaxPool,AveragePool,GlobalAveragePool,GlobalMaxPool,ReduceSum,ReduceMean
all_ops+=,ReduceMax,ReduceMin,ReduceProd,ReduceL1,ReduceL2,ReduceSumSquare,ReduceLogSumExp,Softmax
all_ops+=,LogSoftmax,Reshape,Transpose,Flatten,Squeeze,Unsqueeze,Concat,Split,Slice,Gather,Where,Equal
all_ops+=,Greater,GreaterOrEqual,Less,LessOrEqual,Cast,Shape,Expand,ConvTranspose,Sqrt,Pow,Div,Clip,Erf,Pad
"$plumb" gen -o "$tmp/ops" --seed 3 --count 120 --opset 17 --max-nodes 12 --ops "$all_ops" ||
  fail "opset 17 gen exited $?"
# The ops of gen_recipes_math.cpp (unary math, activations with attributes: 50 models) and of
# gen_recipes_math/index/layout.cpp's other families (90 models), the recurrent and control-flow
# ops of gen_recipes_seq.cpp (24 models), those of gen_recipes_misc.cpp (30) and of
# gen_recipes_signal.cpp (40), each run restricted to them.
math_ops=Exp,Log,Sqrt,Reciprocal,Floor,Ceil,Round,Sign,Sin,Cos,Tan,Atan,Asin,Acos,Atanh,Sinh,Cosh,Asinh
math_ops+=,Acosh,Softplus,Softsign,Identity,Erf,LeakyRelu,Elu,Selu,Celu,HardSigmoid,HardSwish
math_ops+=,ThresholdedRelu,Shrink,Hardmax,PRelu,Dropout
more_ops=Div,Pow,Mod,Sum,Mean,And,Or,Xor,Not,IsNaN,IsInf,QuantizeLinear,DequantizeLinear,ArgMax,ArgMin
more_ops+=,OneHot,TopK,CumSum,Tile,GatherElements,GatherND,Trilu,Compress,ReverseSequence,ScatterElements
more_ops+=,ScatterND,ConstantOfShape,Range,EyeLike,Size,HannWindow,HammingWindow,BlackmanWindow
more_ops+=,DepthToSpace,SpaceToDepth,Einsum,Det,InstanceNormalization,LRN,LpNormalization
more_ops+=,MeanVarianceNormalization,Resize,LpPool,GlobalLpPool
"$plumb" gen -o "$tmp/math" --seed 3 --count 50 --opset 17 --max-nodes 8 --ops "$math_ops" || fail "math gen exited $?"
"$plumb" gen -o "$tmp/more" --seed 3 --count 90 --opset 17 --max-nodes 8 --ops "$more_ops" || fail "more gen exited $?"
seq_ops=RNN,LSTM,GRU,If,Loop,Scan
"$plumb" gen -o "$tmp/seq" --seed 3 --count 24 --opset 17 --max-nodes 6 --ops "$seq_ops" || fail "seq gen exited $?"
misc_ops=BitShift,MatMulInteger,QLinearMatMul,NegativeLogLikelihoodLoss,SoftmaxCrossEntropyLoss,SplitToSequence
misc_ops+=,SequenceConstruct,SequenceEmpty,SequenceInsert,SequenceErase,SequenceAt,ConcatFromSequence
misc_ops+=,SequenceLength,Optional,OptionalHasElement,OptionalGetElement,CastLike,Constant,ReduceLogSum
"$plumb" gen -o "$tmp/misc" --seed 3 --count 30 --opset 17 --max-nodes 6 --ops "$misc_ops" || fail "misc gen exited $?"
sig_ops=DFT,STFT,GridSample,ConvInteger,QLinearConv,NonZero,Unique,MaxUnpool,SequenceMap,DynamicQuantizeLinear
sig_ops+=,RandomUniformLike,RandomNormalLike,RandomUniform,RandomNormal,Bernoulli,Multinomial,NonMaxSuppression
sig_ops+=,MaxRoiPool,TfIdfVectorizer,MelWeightMatrix,StringNormalizer,RoiAlign
misc_ops+=,$sig_ops
"$plumb" gen -o "$tmp/signal" --seed 3 --count 40 --opset 17 --max-nodes 5 --ops "$sig_ops" || fail "signal gen exited $?"
# RoiAlign-10 (no coordinate_transformation_mode, no half-pixel shift) at opset 13, for the oracle.
"$plumb" gen -o "$tmp/roi13" --seed 3 --count 8 --opset 13 --max-nodes 3 --ops RoiAlign,Relu || fail "roi13 gen exited $?"
# --targets: a coverage report of tests/models against 60 generated models lists what they leave
# uncovered; 60 models of the same seeds generated with that report as targets cover more of its
# uncovered 2- and 3-grams (docs/gen.md, "Steering": 20 + 1 of 519 + 888 without, 50 + 9 with);
# 2 shards of the targeted run equal it; its models pass the checker and the oracle (below).
"$plumb" gen -o "$tmp/plain" --seed 7 --count 60 --opset 17 || fail "plain gen exited $?"
"$plumb" coverage --sequences 3 "$src/tests/models" --against "$tmp/plain" --json "$tmp/plain.json" > /dev/null ||
  fail "coverage of the plain run exited $?"
"$plumb" gen -o "$tmp/aimed" --seed 7 --count 60 --opset 17 --targets "$tmp/plain.json" || fail "--targets gen exited $?"
pids=()
for i in 0 1; do
  "$plumb" gen -o "$tmp/aimed2" --seed 7 --count 60 --opset 17 --targets "$tmp/plain.json" --shard "$i/2" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a --targets shard exited non-zero"; done
diff -r "$tmp/aimed" "$tmp/aimed2" > /dev/null || fail "--targets shards differ from the unsharded run"
diff -r "$tmp/plain" "$tmp/aimed" > /dev/null && fail "--targets changed nothing"
"$plumb" coverage --sequences 3 "$src/tests/models" --against "$tmp/aimed" --json "$tmp/aimed.json" > /dev/null ||
  fail "coverage of the --targets run exited $?"
/usr/bin/python3 - "$tmp/plain.json" "$tmp/aimed.json" << 'PY' || fail "--targets did not cover more uncovered 2-/3-grams"
import json, sys
covered = [sum(c['covered'] for c in json.load(open(f))['counts'] if c['n'] >= 2) for f in sys.argv[1:]]
print('--targets: uncovered 2-/3-grams covered', covered)
sys.exit(0 if covered[1] > covered[0] + 10 else 1)
PY
python3 -c 'print("{\"format\": \"plumb-sequence-coverage/1\", \"uncovered\": [{\"n\": 1}]}")' > "$tmp/bad.json"
for t in "$tmp/bad.json" "$tmp/none.json" "$src/tests/cli/gen.sh"; do
  out=$("$plumb" gen -o "$tmp/err" --count 2 --targets "$t" 2>&1)
  rc=$?
  [[ $rc -eq 2 && $(printf '%s\n' "$out" | wc -l) -eq 1 ]] || fail "gen --targets $t: exit $rc, '$out'"
done

/usr/bin/python3 "$src/tests/cli/lib/gen_oracle.py" --ops "$all_ops,$math_ops,$more_ops,$seq_ops,$misc_ops" \
  "$tmp"/all/model_* "$tmp"/ops/model_* "$tmp"/math/model_* "$tmp"/more/model_* "$tmp"/seq/model_* "$tmp"/misc/model_* \
  "$tmp"/signal/model_* "$tmp"/aimed/model_* "$tmp"/roi13/model_* ||
  fail "checker, numpy oracle or op coverage"
for d in "$tmp"/ops/model_00000*; do
  "$plumb" check "$d/model.onnx" --data "$d/test_data_set_0" > /dev/null 2>&1 || fail "plumb check $d exited $?"
done

# Other-opset models (--other-opsets 1: every model one; docs/gen.md, "Ops at other opsets"): 27
# models hold all 27 ops opsets 13 to 17 lack, each at an opset it exists at; Scatter and Upsample
# (opsets 7 to 10) pass the checker, the others fail it only for being newer than libonnx 1.12
# (IR above 8, or "No Op registered" at an opset past 17); every one converts and runs on ref, and
# plumb check against its own folder matches (inconclusive at most once). --other-opsets 0 writes
# the plain run's bytes; the default puts one at k = 199.
"$plumb" gen -o "$tmp/other" --seed 3 --count 27 --opset 17 --max-nodes 5 --other-opsets 1 ||
  fail "other-opset gen exited $?"
/usr/bin/python3 - "$plumb" "$tmp"/other/model_* << 'PY' || fail "other-opset models"
import re, subprocess, sys
import onnx
plumb, folders = sys.argv[1], sys.argv[2:]
want = {'Scatter', 'Upsample', 'BitwiseAnd', 'BitwiseOr', 'BitwiseXor', 'BitwiseNot', 'CenterCropPad', 'Col2Im',
        'Mish', 'GroupNormalization', 'DeformConv', 'Gelu', 'AffineGrid', 'ImageDecoder', 'RegexFullMatch',
        'StringConcat', 'StringSplit', 'RMSNormalization', 'RotaryEmbedding', 'Attention', 'TensorScatter',
        'Swish', 'BitCast', 'CumProd', 'CausalConvWithState', 'LinearAttention', 'SwiGLU'}
seen, bad, inconclusive = set(), 0, 0
for f in folders:
    m = onnx.load(f + '/model.onnx')
    opset = m.opset_import[0].version
    ops = {n.op_type for n in m.graph.node} & want
    seen |= ops
    try:
        onnx.checker.check_model(m, full_check=True)
        ok = opset < 13
    except Exception as e:  # noqa: BLE001
        msg = str(e).splitlines()[0]
        ok = opset > 17 and ('ir_version' in msg or re.search('No Op registered for (%s) with domain_version of %d' % ('|'.join(ops), opset), msg))
    if not ok or not ops:  # BitCast's model holds a BitwiseAnd too
        print(f, opset, sorted(ops), 'checker verdict unexpected')
        bad += 1
    rc = subprocess.run([plumb, 'check', f + '/model.onnx', '--data', f + '/test_data_set_0'], capture_output=True).returncode
    inconclusive += rc == 3
    if rc not in (0, 3):
        print(f, 'plumb check exited', rc)
        bad += 1
missing = want - seen
if missing:
    print('other-opset ops no model holds:', sorted(missing))
sys.exit(1 if bad or missing or inconclusive > 1 else 0)
PY
for k in 198 199; do
  "$plumb" gen -o "$tmp/plain200" --seed 5 --count 200 --shard $k/200 --other-opsets 0 || fail "gen --other-opsets 0 exited $?"
  "$plumb" gen -o "$tmp/dflt200" --seed 5 --count 200 --shard $k/200 || fail "gen of model $k exited $?"
done
diff -r "$tmp/plain200/model_000198" "$tmp/dflt200/model_000198" > /dev/null || fail "model 198 is not a plain one"
diff -r "$tmp/plain200/model_000199" "$tmp/dflt200/model_000199" > /dev/null && fail "model 199 is no other-opset one"

# --ops: only the ops asked for, plus the power-of-two Mul that keeps values bounded.
"$plumb" gen -o "$tmp/conv" --seed 4 --count 6 --ops Conv,MaxPool --max-nodes 30 || fail "--ops gen exited $?"
/usr/bin/python3 - "$tmp"/conv/model_*/model.onnx << 'PY' || fail "--ops Conv,MaxPool built other ops"
import sys
import onnx
ops = {n.op_type for f in sys.argv[1:] for n in onnx.load(f).graph.node}
sys.exit(0 if ops <= {'Conv', 'MaxPool', 'Mul'} and {'Conv', 'MaxPool'} <= ops else print(ops) or 1)
PY

# check-many over the folders (plus a missing one, an error line) as 3 parallel shards, merged,
# equals the unsharded run; every generated folder matches.
ls -d "$tmp"/all/model_* > "$tmp/list.txt"
echo "$tmp/missing" >> "$tmp/list.txt"
"$plumb" check-many "$tmp/list.txt" > "$tmp/all.jsonl" || fail "check-many exited $?"
pids=()
for i in 0 1 2; do
  "$plumb" check-many "$tmp/list.txt" --shard "$i/3" > "$tmp/s$i.jsonl" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a check-many shard exited non-zero"; done
"$plumb" merge "$tmp/s2.jsonl" "$tmp/s0.jsonl" "$tmp/s1.jsonl" | cmp -s - "$tmp/all.jsonl" || fail "merged shards differ"
[[ $(grep -c '"result":"match"' "$tmp/all.jsonl") -eq $((12 - inconclusive)) ]] ||
  fail "not $((12 - inconclusive)) matches: $(cat "$tmp/all.jsonl")"
grep -q '"index":12,.*"result":"error"' "$tmp/all.jsonl" || fail "the missing folder is no error line"
"$plumb" merge "$tmp/s0.jsonl" "$tmp/s0.jsonl" > /dev/null 2>&1
[[ $? -eq 2 ]] || fail "merge of one shard twice did not exit 2"

for args in "--shard 3/3" "--shard x" "--ops Foo" "--max-nodes 0" "--seed -1" "--ops LayerNormalization"; do
  # shellcheck disable=SC2086
  out=$("$plumb" gen -o "$tmp/err" --count 2 $args 2>&1)
  rc=$?
  [[ $rc -eq 2 && $(printf '%s\n' "$out" | wc -l) -eq 1 ]] || fail "gen $args: exit $rc, '$out'"
done
"$plumb" gen --count 2 > /dev/null 2>&1
[[ $? -eq 2 ]] || fail "gen without -o did not exit 2"

[[ $failures -eq 0 ]] && echo "gen: ok"
exit $((failures > 0))
