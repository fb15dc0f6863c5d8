#!/usr/bin/python3
"""An independent float64 numpy evaluation of the graphs `plumb gen` builds (tests/cli/gen.sh):
every op gen builds, written from the ONNX operator text (opsets 13 to 17), nothing from plumb
(the ops of gen_recipes_math/index/layout.cpp are in gen_oracle_ops.py).
For each model folder it runs onnx.checker (full check), evaluates the graph on the folder's
inputs and compares every output_<k>.pb (ref's values) with the evaluation. With --ops it also
checks that every op of the list appears in some model.

  gen_oracle.py [--ops OP,OP,...] FOLDER...
Exit 1 (with one line per problem) when a model fails the checker or an output differs by more
than 1e-4 + 1e-4 * |expected|.
"""
import itertools
import math
import sys

import numpy as np
import onnx
import gen_oracle_ops
import gen_oracle_signal
from onnx import helper
from onnx import numpy_helper as nh


def tensor(path):
    t = onnx.TensorProto()
    with open(path, 'rb') as f:
        t.ParseFromString(f.read())
    return nh.to_array(t)


def same_pads(auto_pad, size, k, s, d):
    out = -(-size // s)
    total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
    small = total // 2
    return (small, total - small) if auto_pad == 'SAME_UPPER' else (total - small, small)


def window_setup(x, a, ks):
    """Pads (begin, end) per spatial axis and the output sizes of a Conv or pool."""
    nd = len(ks)
    sp = x.shape[2:]
    strides = a.get('strides', [1] * nd)
    dil = a.get('dilations', [1] * nd)
    auto_pad = a.get('auto_pad', b'NOTSET').decode()
    pads = a.get('pads', [0] * 2 * nd)
    begin, end, out = [], [], []
    for i in range(nd):
        if auto_pad.startswith('SAME'):
            pb, pe = same_pads(auto_pad, sp[i], ks[i], strides[i], dil[i])
        else:
            pb, pe = pads[i], pads[i + nd]
        span = sp[i] + pb + pe - dil[i] * (ks[i] - 1) - 1
        o = (-(-span // strides[i]) if a.get('ceil_mode', 0) else span // strides[i]) + 1
        begin.append(pb)
        end.append(pe + max(0, (o - 1) * strides[i] + dil[i] * (ks[i] - 1) + 1 - (sp[i] + pb + pe)))
        out.append(o)
    return begin, end, out, strides, dil


def windows(xp, ks, out, strides, dil):
    """For each kernel offset, the strided view of the padded input it multiplies."""
    for off in itertools.product(*[range(k) for k in ks]):
        sl = tuple(slice(off[i] * dil[i], off[i] * dil[i] + strides[i] * (out[i] - 1) + 1, strides[i])
                   for i in range(len(ks)))
        yield off, xp[(slice(None), slice(None)) + sl]


def conv(x, w, b=None, **a):
    ks = list(w.shape[2:])
    begin, end, out, strides, dil = window_setup(x, a, ks)
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(begin, end)))
    group = a.get('group', 1)
    m, cpg = w.shape[0], w.shape[1]
    mpg = m // group
    y = np.zeros((x.shape[0], m) + tuple(out))
    for off, patch in windows(xp, ks, out, strides, dil):
        for g in range(group):
            ws = w[(slice(g * mpg, (g + 1) * mpg), slice(None)) + off]
            y[:, g * mpg:(g + 1) * mpg] += np.einsum('nc...,mc->nm...', patch[:, g * cpg:(g + 1) * cpg], ws)
    if b is not None:
        y += b.reshape((1, -1) + (1,) * len(ks))
    return y


def conv_transpose(x, w, b=None, **a):
    ks = list(w.shape[2:])
    nd = len(ks)
    s, d = a.get('strides', [1] * nd), a.get('dilations', [1] * nd)
    pads, op = a.get('pads', [0] * 2 * nd), a.get('output_padding', [0] * nd)
    group = a.get('group', 1)
    cpg, mpg = x.shape[1] // group, w.shape[1]
    full = [s[i] * (x.shape[2 + i] - 1) + op[i] + (ks[i] - 1) * d[i] + 1 for i in range(nd)]
    y = np.zeros((x.shape[0], mpg * group) + tuple(full))
    for off in itertools.product(*[range(k) for k in ks]):
        sl = tuple(slice(off[i] * d[i], off[i] * d[i] + s[i] * (x.shape[2 + i] - 1) + 1, s[i]) for i in range(nd))
        for g in range(group):
            ws = w[(slice(g * cpg, (g + 1) * cpg), slice(None)) + off]
            y[(slice(None), slice(g * mpg, (g + 1) * mpg)) + sl] += np.einsum(
                'nc...,cm->nm...', x[:, g * cpg:(g + 1) * cpg], ws)
    y = y[(slice(None), slice(None)) + tuple(slice(pads[i], full[i] - pads[i + nd]) for i in range(nd))]
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd)
    return y


