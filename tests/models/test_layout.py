"""Shared by the tests/models/*/make.py generators: writes a model's inputs and torch's outputs
in the ONNX test layout (data/input_<k>.pb, data/output_<k>.pb, each TensorProto named after its
graph tensor) and checks the exported model."""
import os

import numpy as np
import onnx
import onnx.numpy_helper as nh


def write_case(out, model_path, inputs, outputs):
    """inputs, outputs: lists of (graph tensor name, numpy array), in graph order."""
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    for kind, pairs in (("input", inputs), ("output", outputs)):
        for k, (name, arr) in enumerate(pairs):
            # np.array, not np.ascontiguousarray: that makes a 0-d array 1-d, and a scalar
            # output (a loss) must keep its shape [].
            with open(os.path.join(out, "data", "%s_%d.pb" % (kind, k)), "wb") as f:
                f.write(nh.from_array(np.array(arr, order="C"), name=name).SerializeToString())
    m = onnx.load(model_path)
    onnx.checker.check_model(m)
    print(os.path.basename(out), sorted({n.op_type for n in m.graph.node}))
