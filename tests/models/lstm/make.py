#!/usr/bin/python3
"""Makes the whole-model LSTM test of plumb's recurrent lowering: a small PyTorch model (a
2-layer bidirectional nn.LSTM with initial states, and a Linear head on its last output) exported
with torch.onnx.export, its inputs and the outputs torch computes (independently of plumb).

    /usr/bin/python3 tests/models/lstm/make.py [OUT_DIR]

Writes model.onnx, model_dynamic.onnx (symbolic seq and batch) and data/input_<k>.pb, data/output_<k>.pb (ONNX test layout: inputs in graph
input order, outputs in graph output order, each TensorProto named after its graph tensor).
Deterministic (fixed seed); shapes: seq 5, batch 2, input 4, hidden 3."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh
import torch

SEQ, BATCH, INPUT, HIDDEN, LAYERS = 5, 2, 4, 3, 2


class Tagger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(INPUT, HIDDEN, num_layers=LAYERS, bidirectional=True)
        self.head = torch.nn.Linear(2 * HIDDEN, 2)

    def forward(self, x, h0, c0):
        y, (hn, cn) = self.lstm(x, (h0, c0))
        return self.head(y), hn, cn


def main(out):
    torch.manual_seed(11)
    model = Tagger().eval()
    x = torch.randn(SEQ, BATCH, INPUT)
    h0 = torch.randn(2 * LAYERS, BATCH, HIDDEN)
    c0 = torch.randn(2 * LAYERS, BATCH, HIDDEN)
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    path = os.path.join(out, "model.onnx")
    names_in, names_out = ["x", "h0", "c0"], ["logits", "hn", "cn"]
    torch.onnx.export(model, (x, h0, c0), path, input_names=names_in, output_names=names_out,
                      opset_version=14)
    with torch.no_grad():
        outs = [t.numpy() for t in model(x, h0, c0)]

    def save(arr, name, file):
        t = nh.from_array(np.ascontiguousarray(arr), name=name)
        with open(os.path.join(out, "data", file), "wb") as f:
            f.write(t.SerializeToString())

    for k, (name, t) in enumerate(zip(names_in, (x, h0, c0))):
        save(t.numpy(), name, "input_%d.pb" % k)
    for k, (name, arr) in enumerate(zip(names_out, outs)):
        save(arr, name, "output_%d.pb" % k)
    onnx.checker.check_model(onnx.load(path))
    # The same model with symbolic sequence and batch lengths (as exports usually are): plumb
    # lowers its LSTMs as `while` loops.
    dyn = os.path.join(out, "model_dynamic.onnx")
    axes = {"x": {0: "seq", 1: "batch"}, "h0": {1: "batch"}, "c0": {1: "batch"},
            "logits": {0: "seq", 1: "batch"}, "hn": {1: "batch"}, "cn": {1: "batch"}}
    torch.onnx.export(model, (x, h0, c0), dyn, input_names=names_in, output_names=names_out,
                      opset_version=14, dynamic_axes=axes)
    onnx.checker.check_model(onnx.load(dyn))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
