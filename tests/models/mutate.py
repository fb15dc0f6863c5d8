#!/usr/bin/python3
"""Single-node faults injected into an ONNX model, for the real-model check tests
(tests/cli/check_real_*.sh) and their generator (make_real_models.py, which picks the faults of
each model and measures their effect with onnxruntime).

A fault is one line of tokens (the form of tests/models/<name>/faults.txt after its id and
expected exits):

    NODE attr NAME f|i|s VALUE    set a float, int or string attribute (epsilon, alpha, axis,
                                  mode)
    NODE op TYPE                  swap the op type (Add -> Sub, Relu -> Sigmoid, ...)
    NODE weight K SCALE           scale slice 0 of input K (an initializer) by SCALE: the first
                                  index along its first axis of size > 1 (a Conv's output
                                  channel, a Gemm weight's row)
    NODE pads shift               move one unit of padding from the start to the end of the first
                                  spatial axis (the output shape is kept)
    NODE dilation 2               dilation 2 on the first spatial axis, padding widened so the
                                  output shape is kept
    NODE const SCALE              scale a Constant node's value

    /usr/bin/python3 tests/models/mutate.py IN.onnx OUT.onnx NODE KIND ARGS...

Deterministic; the model's other nodes and initializers are kept byte for byte (a modified
initializer that other nodes also read is copied under a new name first)."""
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh
from onnx import helper


def _node(model, name):
    for n in model.graph.node:
        if n.name == name:
            return n
    raise ValueError("no node named '%s'" % name)


def _attr(node, name):
    for a in node.attribute:
        if a.name == name:
            return a
    return None


def _set_attr(node, name, value):
    a = _attr(node, name)
    if a is not None:
        node.attribute.remove(a)
    node.attribute.extend([helper.make_attribute(name, value)])


def slice_index(shape):
    """The slice a weight fault scales: index 0 along the first axis of size > 1."""
    for axis, d in enumerate(shape):
        if d > 1:
            return axis
    return 0


def _scaled_slice(arr, scale):
    out = arr.astype(np.float64)
    axis = slice_index(arr.shape)
    idx = [slice(None)] * arr.ndim
    if arr.ndim:
        idx[axis] = 0
    out[tuple(idx)] *= scale
    return out.astype(arr.dtype)


def _initializer(model, name):
    for t in model.graph.initializer:
        if t.name == name:
            return t
    return None


def _readers(model, name):
    return sum(1 for n in model.graph.node for i in n.input if i == name)


def _spatial_attrs(model, node):
    """(kernel, pads, dilations, strides) lists of a Conv / pool node, defaults filled in."""
    k = _attr(node, "kernel_shape")
    if k is not None:
        kernel = list(k.ints)
    else:  # a Conv's kernel comes from its weight
        w = _initializer(model, node.input[1])
        if w is None:
            raise ValueError("%s: kernel_shape unknown" % node.name)
        kernel = list(w.dims[2:])
    r = len(kernel)
    pads = list(_attr(node, "pads").ints) if _attr(node, "pads") is not None else [0] * (2 * r)
    dil = list(_attr(node, "dilations").ints) if _attr(node, "dilations") is not None else [1] * r
    return kernel, pads, dil


def apply(model, node_name, kind, args):
    """Applies one fault to `model` (an onnx.ModelProto, modified in place)."""
    node = _node(model, node_name)
    if kind == "attr":
        name, typ, value = args
        _set_attr(node, name, {"f": float, "i": int, "s": str.encode}[typ](value))
    elif kind == "op":
        node.op_type = args[0]
    elif kind == "weight":
        k, scale = int(args[0]), float(args[1])
        init = _initializer(model, node.input[k])
        if init is None:
            raise ValueError("%s: input %d is not an initializer" % (node_name, k))
        arr = _scaled_slice(nh.to_array(init), scale)
        if _readers(model, init.name) > 1:  # others keep the original
            new = nh.from_array(arr, name=init.name + "_fault")
            model.graph.initializer.append(new)
            node.input[k] = new.name
        else:
            init.CopyFrom(nh.from_array(arr, name=init.name))
    elif kind == "pads":
        kernel, pads, _ = _spatial_attrs(model, node)
        r = len(kernel)
        if pads[0] == 0:
            raise ValueError("%s: no start padding to move" % node_name)
        pads[0] -= 1
        pads[r] += 1
        _set_attr(node, "pads", pads)
    elif kind == "dilation":
        kernel, pads, dil = _spatial_attrs(model, node)
        r = len(kernel)
        extra = (int(args[0]) - dil[0]) * (kernel[0] - 1)
        if extra % 2 or extra <= 0:
            raise ValueError("%s: dilation change does not keep the shape" % node_name)
        dil[0] = int(args[0])
        pads[0] += extra // 2
        pads[r] += extra // 2
        _set_attr(node, "dilations", dil)
        _set_attr(node, "pads", pads)
    elif kind == "const":
        a = _attr(node, "value")
        if node.op_type != "Constant" or a is None:
            raise ValueError("%s: not a Constant with a tensor value" % node_name)
        arr = nh.to_array(a.t)
        _set_attr(node, "value", nh.from_array((arr.astype(np.float64) * float(args[0])).astype(arr.dtype),
                                              name=a.t.name))
    else:
        raise ValueError("unknown fault kind '%s'" % kind)
    return model


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    src, dst, node, kind = argv[1:5]
    model = onnx.load(src)
    apply(model, node, kind, argv[5:])
    onnx.save(model, dst)


if __name__ == "__main__":
    main(sys.argv)
