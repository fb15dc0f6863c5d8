#!/usr/bin/env bash
# The auto bound of `plumb check` against the real noise along the depth of a deep network
# (issue 12): torchvision resnet50 with random weights (seed 0) at a 64x64 input, exported with
# torch.onnx; every node output computed by an independent f32 implementation (onnxruntime-node,
# CPU, one thread, graph optimizations off); plumb check --no-isolate with all of them as expected
# values. Prints, per compared tensor in topological order, the factor bound / observed error
# (observed: |ORT - exact|, exact = plumb's precise f64 run) for the rms test and the element test,
# and the largest factor. The acceptance is a factor within 100 at every depth.
#
#   bench/check_bound_depth.sh PLUMB [MODEL=resnet50] [SIZE=64]
#
# Needs /usr/bin/python3 with torch, torchvision and onnx (Debian's), node and npm (onnxruntime-node
# is installed into $ORT_PREFIX, default /tmp/ort-peer, as bench/peer_ort.sh does).
set -euo pipefail
plumb=$1 model=${2:-resnet50} size=${3:-64}
prefix=${ORT_PREFIX:-/tmp/ort-peer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ! -d $prefix/node_modules/onnxruntime-node ]]; then
  mkdir -p "$prefix"
  (cd "$prefix" && npm install --no-audit --no-fund --ignore-scripts onnxruntime-node >/dev/null)
fi
/usr/bin/python3 - "$work" "$model" "$size" <<'PY'
import sys, torch, torchvision, onnx
from onnx import numpy_helper
work, name, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.manual_seed(0)
torch.set_num_threads(1)
net = getattr(torchvision.models, name)(weights=None).eval()
x = torch.randn(1, 3, size, size)
torch.onnx.export(net, x, f"{work}/model.onnx", opset_version=17, input_names=["x"], output_names=["logits"])
import os
os.makedirs(f"{work}/data")
open(f"{work}/data/input_0.pb", "wb").write(numpy_helper.from_array(x.numpy(), "x").SerializeToString())
m = onnx.load(f"{work}/model.onnx")  # every node output as a graph output, for onnxruntime
known = {o.name for o in m.graph.output}
for n in m.graph.node:
    for o in n.output:
        if o and o not in known:
            m.graph.output.append(onnx.helper.make_empty_tensor_value_info(o))
            known.add(o)
onnx.save(m, f"{work}/all_outputs.onnx")
PY
mkdir -p "$work/expected"
NODE_PATH=$prefix/node_modules node - "$work" <<'JS'
// Runs all_outputs.onnx on the input and writes each float result as a TensorProto named after it.
const fs = require('fs'), ort = require('onnxruntime-node');
const work = process.argv[2];
function varint(v) { const o = []; v = BigInt(v); do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; o.push(b); } while (v); return Buffer.from(o); }
function field(num, wire, body) { return Buffer.concat([varint((num << 3) | wire), wire === 2 ? Buffer.concat([varint(body.length), body]) : body]); }
function readInput(file) {  // the input TensorProto: dims (1), data_type (2), name (8), raw_data (9)
  const b = fs.readFileSync(file); let i = 0; const dims = []; let raw = null;
  const rv = () => { let v = 0n, s = 0n; for (;;) { const c = b[i++]; v |= BigInt(c & 0x7f) << s; s += 7n; if (c < 0x80) return v; } };
  while (i < b.length) {
    const key = Number(rv()), f = key >> 3, w = key & 7;
    if (w === 0) { const v = rv(); if (f === 1) dims.push(Number(v)); continue; }
    const len = Number(rv()), body = b.subarray(i, i + len); i += len;
    if (f === 1) { let j = 0; while (j < body.length) { let v = 0, s = 0; for (;;) { const c = body[j++]; v += (c & 0x7f) * 2 ** s; s += 7; if (c < 0x80) break; } dims.push(v); } }
    if (f === 9) raw = Buffer.from(body);
  }
  return new ort.Tensor('float32', new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4), dims);
}
(async () => {
  const s = await ort.InferenceSession.create(work + '/all_outputs.onnx', {intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'disabled'});
  const out = await s.run({x: readInput(work + '/data/input_0.pb')});
  let k = 0;
  for (const [name, t] of Object.entries(out)) {
    if (t.type !== 'float32') continue;
    const dims = Buffer.concat(t.dims.map(d => field(1, 0, varint(d))));
    const pb = Buffer.concat([dims, field(2, 0, varint(1)), field(8, 2, Buffer.from(name)), field(9, 2, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))]);
    fs.writeFileSync(`${work}/expected/t${k++}.pb`, pb);
  }
})();
JS
set +e
"$plumb" check "$work/model.onnx" --data "$work/data" --expected "$work/expected" --no-isolate \
  --report "$work/report.json" >"$work/report.txt"
rc=$?
set -e
echo "plumb check exit $rc ($(tail -n1 "$work/report.txt"))"
/usr/bin/python3 - "$work/report.json" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))
print("%5s  %-10s %-10s %-9s %-8s  %s" % ("depth", "rms x", "element x", "native x", "term", "tensor [op]"))
worst = 0
for k, t in enumerate(r["tensors"]):
    n = t["carried"].get("noise")
    if not n or t["carried"]["max_abs"] == 0:
        continue
    f = lambda q: 1 / q if q > 0 else math.inf  # bound / observed
    rms, el = f(n["aggregate_ratio"]), f(n["element_ratio"])
    worst = max(worst, rms)
    print("%5d  %-10.3g %-10.3g %-9.3g %-8s  %s [%s]" % (k, rms, el, n["native_ratio"], n["dominant"], t["name"], t["op_type"]))
print("largest bound / observed (rms test): %.3g%s" % (worst, "" if worst <= 100 else "  (over 100)"))
PY
