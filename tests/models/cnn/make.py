#!/usr/bin/python3
"""Makes the whole-model CNN test: a small PyTorch image classifier (Conv, BatchNorm, ReLU,
MaxPool, a second Conv block whose BatchNorm follows the ReLU so the exporter cannot fold it into
the Conv, AvgPool, Flatten and two Linear layers) exported with torch.onnx.export in eval mode,
its input and the output torch computes in f64 (independently of plumb).

    /usr/bin/python3 tests/models/cnn/make.py [OUT_DIR]

Writes model.onnx and data/input_0.pb, data/output_0.pb (ONNX test layout). Deterministic (fixed
seed); input [2, 3, 16, 16], output [2, 10]. The BatchNorm running statistics are set to
non-trivial values (fresh ones are mean 0, variance 1, which would make the layer nearly the
identity)."""
import os
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from test_layout import write_case  # noqa: E402

nn = torch.nn


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                    nn.MaxPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1, stride=1), nn.ReLU(),
                                    nn.BatchNorm2d(16), nn.AvgPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(16 * 4 * 4, 32), nn.ReLU(), nn.Linear(32, 10))

    def forward(self, x):
        return self.head(self.block2(self.block1(x)))


def build():
    """The model in eval mode and its input (also tests/models/diff_variants.py's re-export)."""
    torch.manual_seed(5)
    model = SmallCnn()
    with torch.no_grad():
        for bn in (model.block1[1], model.block2[2]):
            c = bn.num_features
            bn.running_mean.copy_(torch.randn(c) * 0.5)
            bn.running_var.copy_(torch.rand(c) * 2 + 0.25)
            bn.weight.copy_(torch.rand(c) + 0.5)
            bn.bias.copy_(torch.randn(c) * 0.2)
    model.eval()
    return model, torch.randn(2, 3, 16, 16)


def main(out):
    model, x = build()
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["logits"], opset_version=13)
    # The expected output: the same model in f64, rounded to f32 (an oracle far more accurate
    # than any f32 evaluation, so plumb check's bound measures plumb's error alone).
    with torch.no_grad():
        y = model.double()(x.double()).float().numpy()
    write_case(out, path, [("x", x.numpy())], [("logits", y)])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
