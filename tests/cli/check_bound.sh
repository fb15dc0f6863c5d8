#!/usr/bin/env bash
# The auto bound of plumb check (tools/onnx/check_bound.h, docs/check-tolerance.md), outputs only,
# on examples/check_faults/conv and examples/mlp_torch: torch's outputs match (exit 0); the same
# outputs zeroed, shuffled, scaled by 1.01, or with one element moved by 1% of the largest
# magnitude exit 1; moved by one rounding they match. An ill-conditioned model, (x + 1) - 1 with
# |x| ~ 1e-9 (no significant digit in f32), is inconclusive: exit 3 with the reason, never a
# match. Exit 77 (skipped) in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
if [[ "$("$plumb" check 2>&1)" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 cases=0
expect() {  # want model data [args...]
  local want=$1 model=$2 data=$3 out rc
  shift 3
  out=$("$plumb" check "$model" --data "$data" "$@" 2>&1)
  rc=$?
  cases=$((cases + 1))
  if [[ $rc -ne $want ]]; then
    echo "FAIL: plumb check $model --data $data $*: exit $rc, expected $want"
    echo "$out"
    failures=$((failures + 1))
  fi
  if [[ $want -eq 3 ]] && ! grep -q "^inconclusive: " <<<"$out"; then
    echo "FAIL: exit 3 without the inconclusive verdict line:"
    echo "$out"
    failures=$((failures + 1))
  fi
}
for m in "$src/examples/check_faults/conv" "$src/examples/mlp_torch"; do
  name=$(basename "$m")
  /usr/bin/python3 - "$m/data" "$tmp/$name" <<'PY' || exit 1
import os, shutil, sys
import numpy as np
from onnx import numpy_helper, TensorProto
src, out = sys.argv[1], sys.argv[2]
t = TensorProto()
t.ParseFromString(open(os.path.join(src, "output_0.pb"), "rb").read())
y = numpy_helper.to_array(t).astype(np.float32)
big = float(np.abs(y).max())
moved = y.copy().reshape(-1)
moved[int(np.argmax(np.abs(moved)))] += 0.01 * big
rng = np.random.default_rng(0)
cases = {"zeros": np.zeros_like(y), "shuffled": rng.permutation(y.reshape(-1)).reshape(y.shape),
         "scaled": (y * np.float32(1.01)).astype(np.float32), "moved": moved.reshape(y.shape),
         "rounding": np.nextafter(y, np.where(rng.random(y.shape) < 0.5, -np.inf, np.inf)).astype(np.float32)}
for k, v in cases.items():
    d = os.path.join(out, k)
    os.makedirs(d)
    shutil.copy(os.path.join(src, "input_0.pb"), d)
    open(os.path.join(d, "output_0.pb"), "wb").write(numpy_helper.from_array(v, t.name).SerializeToString())
PY
  model=$m/model.onnx
  expect 0 "$model" "$m/data"
  for k in zeros shuffled scaled moved; do expect 1 "$model" "$tmp/$name/$k"; done
  expect 0 "$model" "$tmp/$name/rounding"
done

# (x + 1) - 1: every result is rounding noise.
/usr/bin/python3 - "$tmp/ill" <<'PY' || exit 1
import os, sys
import numpy as np
from onnx import helper, numpy_helper, TensorProto, save
d = sys.argv[1]
os.makedirs(os.path.join(d, "data"))
one = numpy_helper.from_array(np.ones([8], np.float32), "one")
g = helper.make_graph([helper.make_node("Add", ["x", "one"], ["s"], name="add"),
                       helper.make_node("Sub", ["s", "one"], ["y"], name="sub")], "ill",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8])], [one])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(d, "model.onnx"))
x = (np.random.default_rng(1).standard_normal(8) * 1e-9).astype(np.float32)
y = ((x + np.float32(1)) - np.float32(1)).astype(np.float32)  # what an f32 implementation gives
open(os.path.join(d, "data", "input_0.pb"), "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
open(os.path.join(d, "data", "output_0.pb"), "wb").write(numpy_helper.from_array(y, "y").SerializeToString())
PY
expect 3 "$tmp/ill/model.onnx" "$tmp/ill/data"
expect 0 "$tmp/ill/model.onnx" "$tmp/ill/data" --rtol 1 --atol 1e-6

if [[ $failures -ne 0 ]]; then
  echo "$failures of $cases cases failed"
  exit 1
fi
echo "ok: $cases cases"