def pool(x, op, **a):
    ks = a['kernel_shape']
    begin, end, out, strides, dil = window_setup(x, a, ks)
    pad = list(zip(begin, end))
    if op == 'MaxPool':
        xp = np.pad(x, [(0, 0), (0, 0)] + pad, constant_values=-np.inf)
        return np.max(np.stack([p for _, p in windows(xp, ks, out, strides, dil)]), axis=0)
    xp = np.pad(x, [(0, 0), (0, 0)] + pad)
    total = sum(p for _, p in windows(xp, ks, out, strides, dil))
    if a.get('count_include_pad', 0):
        return total / np.prod(ks)
    ones = np.pad(np.ones_like(x), [(0, 0), (0, 0)] + pad)
    return total / sum(p for _, p in windows(ones, ks, out, strides, dil))


def axes_of(ins, a, k):
    if len(ins) > k and ins[k] is not None:
        return [int(v) for v in ins[k]]
    return a.get('axes')


def reduce(op, x, axes, keep):
    axes = tuple(range(x.ndim)) if not axes else tuple(int(v) % x.ndim for v in axes)
    f = {'ReduceSum': lambda v: np.sum(v, axis=axes, keepdims=keep),
         'ReduceMean': lambda v: np.mean(v, axis=axes, keepdims=keep),
         'ReduceMax': lambda v: np.max(v, axis=axes, keepdims=keep),
         'ReduceMin': lambda v: np.min(v, axis=axes, keepdims=keep),
         'ReduceProd': lambda v: np.prod(v, axis=axes, keepdims=keep),
         'ReduceL1': lambda v: np.sum(np.abs(v), axis=axes, keepdims=keep),
         'ReduceL2': lambda v: np.sqrt(np.sum(v * v, axis=axes, keepdims=keep)),
         'ReduceSumSquare': lambda v: np.sum(v * v, axis=axes, keepdims=keep),
         'ReduceLogSumExp': lambda v: np.log(np.sum(np.exp(v), axis=axes, keepdims=keep)),
         'ReduceLogSum': lambda v: np.log(np.sum(v, axis=axes, keepdims=keep))}
    return f[op](x)


def softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def to_bfloat16(x):
    u = np.atleast_1d(x.astype(np.float32)).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return u.view(np.float32).astype(np.float64).reshape(np.shape(x))


def cast(x, to):
    if to == onnx.TensorProto.FLOAT16:
        return x.astype(np.float16).astype(np.float64)
    if to == onnx.TensorProto.BFLOAT16:
        return to_bfloat16(x)
    if to not in (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE):
        return x.astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[to])  # float to int truncates towards zero
    return x.astype(np.float64)  # double and float: the oracle computes in float64 throughout


def run_graph(graph, env, values):
    """A subgraph's outputs: its inputs bound to `values`, names of the outer scope `env` visible."""
    scope = dict(env)
    scope.update(zip([i.name for i in graph.input], values))
    for n in graph.node:
        scope.update(zip(n.output, evaluate(n, [scope[x] if x else None for x in n.input], scope)))
    return [scope[o.name] for o in graph.output]


