// Runs an ONNX model on onnxruntime-node with every node output made a graph output, and writes
// them in the expected-folder layout of `plumb check` (docs/check.md, "Is onnxruntime right on my
// model?"), so that which runtime is right is one command pair:
//
//   NODE_PATH=/tmp/ort/node_modules node tools/ort_dump.mjs MODEL.onnx DATA_DIR OUT_DIR [--optimize]
//   plumb check MODEL.onnx --data DATA_DIR --expected OUT_DIR
//
// DATA_DIR holds the inputs as input_<k>.pb (TensorProto) or input_<k>.npy, in graph input order.
// OUT_DIR gets output_<k>.pb per graph output and t<k>.pb per other node output (TensorProtos named
// after their ONNX tensors); values onnxruntime-node cannot return (sequences, maps, strings) are
// left out and listed. onnxruntime runs on the CPU, one thread, graph optimizations off unless
// --optimize (fused nodes then have no output of their own). onnxruntime-node comes from npm
// (`npm install --prefix /tmp/ort onnxruntime-node`); it is a peer to compare with, never a
// dependency of plumb. The protobuf reading and writing below is the little this needs: the
// model's graph (nodes' outputs, inputs, outputs, initializers) and TensorProto.
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';

const require = createRequire(import.meta.url);

// ---- protobuf wire format ---------------------------------------------------------------------

function readVarint(buf, pos) {
  let v = 0n, shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, pos];
    shift += 7n;
    if (shift > 63n) throw new Error('varint too long');
  }
}

// [{field, wire, value (BigInt for varints, Buffer for length-delimited), start, end}]
function fields(buf) {
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    let value;
    if (wire === 0) {
      [value, pos] = readVarint(buf, pos);
    } else if (wire === 1) {
      value = buf.subarray(pos, pos + 8); pos += 8;
    } else if (wire === 2) {
      let n;
      [n, pos] = readVarint(buf, pos);
      value = buf.subarray(pos, pos + Number(n)); pos += Number(n);
    } else if (wire === 5) {
      value = buf.subarray(pos, pos + 4); pos += 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
    if (pos > buf.length) throw new Error('truncated field');
    out.push({ field, wire, value, start, end: pos });
  }
  return out;
}

function varint(v) {
  const bytes = [];
  let x = BigInt(v);
  if (x < 0n) x += 1n << 64n;
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x) b |= 0x80;
    bytes.push(b);
  } while (x);
  return Buffer.from(bytes);
}
const key = (field, wire) => varint((field << 3) | wire);
const lenField = (field, bytes) => Buffer.concat([key(field, 2), varint(bytes.length), bytes]);
const strField = (field, s) => lenField(field, Buffer.from(s, 'utf8'));

// ---- TensorProto ------------------------------------------------------------------------------

// ONNX TensorProto.DataType -> onnxruntime-node type and typed array.
const TYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  4: ['uint16', Uint16Array], 5: ['int16', Int16Array], 6: ['int32', Int32Array],
  7: ['int64', BigInt64Array], 9: ['bool', Uint8Array], 10: ['float16', Uint16Array],
  11: ['float64', Float64Array], 12: ['uint32', Uint32Array], 13: ['uint64', BigUint64Array],
};
const TYPE_CODE = Object.fromEntries(Object.entries(TYPES).map(([code, [name]]) => [name, Number(code)]));

function typedFrom(bytes, Arr) {
  const copy = Buffer.from(bytes);  // aligned
  return new Arr(copy.buffer, copy.byteOffset, copy.byteLength / Arr.BYTES_PER_ELEMENT);
}

function readTensorProto(buf, file) {
  const dims = [];
  let type = 0, name = '', raw = null;
  const floats = [], doubles = [], ints = [], int64s = [];
  const packed = (v, wire, width, dst, read) => {
    if (wire === 2) for (let i = 0; i + width <= v.length; i += width) dst.push(read(v, i));
    else dst.push(v);
  };
  for (const f of fields(buf)) {
    if (f.field === 1) {  // dims (packed or not)
      if (f.wire === 2) { let p = 0; while (p < f.value.length) { let d; [d, p] = readVarint(f.value, p); dims.push(Number(d)); } }
      else dims.push(Number(f.value));
    } else if (f.field === 2) type = Number(f.value);
    else if (f.field === 8) name = f.value.toString('utf8');
    else if (f.field === 9) raw = f.value;
    else if (f.field === 4) packed(f.value, f.wire, 4, floats, (b, i) => b.readFloatLE(i));
    else if (f.field === 10) packed(f.value, f.wire, 8, doubles, (b, i) => b.readDoubleLE(i));
    else if (f.field === 5 || f.field === 7 || f.field === 11) {
      const dst = f.field === 5 ? ints : int64s;
      if (f.wire === 2) { let p = 0; while (p < f.value.length) { let d; [d, p] = readVarint(f.value, p); dst.push(d); } }
      else dst.push(f.value);
    } else if (f.field === 14) throw new Error(`${file}: external data is not supported`);
  }
  const t = TYPES[type];
  if (!t) throw new Error(`${file}: TensorProto data_type ${type} is not supported`);
  const [ortType, Arr] = t;
  let data;
  if (raw) data = typedFrom(raw, Arr);
  else if (type === 1) data = Float32Array.from(floats);
  else if (type === 11) data = Float64Array.from(doubles);
  else if (type === 7) data = BigInt64Array.from(int64s.map((v) => BigInt.asIntN(64, v)));
  else if (type === 13) data = BigUint64Array.from(int64s);
  else if (type === 12) data = Uint32Array.from(int64s.map(Number));
  else data = Arr.from(ints.map((v) => Number(BigInt.asIntN(32, v))));
  return { name, dims, ortType, data };
}

