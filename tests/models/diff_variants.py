#!/usr/bin/python3
"""The model pairs of tests/cli/diff_models.sh (plumb diff, issue 24), made at test time from the
committed exports so that no variant is committed:

    /usr/bin/python3 tests/models/diff_variants.py SRC_ROOT OUT_DIR [NAME...]

(with NAMEs, only those variants: unfolded encoder_opset16 ...)

From tests/models/resnet_small/model.onnx (torch, opset 17), one change each (mutate.py's faults):
  pads.onnx      /layer4/layer4.0/conv1/Conv: one unit of padding moved (pads [1,1,1,1] -> [0,1,2,1])
  weight.onnx    /layer4/layer4.0/conv2/Conv: slice 0 of its weight scaled by 1.05
  op.onnx        /relu/Relu swapped for Sigmoid
  f16.onnx       every float initializer rounded to f16 (and stored as f32 again)
  unfolded.onnx  /conv1/Conv split into a Conv and a BatchNormalization (random statistics) that
                 compute the same in exact arithmetic: the original is this model with the
                 BatchNormalization folded into the Conv by hand
and quantized as a quantizer does it (min/max of the weights, round to nearest even):
  int8.onnx      every Conv and Gemm weight int8, symmetric, one scale per output channel, the
                 initializers replaced by their dequantized values
  uint8.onnx     every Conv weight uint8 with a zero point, one scale per tensor, dequantized
  int4.onnx      every Conv weight int4, symmetric, per output channel, dequantized
  qdq.onnx       every Conv weight stored as int8 (per output channel) with a DequantizeLinear
  int8_off.onnx  int8.onnx with one weight of /layer4/layer4.0/conv2/Conv one step off (a real
                 change among quantized weights)
From tests/models/cnn (make.py's torch module):
  cnn_opset9.onnx   the same module exported again by torch at opset 9 (the committed one: 13;
                    other weight names, Pad with attributes)
  cnn_gemm_bn.onnx  /head/head.1/Gemm split into a Gemm and a BatchNormalization, as unfolded.onnx
  cnn_matmul.onnx   /head/head.1/Gemm as a MatMul with the transposed weight and an Add
From tests/models/encoder (a transformer encoder layer):
  encoder_opset16.onnx  the same module exported again at opset 16: each LayerNormalization
                        expanded into ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add
  encoder_gelu.onnx     the feed-forward's Erf arithmetic (Div, Erf, Add, Mul, Mul) as one Gelu
                        (opset 20)
  encoder_softmax.onnx  the attention's Softmax expanded into ReduceMax, Sub, Exp, ReduceSum, Div
From tests/models/mobilenet_v3_small:
  hardswish.onnx  every HardSwish expanded into HardSigmoid (alpha 1/6) and Mul, as torch exports
                  it before opset 14
Deterministic (fixed seeds)."""
import importlib.util
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh
from onnx import helper

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutate  # noqa: E402


def _load(path):
    return onnx.load(path)


def rounded_to_f16(model):
    for t in model.graph.initializer:
        if t.data_type == onnx.TensorProto.FLOAT:
            arr = nh.to_array(t)
            t.CopyFrom(nh.from_array(arr.astype(np.float16).astype(np.float32), name=t.name))
    return model


