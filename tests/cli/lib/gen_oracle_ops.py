"""The second half of tests/cli/lib/gen_oracle.py's float64 numpy evaluation: the ops plumb gen's
recipes of hunt/gen_recipes_math.cpp, gen_recipes_index.cpp and gen_recipes_layout.cpp build,
each written from the ONNX operator text (opsets 13 to 17, defaults as the text gives them),
nothing from plumb. Resize uses the interpolation that ONNX's own backend test cases define
(onnx.backend.test.case.node.resize, shipped with libonnx).
"""
import itertools
import math

import numpy as np
from onnx import helper
from onnx import numpy_helper

ERF = np.vectorize(math.erf, otypes=[np.float64])
UNARY = {
    'Exp': np.exp, 'Log': np.log, 'Reciprocal': lambda v: 1 / v, 'Floor': np.floor, 'Ceil': np.ceil,
    'Round': np.round,  # half to even, as the text says
    'Sign': np.sign, 'Sin': np.sin, 'Cos': np.cos, 'Tan': np.tan, 'Atan': np.arctan, 'Asin': np.arcsin,
    'Acos': np.arccos, 'Atanh': np.arctanh, 'Sinh': np.sinh, 'Cosh': np.cosh, 'Asinh': np.arcsinh,
    'Acosh': np.arccosh, 'Softplus': lambda v: np.log(np.exp(v) + 1), 'Softsign': lambda v: v / (1 + np.abs(v)),
    'Identity': lambda v: v, 'Dropout': lambda v: v, 'IsNaN': np.isnan, 'Not': np.logical_not,
}
LOGICAL = {'And': np.logical_and, 'Or': np.logical_or, 'Xor': np.logical_xor}


def attrs(node):
    return {at.name: helper.get_attribute_value(at) for at in node.attribute}


def activation(op, x, a):
    if op == 'LeakyRelu':
        return np.where(x >= 0, x, a.get('alpha', 0.01) * x)
    if op == 'Elu':
        return np.where(x > 0, x, a.get('alpha', 1.0) * (np.exp(x) - 1))
    if op == 'Selu':
        alpha, gamma = a.get('alpha', 1.67326319217681884765625), a.get('gamma', 1.05070102214813232421875)
        return gamma * np.where(x > 0, x, alpha * (np.exp(x) - 1))
    if op == 'Celu':
        alpha = a.get('alpha', 1.0)
        return np.maximum(0, x) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))
    if op == 'HardSigmoid':
        return np.clip(a.get('alpha', 0.2) * x + a.get('beta', 0.5), 0, 1)
    if op == 'HardSwish':
        return x * np.clip(x / 6 + 0.5, 0, 1)
    if op == 'ThresholdedRelu':
        return np.where(x > a.get('alpha', 1.0), x, 0)
    if op == 'Shrink':
        lambd, bias = a.get('lambd', 0.5), a.get('bias', 0.0)
        return np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0))
    if op == 'Hardmax':
        axis = a.get('axis', -1) % x.ndim
        return (np.arange(x.shape[axis]).reshape([-1 if i == axis else 1 for i in range(x.ndim)]) ==
                np.expand_dims(np.argmax(x, axis=axis), axis)).astype(np.float64)
    return None


def per_axis(v, x, axis):
    return v if v.ndim == 0 else v.reshape([-1 if i == axis % x.ndim else 1 for i in range(x.ndim)])


def quantize(x, scale, zp, axis):
    dtype = zp.dtype if zp is not None else np.dtype(np.uint8)
    info = np.iinfo(dtype)
    z = per_axis(zp.astype(np.float64), x, axis) if zp is not None else 0.0
    return np.clip(np.rint(x / per_axis(scale, x, axis)) + z, info.min, info.max).astype(dtype)


def arg(op, x, a):
    axis = a.get('axis', 0) % x.ndim
    f = np.argmax if op == 'ArgMax' else np.argmin
    if a.get('select_last_index', 0):
        y = x.shape[axis] - 1 - f(np.flip(x, axis), axis=axis)
    else:
        y = f(x, axis=axis)
    return np.expand_dims(y, axis) if a.get('keepdims', 1) else y


