#!/usr/bin/python3
"""Makes the Cortex-M example's model (examples/embed_cortexm): a keyword-spotting-size CNN in
the style of DS-CNN (Zhang et al., "Hello Edge", 2017), random weights (fixed seed), exported
with torch.onnx.export in eval mode:

    input  x [1, 1, 49, 10]: 49 frames of 10 MFCC features (1 s of audio at a 20 ms stride)
    Conv 10x4 stride 2 (32 channels) + BatchNorm + ReLU
    2 x (depthwise Conv 3x3 + BatchNorm + ReLU, pointwise Conv 1x1 + BatchNorm + ReLU), 64 channels
    global average pool, Linear 64 -> 12 (10 keywords, silence, unknown), Softmax
    output probs [1, 12]

9.6 K parameters, 9.3 K once the exporter folds the BatchNorms into the convolutions (37 KB of f32
weights; the .plumb is 66 KB), about 1 M multiply-adds per inference.

    /usr/bin/python3 examples/embed_cortexm/model/make.py [OUT_DIR]

Writes model.onnx and data/input_0.pb, data/output_0.pb (the ONNX test layout, as tests/models:
torch's output in f64, rounded to f32). The BatchNorm statistics are set to non-trivial values."""
import os
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests",
                                "models"))
from test_layout import write_case  # noqa: E402

nn = torch.nn


def conv_bn(cin, cout, kernel, stride=1, padding=0, groups=1):
    return [nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


class KwsCnn(nn.Module):
    def __init__(self):
        super().__init__()
        layers = conv_bn(1, 32, (10, 4), stride=2, padding=(5, 1))
        layers += conv_bn(32, 32, 3, padding=1, groups=32) + conv_bn(32, 64, 1)
        layers += conv_bn(64, 64, 3, padding=1, groups=64) + conv_bn(64, 64, 1)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(64, 12)

    def forward(self, x):
        return torch.softmax(self.head(torch.flatten(self.pool(self.features(x)), 1)), dim=1)


def main(out):
    torch.manual_seed(18)
    model = KwsCnn()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(torch.randn(c) * 0.2)
                m.running_var.copy_(torch.rand(c) + 0.5)
                m.weight.copy_(torch.rand(c) + 0.5)
                m.bias.copy_(torch.randn(c) * 0.1)
        model.head.weight.mul_(4.0)  # spread the logits, so that the probabilities are not all near 1/12
    model.eval()
    x = torch.randn(1, 1, 49, 10)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, (x,), path, input_names=["mfcc"], output_names=["probs"], opset_version=13)
    with torch.no_grad():
        y = model.double()(x.double()).float().numpy()
    write_case(out, path, [("mfcc", x.numpy())], [("probs", y)])
    print("parameters:", sum(p.numel() for p in model.parameters()), "probs:", y.round(3).tolist())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
