#!/usr/bin/python3
"""Makes the bundled example of `tools/demo.sh`: a small PyTorch model exported with
torch.onnx.export (Debian's python3-torch and python3-onnx, the system interpreter), its inputs,
torch's outputs and intermediate activations (by ONNX tensor name), and a deliberately
mis-converted copy (the Softmax axis changed, as converter bugs do).

    /usr/bin/python3 examples/mlp_torch/make_example.py examples/mlp_torch

Writes model.onnx, model_wrong_axis.onnx, data/input_0.pb, data/output_0.pb and one .pb per
intermediate tensor (named by its TensorProto name). Deterministic (fixed seed)."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh
import torch


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(12, 16)
        self.act = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(16, 6)
        self.softmax = torch.nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.fc2(self.act(self.fc1(x))))


def main(out):
    torch.manual_seed(7)
    model = Mlp().eval()
    x = torch.randn(3, 12)
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["probs"], opset_version=13)

    # Torch's value of every module output, by the module's name.
    acts = {}
    for name, mod in model.named_modules():
        if name:
            mod.register_forward_hook(lambda m, i, o, name=name: acts.__setitem__(name, o.detach().numpy()))
    with torch.no_grad():
        y = model(x).numpy()

    def save(arr, name, file):
        t = nh.from_array(np.ascontiguousarray(arr), name=name)
        with open(os.path.join(out, "data", file), "wb") as f:
            f.write(t.SerializeToString())

    save(x.numpy(), "x", "input_0.pb")
    save(y, "probs", "output_0.pb")
    onnx_model = onnx.load(path)
    for node in onnx_model.graph.node:
        # torch names nodes "/<module>/<Op>"; the node's output is that module's output.
        parts = node.name.strip("/").split("/")
        if len(parts) == 2 and parts[0] in acts and node.output[0] != "probs":
            save(acts[parts[0]], node.output[0], "act_%s.pb" % parts[0])

    # The mis-converted copy: Softmax over the batch axis instead of the class axis.
    for node in onnx_model.graph.node:
        if node.op_type == "Softmax":
            for a in node.attribute:
                if a.name == "axis":
                    a.i = 0
    onnx.save(onnx_model, os.path.join(out, "model_wrong_axis.onnx"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