function writeTensorProto(file, name, tensor) {
  const code = TYPE_CODE[tensor.type];
  const d = tensor.data;
  const bytes = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  const parts = tensor.dims.map((n) => Buffer.concat([key(1, 0), varint(n)]));
  parts.push(Buffer.concat([key(2, 0), varint(code)]), strField(8, name), lenField(9, bytes));
  fs.writeFileSync(file, Buffer.concat(parts));
}

// ---- .npy (numpy.save of one C-order array) ---------------------------------------------------

const NPY = { '<f4': 'float32', '<f8': 'float64', '<i8': 'int64', '<i4': 'int32', '<i2': 'int16', '|i1': 'int8',
  '|u1': 'uint8', '|b1': 'bool', '<u2': 'uint16', '<u4': 'uint32', '<u8': 'uint64', '<f2': 'float16' };

function readNpy(buf, file) {
  if (buf.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.subarray(start, start + hlen).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header), shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) throw new Error(`${file}: unsupported .npy header`);
  const ortType = NPY[descr[1]];
  if (!ortType) throw new Error(`${file}: .npy dtype ${descr[1]} is not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const Arr = TYPES[TYPE_CODE[ortType]][1];
  return { dims, ortType, data: typedFrom(buf.subarray(start + hlen), Arr) };
}

// ---- the model --------------------------------------------------------------------------------

// The graph's real inputs (not initializers), its outputs, and every node output, in node order.
function describe(model) {
  const top = fields(model);
  const graphField = top.find((f) => f.field === 7);
  if (!graphField) throw new Error('no graph in the model');
  const graph = fields(graphField.value);
  const nameOf = (msg) => fields(msg).find((f) => f.field === 1)?.value.toString('utf8') ?? '';
  const initializers = new Set(graph.filter((f) => f.field === 5).map((f) => {
    return fields(f.value).find((g) => g.field === 8)?.value.toString('utf8') ?? '';
  }));
  const inputs = graph.filter((f) => f.field === 11).map((f) => nameOf(f.value)).filter((n) => !initializers.has(n));
  const outputs = graph.filter((f) => f.field === 12).map((f) => nameOf(f.value));
  const nodeOutputs = [];
  for (const f of graph.filter((g) => g.field === 1))
    for (const o of fields(f.value).filter((g) => g.field === 2)) nodeOutputs.push(o.value.toString('utf8'));
  return { top, graphField, graph, inputs, outputs, nodeOutputs };
}

// The model with `extra` appended to the graph's outputs (ValueInfoProtos with a name only: the
// runtime infers their types).
function withOutputs(model, d, extra) {
  const added = Buffer.concat(extra.map((n) => lenField(12, strField(1, n))));
  const graph = Buffer.concat([d.graphField.value, added]);
  const before = model.subarray(0, d.graphField.start), after = model.subarray(d.graphField.end);
  return Buffer.concat([before, lenField(7, graph), after]);
}

async function main() {
  const args = process.argv.slice(2);
  const optimize = args.includes('--optimize');
  const [modelPath, dataDir, outDir] = args.filter((a) => a !== '--optimize');
  if (!outDir) {
    console.error('usage: node tools/ort_dump.mjs MODEL.onnx DATA_DIR OUT_DIR [--optimize]');
    process.exit(2);
  }
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    console.error('ort_dump: onnxruntime-node not found: npm install --prefix DIR onnxruntime-node, then NODE_PATH=DIR/node_modules');
    process.exit(2);
  }
  const model = fs.readFileSync(modelPath);
  const d = describe(model);
  const feeds = {};
  d.inputs.forEach((name, k) => {
    const pb = path.join(dataDir, `input_${k}.pb`), npy = path.join(dataDir, `input_${k}.npy`);
    const t = fs.existsSync(npy) ? readNpy(fs.readFileSync(npy), npy)
      : fs.existsSync(pb) ? readTensorProto(fs.readFileSync(pb), pb) : null;
    if (!t) throw new Error(`${dataDir}: no input_${k}.pb or .npy for input '${name}'`);
    feeds[name] = new ort.Tensor(t.ortType, t.data, t.dims);
  });
  const outputs = new Set(d.outputs);
  const extra = [...new Set(d.nodeOutputs.filter((n) => n && !outputs.has(n)))];
  const session = await ort.InferenceSession.create(withOutputs(model, d, extra), {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: optimize ? 'all' : 'disabled',
  });
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  const left = [];
  let written = 0;
  session.outputNames.forEach((name) => {
    const t = results[name];
    const k = d.outputs.indexOf(name);
    const file = path.join(outDir, k >= 0 ? `output_${k}.pb` : `t${extra.indexOf(name)}.pb`);
    if (!t || !TYPE_CODE[t.type]) {
      left.push(name);
      return;
    }
    writeTensorProto(file, name, t);
    ++written;
  });
  console.log(`${outDir}: ${written} tensors (${d.outputs.length} outputs)` +
    (left.length ? `; left out (not tensors onnxruntime-node returns): ${left.join(', ')}` : ''));
}

main().catch((e) => { console.error(`ort_dump: ${e.message}`); process.exit(2); });
