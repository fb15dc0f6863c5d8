#!/usr/bin/python3
"""Differential campaign over `plumb gen` models (issue 22): each model folder (the ONNX test
layout, output_<k>.pb being plumb ref's outputs) is checked with onnx.checker (full check), run
on onnxruntime-node (bench/gen_ort_batch.js, 100 models per node process: CPU, one thread, graph
optimizations off) and compared with ref's outputs. Classes:
  agree           every output within atol 1e-5 + rtol 1e-5 of ref's
  differ          ort ran but an output differs (shape, dtype or values): reduced with
                  `plumb reduce --predicate` to a small repro under OUT/repros/<model>
  ort-error       ort refused or failed the model (its message is kept)
  checker-error   onnx.checker rejected the model (a generator bug)
A model the checker cannot know (gen's other-opset models past opset 17: IR above 8, or an op
libonnx 1.12 has no schema for, "No Op registered for X with domain_version of V >= 18") keeps
checker false and `beyond_checker` true; `plumb convert` (lowering and plumb's verifier) stands in
for the checker there (`plumb_verify`), and it still runs on onnxruntime and is classed as above.
An ort-error whose message says onnxruntime lacks the op or the opset is also marked
`ort_lacks` (the peer cannot judge it).
Prints one JSON object (the figures) and writes OUT/results.jsonl (one line per model, sorted).

  gen_campaign.py PLUMB GEN_DIR OUT ORT_NODE_MODULES [-j N]
"""
import glob
import json
import os
import re
import subprocess
import tempfile
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_BATCH_JS = os.path.join(HERE, 'gen_ort_batch.js')
CHUNK = 100  # models per node process
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


def prepare(folder, work):
    """The onnxruntime job of a model folder: its inputs written as raw files under `work`."""
    model = onnx.load(folder + '/model.onnx')
    os.makedirs(work, exist_ok=True)
    if os.path.exists(work + '/outputs.json'):
        os.remove(work + '/outputs.json')
    feeds = []
    for k, (inp, value) in enumerate(zip(model.graph.input, data_files(folder, 'input'))):
        f = f'{work}/in{k}.bin'
        value.tofile(f)
        feeds.append({'name': inp.name, 'type': ORT_TYPES[value.dtype], 'dims': list(value.shape), 'file': f})
    return {'model': os.path.abspath(folder + '/model.onnx'), 'out': work, 'inputs': feeds}


def run_ort_batch(jobs, node_modules):
    """Runs the jobs in one node process (bench/gen_ort_batch.js); a crash is every job's error."""
    if not jobs:
        return
    listing = jobs[0]['out'] + '/jobs.json'
    with open(listing, 'w') as f:
        json.dump(jobs, f)
    env = dict(os.environ, NODE_PATH=node_modules)
    r = subprocess.run(['node', ORT_BATCH_JS, listing], env=env, capture_output=True, text=True,
                       timeout=60 + 10 * len(jobs))
    if r.returncode != 0:
        message = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f'node exited {r.returncode}'
        for job in jobs:
            if not os.path.exists(job['out'] + '/outputs.json'):
                with open(job['out'] + '/outputs.json', 'w') as f:
                    json.dump({'error': message}, f)


def read_ort(work):
    with open(work + '/outputs.json') as f:
        manifest = json.load(f)
    if isinstance(manifest, dict):
        return manifest
    return {'outputs': [np.fromfile(o['file'], dtype=o['type'] if o['type'] != 'bool' else 'bool')
                        .reshape(o['dims']) for o in manifest]}


def run_ort(folder, work, node_modules):
    run_ort_batch([prepare(folder, work)], node_modules)
    return read_ort(work)


CHECKER_MAX_IR = 8  # Debian's libonnx 1.12
CHECKER_MAX_OPSET = 17
NO_SCHEMA = re.compile(r'No Op registered for (\w+) with domain_version of (\d+)')
ORT_LACKS = ('Could not find an implementation', 'Unsupported model IR version', 'opset', 'Opset')


def beyond_checker(model, message):
    """Whether the checker's refusal is only that the model is newer than libonnx 1.12."""
    if model.ir_version > CHECKER_MAX_IR and 'ir_version' in message:
        return True
    m = NO_SCHEMA.search(message)
    return bool(m) and int(m.group(2)) > CHECKER_MAX_OPSET


def plumb_verify(plumb, folder):
    """plumb's own check of a model the checker cannot know: lowered and verified (plumb convert)."""
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([plumb, 'convert', folder + '/model.onnx', '-o', tmp + '/m.plumb'],
                           capture_output=True, text=True)
    return r.returncode == 0, (r.stderr.strip().splitlines() or [''])[0]


