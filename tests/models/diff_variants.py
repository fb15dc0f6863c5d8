#!/usr/bin/python3
"""The model pairs of tests/cli/diff_models.sh (plumb diff, issue 24), made at test time from the
committed exports so that no variant is committed:

    /usr/bin/python3 tests/models/diff_variants.py SRC_ROOT OUT_DIR

From tests/models/resnet_small/model.onnx (torch, opset 17), one change each (mutate.py's faults):
  pads.onnx      /layer4/layer4.0/conv1/Conv: one unit of padding moved (pads [1,1,1,1] -> [0,1,2,1])
  weight.onnx    /layer4/layer4.0/conv2/Conv: slice 0 of its weight scaled by 1.05
  op.onnx        /relu/Relu swapped for Sigmoid
  f16.onnx       every float initializer rounded to f16 (and stored as f32 again)
  unfolded.onnx  /conv1/Conv split into a Conv and a BatchNormalization (random statistics) that
                 compute the same in exact arithmetic: the original is this model with the
                 BatchNormalization folded into the Conv by hand
From tests/models/cnn (make.py's torch module):
  cnn_opset9.onnx  the same module exported again by torch at opset 9 (the committed one: 13;
                   other weight names, Pad with attributes)
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


def reexport_cnn(cnn_dir, path, opset):
    import torch

    spec = importlib.util.spec_from_file_location("cnn_make", os.path.join(cnn_dir, "make.py"))
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    model, x = make.build()
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["logits"], opset_version=opset)


def main(root, out):
    os.makedirs(out, exist_ok=True)
    src = os.path.join(root, "tests", "models", "resnet_small", "model.onnx")
    faults = {
        "pads": ("/layer4/layer4.0/conv1/Conv", "pads", ["shift"]),
        "weight": ("/layer4/layer4.0/conv2/Conv", "weight", ["1", "1.05"]),
        "op": ("/relu/Relu", "op", ["Sigmoid"]),
    }
    for name, (node, kind, args) in faults.items():
        onnx.save(mutate.apply(_load(src), node, kind, args), os.path.join(out, name + ".onnx"))
    onnx.save(rounded_to_f16(_load(src)), os.path.join(out, "f16.onnx"))
    onnx.save(unfold_batchnorm(_load(src), "/conv1/Conv"), os.path.join(out, "unfolded.onnx"))
    reexport_cnn(os.path.join(root, "tests", "models", "cnn"), os.path.join(out, "cnn_opset9.onnx"), 9)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