def one_hot(idx, depth, values, axis):
    depth = int(np.asarray(depth).reshape(-1)[0])
    idx = np.where(idx < 0, idx + depth, idx)
    hot = idx[..., None] == np.arange(depth)
    y = np.where(hot, values[1], values[0])
    return np.moveaxis(y, -1, axis % y.ndim)


def top_k(x, k, a):
    axis = a.get('axis', -1) % x.ndim
    order = np.argsort(-x if a.get('largest', 1) else x, axis=axis, kind='stable')  # ties: lower index first
    idx = np.take(order, np.arange(int(k[0])), axis=axis)
    return [np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)]


def cum_sum(x, axis, a):
    axis = int(np.asarray(axis).reshape(-1)[0]) % x.ndim
    if a.get('reverse', 0):
        x = np.flip(x, axis)
    y = np.cumsum(x, axis=axis)
    if a.get('exclusive', 0):
        y = y - x
    return np.flip(y, axis) if a.get('reverse', 0) else y


def gather_nd(x, idx, batch):
    out = []
    for bi in itertools.product(*[range(d) for d in x.shape[:batch]]):
        xb, ib = x[bi], idx[bi]
        flat = ib.reshape(-1, ib.shape[-1])
        out.append(np.stack([xb[tuple(int(v) % xb.shape[j] for j, v in enumerate(t))] for t in flat])
                   .reshape(ib.shape[:-1] + xb.shape[ib.shape[-1]:]))
    return np.stack(out).reshape(x.shape[:batch] + out[0].shape)


def reverse_sequence(x, lens, a):
    batch, time = a.get('batch_axis', 1), a.get('time_axis', 0)
    y = x.copy()
    for i, n in enumerate(lens):
        src = [slice(None)] * x.ndim
        src[batch], src[time] = i, slice(0, int(n))
        dst = list(src)
        dst[time] = slice(int(n) - 1, None, -1) if n > 1 else slice(0, 1)
        y[tuple(src)] = x[tuple(dst)]
    return y


def scatter(op, x, idx, upd, a):
    y = x.copy()
    red = a.get('reduction', b'none').decode()

    def put(where, u):
        if red == 'add':
            y[where] += u
        elif red == 'mul':
            y[where] *= u
        else:
            y[where] = u
    if op == 'ScatterND':
        for t, u in zip(idx.reshape(-1, idx.shape[-1]), upd.reshape((-1,) + upd.shape[idx.ndim - 1:])):
            put(tuple(int(v) for v in t), u)
        return y
    axis = a.get('axis', 0) % x.ndim
    for pos in itertools.product(*[range(d) for d in idx.shape]):
        where = list(pos)
        where[axis] = int(idx[pos]) % x.shape[axis]
        put(tuple(where), upd[pos])
    return y


def window(op, size, a):
    n = int(size)
    big_n = n if a.get('periodic', 1) else n - 1
    k = np.arange(n) * 2 * np.pi / big_n
    if op == 'HannWindow':
        return 0.5 - 0.5 * np.cos(k)
    if op == 'HammingWindow':
        return 25 / 46 - 21 / 46 * np.cos(k)
    return 0.42 - 0.5 * np.cos(k) + 0.08 * np.cos(2 * k)


