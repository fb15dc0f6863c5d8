#!/usr/bin/env bash
# plumb gen (issue 22): 12 models of one seed written unsharded and as 3 shards run as parallel
# processes must be the same folders, byte for byte; another seed gives other models. Every model
# passes onnx.checker (full check), `plumb check` against its own folder, and its output_0.pb
# matches an independent float64 numpy evaluation of the graph (the oracle below knows each op gen
# builds). check-many of the folders as 3 parallel shards, merged, equals its unsharded run.
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

for d in "$tmp"/all/model_*; do
  "$plumb" check "$d/model.onnx" --data "$d/test_data_set_0" > /dev/null 2>&1 || fail "plumb check $d exited $?"
done

/usr/bin/python3 - "$tmp/all" << 'PY' || fail "checker or numpy oracle"
import glob, sys
import numpy as np
import onnx
from onnx import numpy_helper as nh
ops = {'Abs': np.abs, 'Neg': np.negative, 'Relu': lambda a: np.maximum(a, 0), 'Tanh': np.tanh,
       'Sigmoid': lambda a: 1 / (1 + np.exp(-a)), 'Add': np.add, 'Sub': np.subtract,
       'Mul': np.multiply, 'Max': np.maximum, 'Min': np.minimum}
def tensor(path):
    t = onnx.TensorProto()
    with open(path, 'rb') as f:
        t.ParseFromString(f.read())
    return nh.to_array(t)
bad = 0
for d in sorted(glob.glob(sys.argv[1] + '/model_*')):
    m = onnx.load(d + '/model.onnx')
    onnx.checker.check_model(m, full_check=True)
    env = {i.name: tensor(f'{d}/test_data_set_0/input_{k}.pb').astype(np.float64)
           for k, i in enumerate(m.graph.input)}
    for n in m.graph.node:
        env[n.output[0]] = ops[n.op_type](*[env[x] for x in n.input])
    err = float(np.max(np.abs(tensor(d + '/test_data_set_0/output_0.pb') - env['y'])))
    if err > 1e-5:
        print(f'{d}: output differs from numpy by {err}')
        bad += 1
sys.exit(1 if bad else 0)
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
[[ $(grep -c '"result":"match"' "$tmp/all.jsonl") -eq 12 ]] || fail "not 12 matches: $(cat "$tmp/all.jsonl")"
grep -q '"index":12,.*"result":"error"' "$tmp/all.jsonl" || fail "the missing folder is no error line"
"$plumb" merge "$tmp/s0.jsonl" "$tmp/s0.jsonl" > /dev/null 2>&1
[[ $? -eq 2 ]] || fail "merge of one shard twice did not exit 2"

for args in "--shard 3/3" "--shard x" "--ops Foo" "--max-nodes 0" "--seed -1"; do
  # shellcheck disable=SC2086
  out=$("$plumb" gen -o "$tmp/err" --count 2 $args 2>&1)
  rc=$?
  [[ $rc -eq 2 && $(printf '%s\n' "$out" | wc -l) -eq 1 ]] || fail "gen $args: exit $rc, '$out'"
done
"$plumb" gen --count 2 > /dev/null 2>&1
[[ $? -eq 2 ]] || fail "gen without -o did not exit 2"

[[ $failures -eq 0 ]] && echo "gen: ok"
exit $((failures > 0))