def check(folder, plumb=None):
    """The row of a model before onnxruntime runs it: its ops and onnx.checker's verdict."""
    name = os.path.basename(folder)
    model = onnx.load(folder + '/model.onnx')
    row = {'model': name, 'ops': sorted({n.op_type for n in model.graph.node}), 'nodes': len(model.graph.node),
           'opset': max((o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')), default=0)}
    try:
        onnx.checker.check_model(model, full_check=True)
        row['checker'] = True
    except Exception as e:  # noqa: BLE001 - any checker failure is a finding
        message = str(e).splitlines()[0]
        row.update(checker=False, message=message)
        if plumb and beyond_checker(model, message):
            ok, why = plumb_verify(plumb, folder)
            row.update(beyond_checker=True, plumb_verify=ok)
            if not ok:
                row.update(cls='plumb-verify-error', message=why)
        else:
            row['cls'] = 'checker-error'
    return row


def classify(plumb, folder, row, out, node_modules):
    name = row['model']
    ort = read_ort(f'{out}/work/{name}')
    if 'error' in ort:
        row.update(ort=False, cls='ort-error', message=ort['error'])
        if any(s in ort['error'] for s in ORT_LACKS):
            row['ort_lacks'] = True
        return row
    row['ort'] = True
    want = data_files(folder, 'output')
    worst, diff = 0.0, 0.0
    for got, exp in zip(ort['outputs'], want):
        if got.shape != exp.shape or got.dtype != exp.dtype:
            row.update(cls='differ', message=f'ort {got.dtype}{list(got.shape)} vs ref {exp.dtype}{list(exp.shape)}')
            return row
        if got.dtype.kind == 'f':
            g, e = got.astype(np.float64), exp.astype(np.float64)
            with np.errstate(invalid='ignore'):
                excess = np.abs(g - e) - (1e-5 + 1e-5 * np.abs(e))
            worst = max(worst, float(np.max(excess, initial=-1.0)))
            diff = max(diff, float(np.nanmax(np.abs(g - e), initial=0.0)) if np.all(np.isfinite(e)) else diff)
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
    row.update(cls='agree', max_abs_diff=diff)
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
    jobs_n = 2
    if '-j' in argv:
        i = argv.index('-j')
        jobs_n = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    plumb, gen_dir, out, node_modules = argv
    os.makedirs(out, exist_ok=True)
    folders = sorted(glob.glob(gen_dir + '/model_*'))
    with ThreadPoolExecutor(jobs_n) as pool:  # plumb convert of the models past the checker runs here
        rows = list(pool.map(lambda f: check(f, plumb), folders))
    runnable = [(f, r) for f, r in zip(folders, rows) if r['checker'] or (r.get('beyond_checker') and r.get('plumb_verify'))]
    jobs = [prepare(f, f'{out}/work/{r["model"]}') for f, r in runnable]
    chunks = [jobs[k:k + CHUNK] for k in range(0, len(jobs), CHUNK)]
    with ThreadPoolExecutor(jobs_n) as pool:
        list(pool.map(lambda c: run_ort_batch(c, node_modules), chunks))
    with ThreadPoolExecutor(jobs_n) as pool:
        list(pool.map(lambda fr: classify(plumb, fr[0], fr[1], out, node_modules), runnable))
    with open(out + '/results.jsonl', 'w') as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + '\n')
    n = len(rows)
    classes = {}
    for row in rows:
        classes[row['cls']] = classes.get(row['cls'], 0) + 1
    ops = sorted({op for row in rows for op in row['ops']})
    agree = [r['max_abs_diff'] for r in rows if r['cls'] == 'agree']
    beyond = [r for r in rows if r.get('beyond_checker')]
    beyond_classes, beyond_ops = {}, {}
    for row in beyond:
        key = row['cls'] + (' (ort lacks it)' if row.get('ort_lacks') else '')
        beyond_classes[key] = beyond_classes.get(key, 0) + 1
        for op in row['ops']:
            beyond_ops.setdefault(op, {}).setdefault(key, 0)
            beyond_ops[op][key] += 1
    print(json.dumps({'models': n, 'nodes': sum(r['nodes'] for r in rows),
                      'agree_max_abs_diff': max(agree, default=0.0), 'checker_pass_pct': 100.0 * sum(r.get('checker', False) for r in rows) / max(n, 1),
                      'ort_run_pct': 100.0 * sum(r.get('ort', False) for r in rows) / max(n, 1),
                      'checker_and_ort_pct': 100.0 * sum(r.get('checker', False) and r.get('ort', False) for r in rows) / max(n, 1),
                      'beyond_checker': {'models': len(beyond), 'plumb_verify': sum(r.get('plumb_verify', False) for r in beyond),
                                         'classes': beyond_classes, 'by_op': {op: v for op, v in sorted(beyond_ops.items())
                                                                              if op not in ('Abs', 'Neg', 'Relu', 'Sigmoid', 'Tanh', 'Add', 'Sub', 'Mul', 'Max', 'Min', 'MatMul', 'Transpose', 'Reshape', 'Softmax', 'Cast')}},
                      'classes': classes, 'ops_covered': ops, 'ops_count': len(ops)}, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
