#!/usr/bin/python3
"""Makes the whole-model transformer test: one PyTorch nn.TransformerEncoderLayer (multi-head
self-attention, LayerNorm, a GELU feed-forward; post-norm, dropout 0) with a key padding mask,
exported with torch.onnx.export (opset 17, so LayerNormalization is one op), its inputs and the
output torch computes in f64 (independently of plumb).

    /usr/bin/python3 tests/models/encoder/make.py [OUT_DIR]

Writes model.onnx and data/input_<k>.pb, data/output_0.pb (ONNX test layout). Deterministic
(fixed seed); x [2, 6, 32] (batch, sequence, model width), 4 heads, feed-forward width 64; the
padding mask hides the last two positions of the second sequence (an additive -inf mask in the
export, so softmax sees -inf)."""
import os
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from test_layout import write_case  # noqa: E402

BATCH, SEQ, WIDTH, HEADS, FF = 2, 6, 32, 4, 64


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(WIDTH, HEADS, dim_feedforward=FF, dropout=0.0,
                                                      activation="gelu", batch_first=True)

    def forward(self, x, pad):
        return self.layer(x, src_key_padding_mask=pad)


def main(out):
    torch.manual_seed(17)
    model = Encoder().eval()
    x = torch.randn(BATCH, SEQ, WIDTH)
    pad = torch.zeros(BATCH, SEQ, dtype=torch.bool)
    pad[1, SEQ - 2:] = True
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")
    # Exported with grad mode on: the traced composite path, not the fused inference fast path.
    torch.onnx.export(model, (x, pad), path, input_names=["x", "pad"], output_names=["y"],
                      opset_version=17)
    # The expected output: the same model in f64, rounded to f32 (an oracle far more accurate
    # than any f32 evaluation, so plumb check's bound measures plumb's error alone; torch's own
    # f32 no-grad fast path is off from it by up to 5e-7 here).
    with torch.no_grad():
        y = model.double()(x.double(), pad).float().numpy()
    write_case(out, path, [("x", x.numpy()), ("pad", pad.numpy())], [("y", y)])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