def unfold_batchnorm(model, conv_name):
    """conv -> conv' + BatchNormalization with BN(conv'(x)) = conv(x): W' = W / s, b' = (b - beta) / s
    + mean, s = gamma / sqrt(var + eps), per output channel. The BatchNormalization writes the
    Conv's old output tensor, so the rest of the graph is unchanged."""
    node = mutate._node(model, conv_name)
    w_init = mutate._initializer(model, node.input[1])
    b_init = mutate._initializer(model, node.input[2])
    w = nh.to_array(w_init).astype(np.float64)
    b = nh.to_array(b_init).astype(np.float64)
    c = w.shape[0]
    rng = np.random.default_rng(24)
    gamma = rng.uniform(0.5, 1.5, c)
    beta = rng.normal(0.0, 0.2, c)
    mean = rng.normal(0.0, 0.5, c)
    var = rng.uniform(0.25, 2.25, c)
    eps = 1e-5
    s = gamma / np.sqrt(var + eps)
    w_new = w / s.reshape((c,) + (1,) * (w.ndim - 1))
    b_new = (b - beta) / s + mean
    for k, init, arr in ((1, w_init, w_new), (2, b_init, b_new)):
        if mutate._readers(model, init.name) > 1:  # torch shares equal initializers: others keep theirs
            new = nh.from_array(arr.astype(np.float32), name=init.name + "_unfolded")
            model.graph.initializer.append(new)
            node.input[k] = new.name
        else:
            init.CopyFrom(nh.from_array(arr.astype(np.float32), name=init.name))
    out = node.output[0]
    pre = out + "_before_bn"
    node.output[0] = pre
    names = []
    for suffix, arr in (("scale", gamma), ("bias", beta), ("mean", mean), ("var", var)):
        name = conv_name + "/bn." + suffix
        model.graph.initializer.append(nh.from_array(arr.astype(np.float32), name=name))
        names.append(name)
    bn = helper.make_node("BatchNormalization", [pre] + names, [out], name=conv_name + "/bn", epsilon=eps)
    at = list(model.graph.node).index(node) + 1
    model.graph.node.insert(at, bn)
    return model


def _reexport(make_py, path, opset, build):
    import torch

    spec = importlib.util.spec_from_file_location("model_make", make_py)
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    model, args, inputs, outputs = build(make, torch)
    torch.onnx.export(model, args, path, input_names=inputs, output_names=outputs, opset_version=opset)


def reexport_cnn(cnn_dir, path, opset):
    def build(make, torch):
        model, x = make.build()
        return model, (x,), ["x"], ["logits"]

    _reexport(os.path.join(cnn_dir, "make.py"), path, opset, build)


def reexport_encoder(encoder_dir, path, opset):
    def build(make, torch):  # make.py's main, up to the export
        torch.manual_seed(17)
        model = make.Encoder().eval()
        x = torch.randn(make.BATCH, make.SEQ, make.WIDTH)
        pad = torch.zeros(make.BATCH, make.SEQ, dtype=torch.bool)
        pad[1, make.SEQ - 2:] = True
        return model, (x, pad), ["x", "pad"], ["y"]

    _reexport(os.path.join(encoder_dir, "make.py"), path, opset, build)


def quantized(w, bits, per_channel, symmetric):
    """(q, scale, zero_point) of w as a min/max quantizer makes them: symmetric, q in
    [-2^(b-1)+1, 2^(b-1)-1] and s = max|w| / (2^(b-1)-1); else q in [0, 2^b-1] and s the range of
    [min(w, 0), max(w, 0)] over 2^b-1 levels. Per channel: one (s, z) per slice of axis 0."""
    axes = tuple(range(1, w.ndim)) if per_channel else None
    w64 = w.astype(np.float64)
    if symmetric:
        qmax = 2 ** (bits - 1) - 1
        s = (np.abs(w64).max(axis=axes, keepdims=per_channel) / qmax).astype(np.float32)
        q = np.clip(np.round(w64 / s), -qmax, qmax)
        z = np.zeros_like(s)
    else:
        qmax = 2 ** bits - 1
        lo = np.minimum(w64.min(axis=axes, keepdims=per_channel), 0)
        hi = np.maximum(w64.max(axis=axes, keepdims=per_channel), 0)
        s = ((hi - lo) / qmax).astype(np.float32)
        z = np.round(-lo / s)
        q = np.clip(np.round(w64 / s) + z, 0, qmax)
    return q, s, z


def dequantized(w, bits, per_channel, symmetric):
    q, s, z = quantized(w, bits, per_channel, symmetric)
    return ((q - z) * s).astype(np.float32)  # DequantizeLinear's (q - z) * s, in f32


def quantize_weights(model, ops, bits, per_channel, symmetric):
    """The weight (input 1, an initializer) of every node of `ops`, dequantized in place."""
    for n in model.graph.node:
        t = mutate._initializer(model, n.input[1]) if n.op_type in ops and len(n.input) > 1 else None
        if t is not None and t.data_type == onnx.TensorProto.FLOAT:
            t.CopyFrom(nh.from_array(dequantized(nh.to_array(t), bits, per_channel, symmetric), name=t.name))
    return model


