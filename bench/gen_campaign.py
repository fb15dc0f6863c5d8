#!/usr/bin/python3
"""Differential campaign over `plumb gen` models (issue 22): each model folder (the ONNX test
layout, output_0.pb being plumb ref's outputs) is checked with onnx.checker (full check), run on
onnxruntime-node (tests/models/ort_outputs.js: CPU, one thread, graph optimizations off) and
compared with ref's outputs. Classes:
  agree           every output within atol 1e-5 + rtol 1e-5 of ref's
  differ          ort ran but an output differs (shape, dtype or values): reduced with
                  `plumb reduce --predicate` to a small repro under OUT/repros/<model>
  ort-error       ort refused or failed the model (its message is kept)
  checker-error   onnx.checker rejected the model (a generator bug)
Prints one JSON object (the figures) and writes OUT/results.jsonl (one line per model, sorted).

  gen_campaign.py PLUMB GEN_DIR OUT ORT_NODE_MODULES [-j N]
"""
import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_JS = os.path.join(HERE, '..', 'tests', 'models', 'ort_outputs.js')
ORT_TYPES = {np.dtype('float32'): 'float32', np.dtype('float64'): 'float64', np.dtype('int64'): 'int64',
             np.dtype('int32'): 'int32', np.dtype('int8'): 'int8', np.dtype('uint8'): 'uint8',
             np.dtype('bool'): 'bool'}


def tensor(path):
    t = onnx.TensorProto()
    with open(path, 'rb') as f:
        t.ParseFromString(f.read())
    return nh.to_array(t)


def data_files(folder, kind):
    out, k = [], 0
    while os.path.exists(f'{folder}/test_data_set_0/{kind}_{k}.pb'):
        out.append(tensor(f'{folder}/test_data_set_0/{kind}_{k}.pb'))
        k += 1
    return out


def run_ort(folder, work, node_modules):
    model = onnx.load(folder + '/model.onnx')
    os.makedirs(work, exist_ok=True)
    feeds = []
    for k, (inp, value) in enumerate(zip(model.graph.input, data_files(folder, 'input'))):
        f = f'{work}/in{k}.bin'
        value.tofile(f)
        feeds.append({'name': inp.name, 'type': ORT_TYPES[value.dtype], 'dims': list(value.shape), 'file': f})
    with open(work + '/inputs.json', 'w') as f:
        json.dump(feeds, f)
    env = dict(os.environ, NODE_PATH=node_modules)
    r = subprocess.run(['node', ORT_JS, work + '/inputs.json', folder + '/model.onnx', work],
                       env=env, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return {'error': r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f'node exited {r.returncode}'}
    with open(work + '/outputs.json') as f:
        manifest = json.load(f)
    if isinstance(manifest, dict):
        return manifest
    return {'outputs': [np.fromfile(o['file'], dtype=o['type'] if o['type'] != 'bool' else 'bool')
                        .reshape(o['dims']) for o in manifest]}


def classify(plumb, folder, out, node_modules):
    name = os.path.basename(folder)
    row = {'model': name, 'ops': sorted({n.op_type for n in onnx.load(folder + '/model.onnx').graph.node})}
    try:
        onnx.checker.check_model(onnx.load(folder + '/model.onnx'), full_check=True)
        row['checker'] = True
    except Exception as e:  # noqa: BLE001 - any checker failure is a finding
        row.update(checker=False, cls='checker-error', message=str(e).splitlines()[0])
        return row
    ort = run_ort(folder, f'{out}/work/{name}', node_modules)
    if 'error' in ort:
        row.update(ort=False, cls='ort-error', message=ort['error'])
        return row
    row['ort'] = True
    want = data_files(folder, 'output')
    worst = 0.0
    for got, exp in zip(ort['outputs'], want):
        if got.shape != exp.shape or got.dtype != exp.dtype:
            row.update(cls='differ', message=f'ort {got.dtype}{list(got.shape)} vs ref {exp.dtype}{list(exp.shape)}')
            return row
        if got.dtype.kind == 'f':
            g, e = got.astype(np.float64), exp.astype(np.float64)
            excess = np.abs(g - e) - (1e-5 + 1e-5 * np.abs(e))
            worst = max(worst, float(np.max(excess, initial=-1.0)))
            if np.any(np.isnan(g) != np.isnan(e)):
                worst = float('inf')
        elif not np.array_equal(got, exp):
            worst = float('inf')
    if worst > 0:
        row.update(cls='differ', message=f'beyond atol/rtol 1e-5 by {worst:g}')
        repro = f'{out}/repros/{name}'
        pred = (f'/usr/bin/python3 {os.path.abspath(__file__)} --differs {{model}} {{data}} {node_modules}')
        r = subprocess.run([plumb, 'reduce', folder + '/model.onnx', '--data', folder + '/test_data_set_0',
                            '--predicate', pred, '-o', repro], capture_output=True, text=True)
        row['reduce'] = (r.stdout or r.stderr).strip().splitlines()[0] if (r.stdout or r.stderr).strip() else ''
        return row
    row['cls'] = 'agree'
    return row


def differs(model, data, node_modules):
    """Predicate for plumb reduce: exit 0 while ort's outputs still differ from the data's."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        folder = tmp + '/m'
        os.makedirs(folder + '/test_data_set_0')
        os.symlink(os.path.abspath(model), folder + '/model.onnx')
        for f in os.listdir(data):
            os.symlink(os.path.abspath(f'{data}/{f}'), f'{folder}/test_data_set_0/{f}')
        ort = run_ort(folder, tmp + '/work', node_modules)
        if 'error' in ort:
            return 1
        for got, exp in zip(ort['outputs'], data_files(folder, 'output')):
            if got.shape != exp.shape or not np.allclose(got, exp, atol=1e-5, rtol=1e-5, equal_nan=True):
                return 0
        return 1


def main(argv):
    if argv[:1] == ['--differs']:
        return differs(*argv[1:4])
    jobs = 2
    if '-j' in argv:
        i = argv.index('-j')
        jobs = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    plumb, gen_dir, out, node_modules = argv
    os.makedirs(out, exist_ok=True)
    folders = sorted(glob.glob(gen_dir + '/model_*'))
    with ThreadPoolExecutor(jobs) as pool:
        rows = list(pool.map(lambda f: classify(plumb, f, out, node_modules), folders))
    with open(out + '/results.jsonl', 'w') as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + '\n')
    n = len(rows)
    classes = {}
    for row in rows:
        classes[row['cls']] = classes.get(row['cls'], 0) + 1
    ops = sorted({op for row in rows for op in row['ops']})
    print(json.dumps({'models': n, 'checker_pass_pct': 100.0 * sum(r.get('checker', False) for r in rows) / max(n, 1),
                      'ort_run_pct': 100.0 * sum(r.get('ort', False) for r in rows) / max(n, 1),
                      'classes': classes, 'ops_covered': ops}, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