def depth_space(op, x, a):
    bs = a['blocksize']
    n, c, h, w = x.shape
    if op == 'SpaceToDepth':
        return x.reshape(n, c, h // bs, bs, w // bs, bs).transpose(0, 3, 5, 1, 2, 4).reshape(
            n, c * bs * bs, h // bs, w // bs)
    if a.get('mode', b'DCR') == b'DCR':
        t = x.reshape(n, bs, bs, c // bs ** 2, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // bs ** 2, bs, bs, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // bs ** 2, h * bs, w * bs)


def lrn(x, a):
    size, alpha, beta, bias = a['size'], a.get('alpha', 1e-4), a.get('beta', 0.75), a.get('bias', 1.0)
    c = x.shape[1]
    sq = np.zeros_like(x)
    for i in range(c):
        lo, hi = max(0, i - (size - 1) // 2), min(c - 1, i + -(-(size - 1) // 2))
        sq[:, i] = np.sum(x[:, lo:hi + 1] ** 2, axis=1)
    return x / (bias + alpha / size * sq) ** beta


def mvn(x, a):
    axes = tuple(a.get('axes', [0, 2, 3]))
    mean = np.mean(x, axis=axes, keepdims=True)
    std = np.sqrt(np.mean(x * x, axis=axes, keepdims=True) - mean ** 2)
    return (x - mean) / (std + 1e-9)


def lp_pool(x, a, windows_of, window_setup):
    p = a.get('p', 2)
    ks = a['kernel_shape']
    begin, end, out, strides, dil = window_setup(x, a, ks)
    xp = np.pad(np.abs(x) ** p, [(0, 0), (0, 0)] + list(zip(begin, end)))
    return sum(w for _, w in windows_of(xp, ks, out, strides, dil)) ** (1.0 / p)


def resize(x, ins, a):
    from onnx.backend.test.case.node import resize as ref
    mode = a.get('mode', b'nearest').decode()
    kw = {'coordinate_transformation_mode': a.get('coordinate_transformation_mode', b'half_pixel').decode()}
    if mode == 'nearest':
        nm = a.get('nearest_mode', b'round_prefer_floor').decode()
        coeffs = lambda r: ref.nearest_coeffs(r, mode=nm)  # noqa: E731
    elif mode == 'linear':
        coeffs = ref.linear_coeffs
    else:
        ca = a.get('cubic_coeff_a', -0.75)
        coeffs = lambda r: ref.cubic_coeffs(r, A=ca)  # noqa: E731
        kw['exclude_outside'] = bool(a.get('exclude_outside', 0))
    scales = ins[2] if len(ins) > 2 and ins[2] is not None else None
    sizes = ins[3] if len(ins) > 3 and ins[3] is not None else None
    if sizes is not None:
        return ref.interpolate_nd(x, coeffs, output_size=[int(s) for s in sizes], **kw)
    return ref.interpolate_nd(x, coeffs, scale_factors=[float(s) for s in scales], **kw)


def evaluate_more(node, ins, windows_of, window_setup, env=None, run_graph=None):
    """The outputs of `node` (a list), or None when the op is not one of this module's."""
    op, a = node.op_type, attrs(node)
    if op in ('RNN', 'LSTM', 'GRU'):
        return recurrent(op, ins, a)
    if op in ('If', 'Loop', 'Scan'):
        return control(node, ins, env, run_graph)
    if op == 'Constant':
        if 'value' in a:
            return [numpy_helper.to_array(a['value']).astype(np.float64)]
        return [np.array(a['value_float'] if 'value_float' in a else a['value_floats'], dtype=np.float64)]
    more = misc(node, ins, a)
    if more is not None:
        return more
    x = ins[0] if ins else None
    with np.errstate(all='ignore'):
        if op in UNARY:
            return [UNARY[op](x)]
        if op in LOGICAL:
            return [LOGICAL[op](x, ins[1])]
        y = activation(op, x, a)
        if y is not None:
            return [y]
        if op == 'PRelu':
            return [np.where(x >= 0, x, ins[1] * x)]
        if op == 'IsInf':
            return [(np.isposinf(x) & bool(a.get('detect_positive', 1))) |
                    (np.isneginf(x) & bool(a.get('detect_negative', 1)))]
        if op == 'Mod':
            return [np.fmod(x, ins[1]) if a.get('fmod', 0) else np.mod(x, ins[1])]
        if op == 'Sum':
            return [sum(ins)]
        if op == 'Mean':
            return [sum(ins) / len(ins)]
        if op == 'QuantizeLinear':
            return [quantize(x, ins[1], ins[2] if len(ins) > 2 else None, a.get('axis', 1))]
        if op == 'DequantizeLinear':
            zp = ins[2].astype(np.float64) if len(ins) > 2 else np.zeros_like(ins[1])
            axis = a.get('axis', 1)
            return [(x.astype(np.float64) - per_axis(zp, x, axis)) * per_axis(ins[1], x, axis)]
    if op in ('ArgMax', 'ArgMin'):
        return [arg(op, x, a).astype(np.int64)]
    if op == 'OneHot':
        return [one_hot(x, ins[1], ins[2], a.get('axis', -1))]
    if op == 'TopK':
        return top_k(x, ins[1], a)
    if op == 'CumSum':
        return [cum_sum(x, ins[1], a)]
    if op == 'Tile':
        return [np.tile(x, [int(r) for r in ins[1]])]
    if op == 'GatherElements':
        axis = a.get('axis', 0) % x.ndim
        return [np.take_along_axis(x, np.where(ins[1] < 0, ins[1] + x.shape[axis], ins[1]), axis=axis)]
    if op == 'GatherND':
        return [gather_nd(x, ins[1], a.get('batch_dims', 0))]
    if op == 'Trilu':
        k = int(ins[1]) if len(ins) > 1 else 0
        return [np.triu(x, k) if a.get('upper', 1) else np.tril(x, k)]
    if op == 'Compress':
        return [np.compress(ins[1], x, axis=a.get('axis'))]
    if op == 'ReverseSequence':
        return [reverse_sequence(x, ins[1], a)]
    if op in ('ScatterElements', 'ScatterND'):
        return [scatter(op, x, ins[1], ins[2], a)]
    if op == 'ConstantOfShape':
        fill = float(numpy_helper.to_array(a['value']).reshape(-1)[0]) if 'value' in a else 0.0
        return [np.full([int(d) for d in x], fill)]
    if op == 'Range':
        start, limit, delta = (np.asarray(v).reshape(()) for v in ins)
        n = max(int(math.ceil((limit - start) / delta)), 0)
        return [(start + np.arange(n) * delta).astype(np.asarray(start).dtype)]
    if op == 'EyeLike':
        return [np.eye(x.shape[0], x.shape[1], a.get('k', 0))]
    if op == 'Size':
        return [np.array(x.size, dtype=np.int64)]
    if op in ('HannWindow', 'HammingWindow', 'BlackmanWindow'):
        return [window(op, x, a)]
    if op in ('DepthToSpace', 'SpaceToDepth'):
        return [depth_space(op, x, a)]
    if op == 'Einsum':
        return [np.einsum(a['equation'].decode(), *ins)]
    if op == 'InstanceNormalization':
        axes = tuple(range(2, x.ndim))
        mean, var = np.mean(x, axis=axes, keepdims=True), np.var(x, axis=axes, keepdims=True)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return [(x - mean) / np.sqrt(var + a.get('epsilon', 1e-5)) * ins[1].reshape(shape) + ins[2].reshape(shape)]
    if op == 'LRN':
        return [lrn(x, a)]
    if op == 'LpNormalization':
        axis, p = a.get('axis', -1), a.get('p', 2)
        return [x / np.sum(np.abs(x) ** p, axis=axis, keepdims=True) ** (1.0 / p)]
    if op == 'MeanVarianceNormalization':
        return [mvn(x, a)]
    if op == 'GlobalLpPool':
        p = a.get('p', 2)
        return [np.sum(np.abs(x) ** p, axis=tuple(range(2, x.ndim)), keepdims=True) ** (1.0 / p)]
    if op == 'LpPool':
        return [lp_pool(x, a, windows_of, window_setup)]
    if op == 'Resize':
        return [resize(x, ins, a)]
    if op == 'Det':
        return [np.linalg.det(x)]
    return None


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def recurrent(op, ins, a):
    """RNN, LSTM, GRU as the text's equations write them (default activations, gates iofc / zrh,
    B = [Wb, Rb]); the reverse direction runs over time backwards and writes Y at each step's own
    time; layout 1 reads and writes batch-major tensors."""
    get = lambda k: ins[k] if len(ins) > k and ins[k] is not None else None  # noqa: E731
    x, w, r = ins[0], ins[1], ins[2]
    layout = a.get('layout', 0)
    if layout:
        x = x.transpose(1, 0, 2)
    seq, batch, _ = x.shape
    dirs, hidden = w.shape[0], a['hidden_size']
    g = w.shape[1] // hidden
    bias = get(3) if get(3) is not None else np.zeros((dirs, 2 * g * hidden))
    h0, c0 = get(5), get(6)
    if layout:
        h0 = h0.transpose(1, 0, 2) if h0 is not None else None
        c0 = c0.transpose(1, 0, 2) if c0 is not None else None
    y = np.zeros((seq, dirs, batch, hidden))
    y_h, y_c = np.zeros((dirs, batch, hidden)), np.zeros((dirs, batch, hidden))
    for d in range(dirs):
        wb, rb = bias[d, :g * hidden], bias[d, g * hidden:]
        h = h0[d] if h0 is not None else np.zeros((batch, hidden))
        c = c0[d] if c0 is not None else np.zeros((batch, hidden))
        reverse = a.get('direction', b'forward') == b'reverse' or d == 1
        for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
            xw = x[t] @ w[d].T + wb
            if op == 'RNN':
                h = np.tanh(xw + h @ r[d].T + rb)
            elif op == 'LSTM':
                gates = xw + h @ r[d].T + rb
                i, o, f, cc = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
                c = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
                h = sigmoid(o) * np.tanh(c)
            else:
                hr = h @ r[d].T
                z = sigmoid(xw[:, :hidden] + hr[:, :hidden] + rb[:hidden])
                rr = sigmoid(xw[:, hidden:2 * hidden] + hr[:, hidden:2 * hidden] + rb[hidden:2 * hidden])
                rh = r[d][2 * hidden:]
                if a.get('linear_before_reset', 0):
                    n = np.tanh(xw[:, 2 * hidden:] + rr * (h @ rh.T + rb[2 * hidden:]))
                else:
                    n = np.tanh(xw[:, 2 * hidden:] + (rr * h) @ rh.T + rb[2 * hidden:])
                h = (1 - z) * n + z * h
            y[t, d] = h
        y_h[d], y_c[d] = h, c
    if layout:
        return [y.transpose(2, 0, 1, 3), y_h.transpose(1, 0, 2), y_c.transpose(1, 0, 2)]
    return [y, y_h, y_c]


def control(node, ins, env, run_graph):
    """If, Loop, Scan: run_graph(graph, env, values) evaluates a subgraph whose inputs are bound to
    `values` over the outer scope `env`, giving its outputs."""
    op = node.op_type
    graphs = {at.name: at.g for at in node.attribute if at.type == at.GRAPH}
    a = attrs(node)
    if op == 'If':
        return run_graph(graphs['then_branch' if bool(ins[0]) else 'else_branch'], env, [])
    if op == 'Loop':
        trips = int(ins[0]) if ins[0] is not None else 1 << 30
        cond = bool(ins[1]) if len(ins) > 1 and ins[1] is not None else True
        carried, scans, i = list(ins[2:]), [], 0
        while i < trips and cond:
            outs = run_graph(graphs['body'], env, [np.array(i, np.int64), np.array(cond)] + carried)
            cond, carried = bool(outs[0]), outs[1:1 + len(carried)]
            scans.append(outs[1 + len(carried):])
            i += 1
        return carried + [np.stack([s[k] for s in scans]) for k in range(len(scans[0]) if scans else 0)]
    n_scan = a['num_scan_inputs']
    states, xs = list(ins[:len(ins) - n_scan]), ins[len(ins) - n_scan:]
    dirs = a.get('scan_input_directions', [0] * n_scan)
    ys = []
    for t in range(xs[0].shape[0]):
        step = [x[x.shape[0] - 1 - t] if dirs[k] else x[t] for k, x in enumerate(xs)]
        outs = run_graph(graphs['body'], env, states + step)
        states = outs[:len(states)]
        ys.append(outs[len(states):])
    return states + [np.stack([y[k] for y in ys]) for k in range(len(ys[0]))]


def nll(x, target, weight, a):
    """NegativeLogLikelihoodLoss: -x[n, t[n], d...] * w[t], ignored targets contributing 0; mean
    divides by the weights of the targets not ignored."""
    ignore = a.get('ignore_index')
    t = np.where(target == ignore, 0, target) if ignore is not None else target
    picked = np.take_along_axis(x, np.expand_dims(t, 1), axis=1).squeeze(1)
    w = weight[t] if weight is not None else np.ones_like(picked)
    if ignore is not None:
        w = np.where(target == ignore, 0, w)
    loss = -picked * w
    red = a.get('reduction', b'mean').decode()
    if red == 'none':
        return loss
    return np.sum(loss) if red == 'sum' else np.sum(loss) / np.sum(w)


def misc(node, ins, a):
    op = node.op_type
    get = lambda k: ins[k] if len(ins) > k and ins[k] is not None else None  # noqa: E731
    if op == 'BitShift':
        return [np.left_shift(ins[0], ins[1]) if a['direction'] == b'LEFT' else np.right_shift(ins[0], ins[1])]
    if op == 'MatMulInteger':
        az = get(2).astype(np.int64) if get(2) is not None else 0
        bz = get(3).astype(np.int64) if get(3) is not None else 0
        return [((ins[0].astype(np.int64) - az) @ (ins[1].astype(np.int64) - bz)).astype(np.int32)]
    if op == 'QLinearMatMul':
        a_, asc, az, b_, bsc, bz, ysc, yz = ins
        acc = (a_.astype(np.int64) - int(az)) @ (b_.astype(np.int64) - int(bz))
        return [np.clip(np.rint(acc * (asc * bsc / ysc)) + int(yz), 0, 255).astype(np.uint8)]
    if op == 'NegativeLogLikelihoodLoss':
        return [nll(ins[0], ins[1], get(2), a)]
    if op == 'SoftmaxCrossEntropyLoss':
        x = ins[0]
        log_prob = x - np.max(x, axis=1, keepdims=True)
        log_prob = log_prob - np.log(np.sum(np.exp(log_prob), axis=1, keepdims=True))
        return [nll(log_prob, ins[1], get(2), a), log_prob]
    if op == 'SplitToSequence':
        x, axis = ins[0], a.get('axis', 0) % ins[0].ndim
        if get(1) is not None:
            return [list(np.split(x, np.cumsum(ins[1])[:-1], axis=axis))]
        parts = np.split(x, x.shape[axis], axis=axis)
        return [parts if a.get('keepdims', 1) else [np.squeeze(p, axis) for p in parts]]
    if op == 'SequenceConstruct':
        return [list(ins)]
    if op == 'SequenceEmpty':
        return [[]]
    if op == 'SequenceInsert':
        seq = list(ins[0])
        pos = int(get(2)) if get(2) is not None else len(seq)
        pos += len(seq) if pos < 0 else 0  # negative positions count from the back
        seq.insert(pos, ins[1])
        return [seq]
    if op == 'SequenceErase':
        seq = list(ins[0])
        del seq[int(get(1)) if get(1) is not None else -1]
        return [seq]
    if op == 'SequenceAt':
        return [ins[0][int(ins[1])]]
    if op == 'SequenceLength':
        return [np.array(len(ins[0]), dtype=np.int64)]
    if op == 'ConcatFromSequence':
        fn = np.stack if a.get('new_axis', 0) else np.concatenate
        return [fn(ins[0], axis=a['axis'])]
    if op == 'Optional':
        return [('optional', ins[0])]
    if op == 'OptionalHasElement':
        return [np.array(ins[0][1] is not None)]
    if op == 'OptionalGetElement':
        return [ins[0][1]]
    if op == 'CastLike':
        return [ins[0].astype(ins[1].dtype).astype(np.float64)]
    return None