def one_step_off(model, node_name):
    """One element of the node's (quantized, per channel) weight moved one quantization step."""
    node = mutate._node(model, node_name)
    t = mutate._initializer(model, node.input[1])
    w = nh.to_array(t).copy()
    _, s, _ = quantized(w, 8, True, True)
    w[0].flat[0] += s.reshape(-1)[0]
    t.CopyFrom(nh.from_array(w.astype(np.float32), name=t.name))
    return model


def qdq_weights(model, ops=("Conv",)):
    """The weight (an initializer) of every node of `ops` as an int8 initializer (per slice of
    axis 0, symmetric) and a DequantizeLinear that computes the f32 weight the node reads."""
    nodes = list(model.graph.node)
    done = set()  # weights already quantized (torch shares equal initializers between nodes)
    for n in nodes:
        if n.op_type not in ops or len(n.input) < 2 or mutate._initializer(model, n.input[1]) is None:
            continue
        name = n.input[1]
        if name in done:
            n.input[1] = name + "_dequantized"
            continue
        done.add(name)
        q, s, _ = quantized(nh.to_array(mutate._initializer(model, name)), 8, True, True)
        model.graph.initializer.extend([
            nh.from_array(q.astype(np.int8), name=name + "_quantized"),
            nh.from_array(s.reshape(-1), name=name + "_scale"),
            nh.from_array(np.zeros(q.shape[0], np.int8), name=name + "_zero_point")])
        dq = helper.make_node("DequantizeLinear", [name + "_quantized", name + "_scale", name + "_zero_point"],
                              [name + "_dequantized"], name=n.name + "/DequantizeLinear", axis=0)
        n.input[1] = name + "_dequantized"
        model.graph.node.insert(list(model.graph.node).index(n), dq)
    return model


def gemm_as_matmul_add(model, gemm_name):
    """Y = X W^T + b (Gemm, transB 1) as MatMul(X, W^T as an initializer) and Add(b)."""
    g = mutate._node(model, gemm_name)
    w = nh.to_array(mutate._initializer(model, g.input[1]))
    wt = g.input[1] + "_transposed"
    model.graph.initializer.append(nh.from_array(np.ascontiguousarray(w.T), name=wt))
    base = gemm_name.rsplit("/", 1)[0]
    mm = helper.make_node("MatMul", [g.input[0], wt], [base + "/MatMul_output_0"], name=base + "/MatMul")
    add = helper.make_node("Add", [base + "/MatMul_output_0", g.input[2]], [g.output[0]], name=base + "/Add")
    at = list(model.graph.node).index(g)
    model.graph.node.remove(g)
    model.graph.node.insert(at, add)
    model.graph.node.insert(at, mm)
    return model


def set_opset(model, version):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = version
    return model


def gelu_contracted(model):
    """torch's exact GELU, x * (erf(x / sqrt 2) + 1) * 0.5, as one Gelu node (opset 20) writing the
    last Mul's tensor."""
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    reader = {i: n for n in g.node for i in n.input}
    erf = next(n for n in g.node if n.op_type == "Erf")
    div = producer[erf.input[0]]
    add = reader[erf.output[0]]
    mul = reader[add.output[0]]
    mul_half = reader[mul.output[0]]
    gelu = helper.make_node("Gelu", [div.input[0]], [mul_half.output[0]], name=erf.name.rsplit("/", 1)[0] + "/Gelu")
    g.node.insert(list(g.node).index(mul_half), gelu)
    for n in (div, erf, add, mul, mul_half):
        g.node.remove(n)
    return set_opset(model, 20)


