#!/usr/bin/env bash
# Sets up, builds and runs plumb's main job on the bundled example (examples/mlp_torch): a small
# PyTorch model exported with torch.onnx.export, checked against torch's own outputs and
# intermediate activations; then a mis-converted copy (Softmax axis changed), which plumb check
# must reject, naming the broken node.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
JOBS=${JOBS:-$(nproc)}
cmake --preset default >/dev/null
cmake --build --preset default -j "$JOBS" --target plumb
P=build/bin/plumb
EX=examples/mlp_torch

echo "== plumb convert $EX/model.onnx -o build/mlp.plumb"
$P convert $EX/model.onnx -o build/mlp.plumb
echo "== plumb verify build/mlp.plumb"
$P verify build/mlp.plumb
echo "== plumb print build/mlp.plumb (first lines)"
$P print build/mlp.plumb | cut -c1-160 | head -12
echo "== plumb check $EX/model.onnx --data $EX/data   (the converted model, against torch)"
$P check $EX/model.onnx --data $EX/data
echo "== plumb check $EX/model_wrong_axis.onnx --data $EX/data   (a mis-converted copy)"
set +e
$P check $EX/model_wrong_axis.onnx --data $EX/data
rc=$?
set -e
if [[ $rc -ne 1 ]]; then
  echo "demo: expected plumb check to report a mismatch (exit 1), got exit $rc" >&2
  exit 1
fi
echo "== as expected: the mis-converted model fails, and plumb names the node that broke it"
