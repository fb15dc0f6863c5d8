#!/usr/bin/python3
"""Makes the undefined-result test of plumb check (tests/cli/check_undefined.sh): ReduceMean over
axis 1 of a [2, 0] tensor (what torch's EmbeddingBag mean does for empty bags), whose result ONNX
leaves undefined (onnx/onnx#5568; spec/onnx-rulings.md R11), with the NaN outputs torch returns
as the expected values.

    /usr/bin/python3 tests/models/undefined_mean/make.py [OUT_DIR]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from test_layout import write_case  # noqa: E402


def main(out):
    os.makedirs(out, exist_ok=True)
    node = helper.make_node("ReduceMean", ["x"], ["y"], name="mean_of_bags", axes=[1], keepdims=0)
    graph = helper.make_graph(
        [node], "undefined_mean", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 0])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    path = os.path.join(out, "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    x = np.zeros((2, 0), np.float32)
    write_case(out, path, [("x", x)], [("y", np.full(2, np.nan, np.float32))])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
