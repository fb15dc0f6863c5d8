#!/usr/bin/python3
"""Export a torch model and dump what `plumb check` compares it with (docs/check.md, "Check your own
torch model"): the inputs, torch's outputs and the output of every module whose value is an ONNX
tensor, in the expected-folder layout:

    OUT/model.onnx
    OUT/data/input_<k>.pb, output_<k>.pb   TensorProtos named after the graph's inputs and outputs
    OUT/data/<k>.npy + names.json          intermediates; names.json maps each file to its ONNX name

    /usr/bin/python3 examples/torch_check/dump_torch.py OUT      # the small example model below

For your own model, import this file and call dump_case(model, (x,), OUT) (input_names= and
output_names= are torch.onnx.export's). It avoids the two traps
of dumping torch activations: it saves copies (an in-place op such as ReLU(inplace=True) would
overwrite a saved view), and it maps an ONNX Conv whose BatchNorm the exporter folded to that
BatchNorm's output (torch's Conv output is not the ONNX Conv's). The ONNX tensor of a module is the
output of the last ONNX node in the module's scope (torch names nodes /<scope>/<module>/<Op>).
Modules that return tuples, and graph outputs, are left to output_<k>.pb."""
import json
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh
import torch


def _module_of(node):
    parts = node.name.strip("/").split("/")
    return parts[-2] if len(parts) >= 2 else None


def dump_case(model, inputs, out, input_names=None, output_names=None, opset=13):
    model.eval()
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, inputs, path, input_names=input_names, output_names=output_names,
                      opset_version=opset)
    graph = onnx.load(path).graph

    # The ONNX tensor of each module: the output of the last node in its scope.
    tensor_of = {}
    for node in graph.node:
        if _module_of(node) is not None and len(node.output) == 1:
            tensor_of[_module_of(node)] = node.output[0]
    # A BatchNorm with no node of its own was folded into the Conv before it (module order).
    modules = list(model.named_modules())
    source = {name: name for name in tensor_of}
    for k, (name, mod) in enumerate(modules):
        if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm) and name not in tensor_of:
            for prev, pmod in reversed(modules[:k]):
                if isinstance(pmod, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)):
                    if prev in source:
                        source[prev] = name
                    break

    acts = {}  # module name -> a copy of its output
    hooks = [mod.register_forward_hook(
        lambda m, i, o, name=name: acts.__setitem__(name, o.detach().clone().numpy())
        if isinstance(o, torch.Tensor) else None)
        for name, mod in modules if name]
    with torch.no_grad():
        outputs = model(*inputs)
    for h in hooks:
        h.remove()
    outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)

    def save_pb(arr, name, file):
        with open(os.path.join(data, file), "wb") as f:
            f.write(nh.from_array(np.array(arr, order="C"), name=name).SerializeToString())

    real_inputs = [i for i in graph.input if i.name not in {t.name for t in graph.initializer}]
    for k, (info, x) in enumerate(zip(real_inputs, inputs)):
        save_pb(x.numpy(), info.name, "input_%d.pb" % k)
    for k, (info, y) in enumerate(zip(graph.output, outputs)):
        save_pb(y.numpy(), info.name, "output_%d.pb" % k)
    graph_outputs = {o.name for o in graph.output}
    names = {}
    for k, (module, tensor) in enumerate(sorted(tensor_of.items())):
        value = acts.get(source[module])
        if tensor in graph_outputs or value is None:
            continue
        np.save(os.path.join(data, "%d.npy" % k), value)
        names["%d.npy" % k] = tensor
    with open(os.path.join(data, "names.json"), "w") as f:
        json.dump(names, f, indent=1)
    print("%s: %d inputs, %d outputs, %d intermediates" % (out, len(inputs), len(outputs), len(names)))


class SmallCnn(torch.nn.Module):
    """The example: Conv + BatchNorm (folded by the exporter) + in-place ReLU, twice, and a head."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                                      nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        return self.head(self.features(x))


if __name__ == "__main__":
    torch.manual_seed(0)
    net = SmallCnn()
    with torch.no_grad():  # BatchNorm statistics far from the identity, as after training
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features) * 0.5)
                m.running_var.copy_(torch.rand(m.num_features) + 0.5)
    dump_case(net, (torch.randn(2, 3, 16, 16),), sys.argv[1] if len(sys.argv) > 1 else "torch_check_out",
              input_names=["image"], output_names=["logits"])
