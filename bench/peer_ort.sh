#!/usr/bin/env bash
# Times ONNX Runtime (CPU, onnxruntime-node) on the models bench/models_bench.cpp times, with the
# same inputs, for the peer comparison: wall and CPU ms per run (medians of RUNS, default 10,
# after one warm-up run), the largest |output - expected| as a sanity check, and the process's
# peak RSS (one process for all models, so it only grows down the list).
#
#   bench/peer_ort.sh [BENCH_MODELS_DIR]
#
# BENCH_MODELS_DIR (default $PLUMB_BENCH_MODELS): the output folder of
# /work/shared/bench-models/make_models.py; absent, only tests/models/{cnn,encoder,lstm} run.
# onnxruntime-node is installed with npm into $ORT_PREFIX (default /tmp/ort-peer), never into
# the repository. Threads: ORT_THREADS (default 1, as plumb's ref runs on one thread).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bm=${1:-${PLUMB_BENCH_MODELS:-}}
prefix=${ORT_PREFIX:-/tmp/ort-peer}
if [[ ! -d $prefix/node_modules/onnxruntime-node ]]; then
  mkdir -p "$prefix"
  # --ignore-scripts: the install script fetches the CUDA provider from nuget; the CPU binding
  # ships in the npm package itself.
  (cd "$prefix" && npm install --no-audit --no-fund --ignore-scripts onnxruntime-node >/dev/null)
fi
models=()
for n in cnn encoder lstm; do models+=("$n=$src/tests/models/$n/model.onnx=$src/tests/models/$n/data"); done
if [[ -n $bm ]]; then
  for n in resnet18_224 mobilenet_v2_224 bert4_seq128; do
    [[ -f $bm/$n/model.onnx ]] && models+=("$n=$bm/$n/model.onnx=$bm/$n/test_data_set_0")
  done
fi
NODE_PATH=$prefix/node_modules exec node - "${models[@]}" <<'JS'
// Reads the ONNX test layout's TensorProto files (dims 1, data_type 2, name 8, raw_data 9) with a
// minimal protobuf reader: enough for the float and bool tensors these models use.
const fs = require('fs');
const ort = require('onnxruntime-node');
const RUNS = Number(process.env.RUNS || 10);
const THREADS = Number(process.env.ORT_THREADS || 1);
function varint(b, p) {
  let v = 0n, s = 0n;
  for (;;) { const c = b[p.i++]; v |= BigInt(c & 0x7f) << s; s += 7n; if (c < 0x80) return v; }
}
function readTensor(file) {
  const b = fs.readFileSync(file), p = {i: 0};
  const t = {dims: [], type: 0, name: '', raw: null};
  while (p.i < b.length) {
    const key = Number(varint(b, p)), field = key >> 3, wire = key & 7;
    if (wire === 0) { const v = varint(b, p); if (field === 1) t.dims.push(Number(v)); else if (field === 2) t.type = Number(v); continue; }
    if (wire !== 2) throw new Error(file + ': unexpected wire type ' + wire);
    const len = Number(varint(b, p)), body = b.subarray(p.i, p.i + len); p.i += len;
    if (field === 1) { const q = {i: 0}; while (q.i < body.length) t.dims.push(Number(varint(body, q))); }
    else if (field === 8) t.name = body.toString();
    else if (field === 9) t.raw = Buffer.from(body);
    else throw new Error(file + ': field ' + field + ' (only raw_data tensors are read)');
  }
  const n = t.dims.reduce((a, d) => a * d, 1);
  if (t.type === 1) return {name: t.name, tensor: new ort.Tensor('float32', new Float32Array(t.raw.buffer, t.raw.byteOffset, n), t.dims)};
  if (t.type === 9) return {name: t.name, tensor: new ort.Tensor('bool', Uint8Array.from(t.raw ? t.raw : new Uint8Array(n)), t.dims)};
  throw new Error(file + ': data_type ' + t.type + ' not read by this script');
}
function files(dir, kind) {
  const out = [];
  for (let k = 0; fs.existsSync(`${dir}/${kind}_${k}.pb`); ++k) out.push(readTensor(`${dir}/${kind}_${k}.pb`));
  return out;
}
(async () => {
  for (const spec of process.argv.slice(2)) {
    const [name, model, data] = spec.split('=');
    const s = await ort.InferenceSession.create(model, {intraOpNumThreads: THREADS, interOpNumThreads: 1,
                                                        graphOptimizationLevel: 'all'});
    const feeds = {};
    files(data, 'input').forEach((t, k) => { feeds[s.inputNames[k]] = t.tensor; });
    const want = files(data, 'output');
    let out = await s.run(feeds);  // warm-up
    // Wall and process CPU time per run (on a loaded machine CPU time is the steadier figure).
    const ms = [], cpu = [];
    for (let r = 0; r < RUNS; ++r) {
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      out = await s.run(feeds);
      const c = process.cpuUsage(c0);
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      cpu.push((c.user + c.system) / 1e3);
    }
    ms.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    let err = 0;
    want.forEach((w, k) => {
      const got = out[s.outputNames[k]].data;
      for (let i = 0; i < got.length; ++i) err = Math.max(err, Math.abs(got[i] - w.tensor.data[i]));
    });
    const rss = process.resourceUsage().maxRSS / 1024;
    console.log(`${name}\twall_ms_median=${ms[ms.length >> 1].toFixed(3)}\tcpu_ms_median=${cpu[cpu.length >> 1].toFixed(3)}\tmax_abs_err=${err.toExponential(2)}\tpeak_rss_MB=${rss.toFixed(0)}`);
  }
})().catch((e) => { console.error(e.message); process.exit(1); });
JS