def evaluate(node, ins, env=None):
    a = {at.name: helper.get_attribute_value(at) for at in node.attribute}
    op = node.op_type
    x = ins[0] if ins else None
    unary = {'Abs': np.abs, 'Neg': np.negative, 'Relu': lambda v: np.maximum(v, 0), 'Tanh': np.tanh,
             'Sigmoid': lambda v: 1 / (1 + np.exp(-v))}
    unary.update({'Sqrt': np.sqrt, 'Erf': np.vectorize(math.erf, otypes=[np.float64])})
    binary = {'Div': np.divide, 'Pow': np.power, 'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Max': np.maximum, 'Min': np.minimum,
              'Equal': np.equal, 'Greater': np.greater, 'GreaterOrEqual': np.greater_equal, 'Less': np.less,
              'LessOrEqual': np.less_equal, 'MatMul': np.matmul}
    if op in unary:
        return [unary[op](x)]
    if op in binary:
        return [binary[op](x, ins[1])]
    if op == 'Clip':
        lo = ins[1] if len(ins) > 1 and ins[1] is not None else -np.inf
        hi = ins[2] if len(ins) > 2 and ins[2] is not None else np.inf
        return [np.clip(x, lo, hi)]
    if op == 'Pad':
        r = x.ndim
        p = [int(v) for v in ins[1]]
        mode = a.get('mode', b'constant').decode()
        # negative pads crop: pad the positive part, then slice the negative part away
        y = np.pad(x, [(max(p[i], 0), max(p[i + r], 0)) for i in range(r)],
                   **({'mode': 'constant', 'constant_values': ins[2] if len(ins) > 2 else 0.0}
                      if mode == 'constant' else {'mode': mode}))
        return [y[tuple(slice(-min(p[i], 0), y.shape[i] + min(p[i + r], 0)) for i in range(r))]]
    if op == 'Gemm':
        aa = x.T if a.get('transA', 0) else x
        bb = ins[1].T if a.get('transB', 0) else ins[1]
        y = a.get('alpha', 1.0) * (aa @ bb)
        return [y + a.get('beta', 1.0) * ins[2] if len(ins) > 2 else y]
    if op == 'Conv':
        return [conv(*ins, **a)]
    if op == 'ConvTranspose':
        return [conv_transpose(*ins, **a)]
    signal = gen_oracle_signal.evaluate_signal(node, ins, a, conv, run_graph, env)
    if signal is not None:
        return signal
    if op in ('MaxPool', 'AveragePool'):
        return [pool(x, op, **a)]
    if op == 'GlobalAveragePool':
        return [np.mean(x, axis=tuple(range(2, x.ndim)), keepdims=True)]
    if op == 'GlobalMaxPool':
        return [np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True)]
    if op == 'BatchNormalization':
        shape = (1, -1) + (1,) * (x.ndim - 2)
        scale, bias, mean, var = (v.reshape(shape) for v in ins[1:5])
        return [(x - mean) / np.sqrt(var + a.get('epsilon', 1e-5)) * scale + bias]
    if op == 'LayerNormalization':
        axes = tuple(range(a.get('axis', -1) % x.ndim, x.ndim))
        mean = np.mean(x, axis=axes, keepdims=True)
        var = np.mean((x - mean) ** 2, axis=axes, keepdims=True)
        y = (x - mean) / np.sqrt(var + a.get('epsilon', 1e-5)) * ins[1]
        return [y + ins[2] if len(ins) > 2 else y]
    if op.startswith('Reduce'):
        return [reduce(op, x, axes_of(ins, a, 1), bool(a.get('keepdims', 1)))]
    if op == 'Softmax':
        return [softmax(x, a.get('axis', -1))]
    if op == 'LogSoftmax':
        return [np.log(softmax(x, a.get('axis', -1)))]
    if op == 'Reshape':
        shape = [x.shape[i] if d == 0 else int(d) for i, d in enumerate(ins[1])]
        return [x.reshape(shape)]
    if op == 'Shape':
        return [np.array(x.shape, dtype=np.int64)]
    if op == 'Expand':
        return [np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(int(d) for d in ins[1])))]
    if op == 'Transpose':
        return [np.transpose(x, a.get('perm'))]
    if op == 'Flatten':
        axis = a.get('axis', 1)
        axis += x.ndim if axis < 0 else 0
        return [x.reshape(int(np.prod(x.shape[:axis])), -1)]
    if op == 'Squeeze':
        axes = axes_of(ins, a, 1)
        return [np.squeeze(x) if axes is None else np.squeeze(x, axis=tuple(int(v) % x.ndim for v in axes))]
    if op == 'Unsqueeze':
        axes = axes_of(ins, a, 1)
        r = x.ndim + len(axes)
        for ax in sorted(int(v) % r for v in axes):
            x = np.expand_dims(x, ax)
        return [x]
    if op == 'Concat':
        return [np.concatenate(ins, axis=a['axis'])]
    if op == 'Split':
        axis = a.get('axis', 0) % x.ndim
        sizes = list(ins[1]) if len(ins) > 1 else [x.shape[axis] // len(node.output)] * len(node.output)
        return np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    if op == 'Slice':
        starts, ends = ins[1], ins[2]
        axes = ins[3] if len(ins) > 3 and ins[3] is not None else range(len(starts))
        steps = ins[4] if len(ins) > 4 else [1] * len(starts)
        index = [slice(None)] * x.ndim
        for s, e, ax, st in zip(starts, ends, axes, steps):
            index[int(ax) % x.ndim] = slice(int(s), int(e), int(st))
        return [x[tuple(index)]]
    if op == 'Gather':
        return [np.take(x, ins[1], axis=a.get('axis', 0))]
    if op == 'Where':
        return [np.where(*ins)]
    if op == 'Cast':
        return [cast(x, a['to'])]
    more = gen_oracle_ops.evaluate_more(node, ins, windows, window_setup, env, run_graph)
    if more is None:
        raise KeyError(op)
    return more


def check(folder):
    m = onnx.load(folder + '/model.onnx')
    onnx.checker.check_model(m, full_check=True)
    env = {i.name: nh.to_array(i).astype(np.float64) if i.data_type == onnx.TensorProto.FLOAT else nh.to_array(i)
           for i in m.graph.initializer}
    # The model's opset, for ops whose defaults changed with it (RoiAlign's half-pixel shift at 16).
    env['__opset__'] = max(o.version for o in m.opset_import if o.domain in ('', 'ai.onnx'))
    for k, i in enumerate(m.graph.input):
        env[i.name] = tensor(f'{folder}/test_data_set_0/input_{k}.pb').astype(np.float64)
    for n in m.graph.node:
        outs = evaluate(n, [env[x] if x else None for x in n.input], env)
        env.update(zip(n.output, outs))
    problems = []
    for k, o in enumerate(m.graph.output):
        got = tensor(f'{folder}/test_data_set_0/output_{k}.pb').astype(np.float64)
        want = env[o.name]
        if got.shape != want.shape:
            problems.append(f'{folder}: output {o.name}: shape {list(got.shape)}, oracle {list(want.shape)}')
            continue
        excess = np.abs(got - want) - (1e-4 + 1e-4 * np.abs(want))
        if np.any(excess > 0):
            problems.append(f'{folder}: output {o.name} differs from the oracle by {float(np.max(np.abs(got - want))):g}')
    return {n.op_type for n in m.graph.node}, problems


def main(argv):
    np.seterr(all="ignore")  # NaN and inf are built on purpose (IsNaN of Sqrt, IsInf of Reciprocal)
    wanted = []
    if argv[:1] == ['--ops']:
        wanted, argv = argv[1].split(','), argv[2:]
    seen, bad = set(), 0
    for folder in argv:
        try:
            ops, problems = check(folder)
        except Exception as e:  # noqa: BLE001 - a checker error or an op the oracle lacks is a failure
            ops, problems = set(), [f'{folder}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ""}']
        seen |= ops
        for p in problems:
            print(p)
        bad += len(problems)
    missing = [op for op in wanted if op not in seen]
    if missing:
        print('ops no model holds: ' + ','.join(missing))
    return 1 if bad or missing else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