def softmax_expanded(model):
    """The Softmax as exp(x - max x) / sum exp(x - max x) over its axis (opset 17 forms)."""
    g = model.graph
    sm = next(n for n in g.node if n.op_type == "Softmax")
    axis = [a.i for a in sm.attribute if a.name == "axis"] or [-1]
    base = sm.name.rsplit("/", 1)[0] + "/softmax"
    g.initializer.append(nh.from_array(np.array(axis, np.int64), name=base + "/axes"))
    x, y = sm.input[0], sm.output[0]
    nodes = [
        helper.make_node("ReduceMax", [x], [base + "/max"], name=base + "/ReduceMax", axes=axis, keepdims=1),
        helper.make_node("Sub", [x, base + "/max"], [base + "/shifted"], name=base + "/Sub"),
        helper.make_node("Exp", [base + "/shifted"], [base + "/exp"], name=base + "/Exp"),
        helper.make_node("ReduceSum", [base + "/exp", base + "/axes"], [base + "/sum"], name=base + "/ReduceSum",
                         keepdims=1),
        helper.make_node("Div", [base + "/exp", base + "/sum"], [y], name=base + "/Div"),
    ]
    at = list(g.node).index(sm)
    g.node.remove(sm)
    for k, n in enumerate(nodes):
        g.node.insert(at + k, n)
    return model


def hardswish_expanded(model):
    """HardSwish(x) = x * HardSigmoid(x; alpha 1/6, beta 1/2), as torch exports it before opset 14."""
    g = model.graph
    for hs in [n for n in g.node if n.op_type == "HardSwish"]:
        base = hs.name.rsplit("/", 1)[0]
        sig = helper.make_node("HardSigmoid", [hs.input[0]], [base + "/HardSigmoid_output_0"],
                               name=base + "/HardSigmoid", alpha=1.0 / 6, beta=0.5)
        mul = helper.make_node("Mul", [hs.input[0], base + "/HardSigmoid_output_0"], [hs.output[0]],
                               name=base + "/Mul")
        at = list(g.node).index(hs)
        g.node.remove(hs)
        g.node.insert(at, mul)
        g.node.insert(at, sig)
    return model


def main(root, out, only):
    os.makedirs(out, exist_ok=True)
    models = os.path.join(root, "tests", "models")
    src = os.path.join(models, "resnet_small", "model.onnx")
    cnn = os.path.join(models, "cnn", "model.onnx")
    encoder = os.path.join(models, "encoder", "model.onnx")
    mobilenet = os.path.join(models, "mobilenet_v3_small", "model.onnx")

    def saved(model):  # a variant made in memory, saved to its path
        return lambda path: onnx.save(model(), path)

    faults = {
        "pads": ("/layer4/layer4.0/conv1/Conv", "pads", ["shift"]),
        "weight": ("/layer4/layer4.0/conv2/Conv", "weight", ["1", "1.05"]),
        "op": ("/relu/Relu", "op", ["Sigmoid"]),
    }
    variants = {
        name: saved(lambda n=node, k=kind, a=args: mutate.apply(_load(src), n, k, a))
        for name, (node, kind, args) in faults.items()
    }
    variants.update({
        "f16": saved(lambda: rounded_to_f16(_load(src))),
        "unfolded": saved(lambda: unfold_batchnorm(_load(src), "/conv1/Conv")),
        "int8": saved(lambda: quantize_weights(_load(src), ("Conv", "Gemm"), 8, True, True)),
        "uint8": saved(lambda: quantize_weights(_load(src), ("Conv",), 8, False, False)),
        "int4": saved(lambda: quantize_weights(_load(src), ("Conv",), 4, True, True)),
        "qdq": saved(lambda: qdq_weights(_load(src))),
        "int8_off": saved(lambda: one_step_off(quantize_weights(_load(src), ("Conv", "Gemm"), 8, True, True),
                                               "/layer4/layer4.0/conv2/Conv")),
        "cnn_opset9": lambda path: reexport_cnn(os.path.join(models, "cnn"), path, 9),
        "cnn_gemm_bn": saved(lambda: unfold_batchnorm(_load(cnn), "/head/head.1/Gemm")),
        "cnn_matmul": saved(lambda: gemm_as_matmul_add(_load(cnn), "/head/head.1/Gemm")),
        "encoder_opset16": lambda path: reexport_encoder(os.path.join(models, "encoder"), path, 16),
        "encoder_gelu": saved(lambda: gelu_contracted(_load(encoder))),
        "encoder_softmax": saved(lambda: softmax_expanded(_load(encoder))),
        "hardswish": saved(lambda: hardswish_expanded(_load(mobilenet))),
    })
    for name in only or variants:
        if name not in variants:
            sys.exit("diff_variants.py: no variant '%s'" % name)
        variants[name](os.path.join(out, name + ".onnx"))

if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
