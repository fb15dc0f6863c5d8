#!/usr/bin/python3
"""Makes tests/models/expected_traps: a small torch CNN and three dumps of its intermediates, two
of them made the way that falls into the traps of dumping torch activations (issue 20,
docs/check.md "Traps"), for tests/cli/check_hints.sh:

    conv0 -> bn0 -> relu0 -> conv1 -> relu1 (inplace=True) -> conv2

torch.onnx.export (eval mode) folds bn0 into the ONNX Conv '/conv0/Conv', so that node's output is
torch's bn0 output; relu1 overwrites conv1's output in place, so a forward hook that keeps
`output.numpy()` (a view) of conv1 holds relu1's values.

    /usr/bin/python3 tests/models/expected_traps/make.py [OUT_DIR]

Writes model.onnx, data/ (input_0.pb, output_0.pb and every intermediate, dumped right: each ONNX
node's output from the module that computes it, as a copy), naive/ (each ONNX node's output from
the module its name says, without a copy: both traps) and bn_fixed/ (the BatchNorm mapped right,
still without a copy: the in-place trap only). Each intermediate is `<k>.npy` with a names.json
mapping the files to ONNX tensor names. Deterministic (fixed seed); input [1, 3, 8, 8]."""
import json
import os
import sys

import numpy as np
import onnx
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from test_layout import write_case  # noqa: E402

nn = torch.nn


class TrapNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv2d(3, 4, 3, padding=1)
        self.bn0 = nn.BatchNorm2d(4)
        self.relu0 = nn.ReLU()
        self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(4, 2, 3, padding=1)

    def forward(self, x):
        return self.conv2(self.relu1(self.conv1(self.relu0(self.bn0(self.conv0(x))))))


def dump(model, x, onnx_model, out, module_of, copy):
    """Saves, for each ONNX node output but the graph output, the output of module module_of(node)
    as torch computed it (a copy, or the numpy view a naive hook keeps)."""
    acts = {}
    hooks = [m.register_forward_hook(
        lambda m, i, o, name=name: acts.__setitem__(name, o.detach().clone().numpy() if copy else o.detach().numpy()))
        for name, m in model.named_modules() if name]
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()
    os.makedirs(out, exist_ok=True)
    names = {}
    outputs = {o.name for o in onnx_model.graph.output}
    for k, node in enumerate(onnx_model.graph.node):
        if node.output[0] in outputs:
            continue
        np.save(os.path.join(out, "%d.npy" % k), acts[module_of(node)])
        names["%d.npy" % k] = node.output[0]
    with open(os.path.join(out, "names.json"), "w") as f:
        json.dump(names, f, indent=1)


def main(out):
    torch.manual_seed(3)
    model = TrapNet()
    with torch.no_grad():  # a BatchNorm that is far from the identity
        model.bn0.running_mean.copy_(torch.randn(4) * 0.5)
        model.bn0.running_var.copy_(torch.rand(4) * 2 + 0.25)
        model.bn0.weight.copy_(torch.rand(4) + 0.5)
        model.bn0.bias.copy_(torch.randn(4) * 0.2)
    model.eval()
    x = torch.randn(1, 3, 8, 8)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"], opset_version=13)
    with torch.no_grad():
        y = model(x).numpy()
    write_case(out, path, [("x", x.numpy())], [("y", y)])
    m = onnx.load(path)

    def by_name(node):  # "/conv0/Conv" -> "conv0": what the node's name says
        return node.name.strip("/").split("/")[0]

    def computed_by(node):  # the exporter folded bn0 into conv0: that node's output is bn0's
        return "bn0" if by_name(node) == "conv0" else by_name(node)

    dump(model, x, m, os.path.join(out, "data"), computed_by, copy=True)
    dump(model, x, m, os.path.join(out, "naive"), by_name, copy=False)
    dump(model, x, m, os.path.join(out, "bn_fixed"), computed_by, copy=False)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
