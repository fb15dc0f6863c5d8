// Runs an ONNX model on onnxruntime-node (CPU, one thread, graph optimizations off so every node
// is evaluated as written, in its own dtype) and writes every graph output as raw little-endian
// bytes. Used by make_real_models.py to obtain the values of every node output of a model (the
// generator first adds each node output as a graph output): an f32 implementation independent of
// both torch and plumb, i.e. what a converter engineer dumps.
//
//   NODE_PATH=.../node_modules node ort_outputs.js INPUTS.json MODEL.onnx OUT_DIR [MODEL OUT_DIR ...]
//
// INPUTS.json: [{"name", "type" (ort type: float32, int64, bool, ...), "dims", "file"}]; each
// MODEL (variants of one model, e.g. with faults) runs on those inputs and writes
// OUT_DIR/outputs.json, the same form for its outputs, in the model's output order (one process
// for many models: node's start-up is most of the time of a small model).
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
  int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
};

// The feeds of an INPUTS.json list: [{"name", "type", "dims", "file"}].
function readFeeds(inputs) {
  const feeds = {};
  for (const inp of inputs) {
    const bytes = fs.readFileSync(inp.file);
    const Arr = ARRAYS[inp.type];
    if (!Arr) throw new Error(`${inp.name}: input type ${inp.type} not handled`);
    const data = new Arr(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    feeds[inp.name] = new ort.Tensor(inp.type, data, inp.dims);
  }
  return feeds;
}

// bench/gen_ort_batch.js runs its models with the same settings through these.
module.exports = {readFeeds, run};

if (require.main === module) {
  (async () => {
    const [inputsJson, ...jobs] = process.argv.slice(2);
    const feeds = readFeeds(JSON.parse(fs.readFileSync(inputsJson, 'utf8')));
    for (let j = 0; j + 1 < jobs.length; j += 2) {
      try {
        await run(jobs[j], jobs[j + 1], feeds);
      } catch (e) {  // e.g. a fault that makes the model invalid: the generator leaves it out
        fs.writeFileSync(path.join(jobs[j + 1], 'outputs.json'), JSON.stringify({error: e.message}));
      }
    }
  })().catch((e) => { console.error(e.message); process.exit(1); });
}

async function run(model, outDir, feeds) {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'disabled',
  });
  const results = await session.run(feeds);
  const manifest = [];
  session.outputNames.forEach((name, k) => {
    const t = results[name];
    if (!ARRAYS[t.type]) throw new Error(`${name}: output type ${t.type} not handled`);
    const file = path.join(outDir, `${k}.bin`);
    fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    manifest.push({name, type: t.type, dims: t.dims.map(Number), file});
  });
  fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(manifest));
}
