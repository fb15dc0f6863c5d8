#!/usr/bin/python3
"""Makes the whole-model tests of shapes computed at run time (issue 13): PyTorch models with
random weights (fixed seeds), exported with torch.onnx.export, and their inputs and the outputs
torch computes (independently of plumb), in the ONNX test layout.

    /usr/bin/python3 tests/models/make_dynamic_models.py [OUT_DIR] [NAME...]

For each model NAME it writes OUT_DIR/NAME/model.onnx and one data folder per input size,
OUT_DIR/NAME/data_<tag>/input_<k>.pb, output_<k>.pb (tests/models/test_layout.py).

- lraspp: torchvision's LRASPP head on a MobileNetV3-Large backbone (dilated), exported with a
  static 1x3x96x128 input: its Resize sizes come from Shape -> Slice -> Concat. The backbone is
  built with width_mult 0.25 (torchvision's mobilenet_v3_large constructor argument) and the head
  gives 6 classes, so that the committed files stay small; the graph's operators and shape
  computations are those of lraspp_mobilenet_v3_large.
- ssdlite: torchvision's ssdlite320_mobilenet_v3_large (width_mult 0.25 likewise, 11 classes):
  anchors by Tile of computed repeats, per-class TopK, and NonMaxSuppression inside an If.
- The dynamic_axes models, each converted once and run at every size: fcn (N, H, W; interpolates
  back to the input size), vit (batch), gpt (a causal decoder: batch and sequence), encoder
  (nn.TransformerEncoder: batch and sequence), lstm (batch and sequence), shapes (view/flatten by
  size, topk with k computed from a dynamic length, new_zeros, nonzero, masked_select; one size
  gives zero-size outputs).
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_layout import write_case  # noqa: E402

OPSET = 17


def export(model, args, path, names_in, names_out, dynamic_axes=None):
    torch.onnx.export(model, args, path, input_names=names_in, output_names=names_out,
                      opset_version=OPSET, dynamic_axes=dynamic_axes)


def cases(out, name, model, names_in, names_out, sizes, dynamic_axes=None, export_args=None):
    """Exports `model` once (with the first size's inputs unless `export_args`) and writes one data
    folder per entry of `sizes` (tag -> tuple of inputs)."""
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    first = next(iter(sizes.values()))
    export(model, export_args if export_args is not None else first, path, names_in, names_out,
           dynamic_axes)
    for tag, inputs in sizes.items():
        with torch.no_grad():
            outs = model(*inputs)
        if not isinstance(outs, (tuple, list)):
            outs = (outs,)
        write_case(os.path.join(d, "data_" + tag), path,
                   [(n, t.numpy()) for n, t in zip(names_in, inputs)],
                   [(n, t.numpy()) for n, t in zip(names_out, outs)])
        # write_case writes into <case>/data: flatten it to data_<tag>.
        case = os.path.join(d, "data_" + tag)
        for f in os.listdir(os.path.join(case, "data")):
            os.replace(os.path.join(case, "data", f), os.path.join(case, f))
        os.rmdir(os.path.join(case, "data"))


# ---- torchvision models with computed shapes (static input) ------------------------------------

def calibrate(net, batch):
    """Sets every BatchNorm's running statistics from one training-mode pass over `batch`. With
    torchvision's random initialization the activations otherwise vanish (1e-7 after the backbone
    of ssdlite), every detection score is the same, and TopK and NMS order ties either way."""
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average: this one batch
    net.train()
    with torch.no_grad():
        net(batch)
    net.eval()


def make_lraspp(out):
    from torchvision.models import mobilenet_v3_large
    from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3
    torch.manual_seed(1)
    model = _lraspp_mobilenetv3(mobilenet_v3_large(weights=None, dilated=True, width_mult=0.25), 6)
    calibrate(model, torch.rand(4, 3, 96, 128))
    model.eval()
    x = torch.rand(1, 3, 96, 128)

    class Out(torch.nn.Module):  # the model returns a dict; export its one tensor
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]

    cases(out, "lraspp", Out(model).eval(), ["x"], ["out"], {"1x3x96x128": (x,)})


def make_ssdlite(out):
    from torchvision.models.detection import ssdlite320_mobilenet_v3_large
    torch.manual_seed(2)
    model = ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                          num_classes=11, width_mult=0.25)
    calibrate(model.backbone, torch.rand(4, 3, 320, 320))
    model.eval()
    x = torch.rand(3, 96, 128)

    class Out(torch.nn.Module):  # a list of images in, one dict of detections out
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            d = self.m([x])[0]
            return d["boxes"], d["scores"], d["labels"]

    cases(out, "ssdlite", Out(model).eval(), ["x"], ["boxes", "scores", "labels"],
          {"3x96x128": (x,)})


# ---- dynamic_axes models -----------------------------------------------------------------------

class FullyConv(torch.nn.Module):
    """Strided convolutions down, a 1x1 head, and bilinear interpolation back to the input size."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.head = torch.nn.Conv2d(8, 5, 1)

    def forward(self, x):
        y = self.head(F.relu(self.c2(F.relu(self.c1(x)))))
        return F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)


def make_fcn(out):
    torch.manual_seed(3)
    g = torch.Generator().manual_seed(3)
    sizes = {"2x3x20x28": (torch.rand(2, 3, 20, 28, generator=g),),
             "1x3x9x13": (torch.rand(1, 3, 9, 13, generator=g),),
             "3x3x32x16": (torch.rand(3, 3, 32, 16, generator=g),)}
    cases(out, "fcn", FullyConv().eval(), ["x"], ["y"], sizes,
          {"x": {0: "n", 2: "h", 3: "w"}, "y": {0: "n", 2: "h", 3: "w"}})


def make_vit(out):
    from torchvision.models.vision_transformer import VisionTransformer
    torch.manual_seed(4)
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                              mlp_dim=64, num_classes=10).eval()
    g = torch.Generator().manual_seed(4)
    sizes = {"b2": (torch.rand(2, 3, 32, 32, generator=g),),
             "b1": (torch.rand(1, 3, 32, 32, generator=g),),
             "b3": (torch.rand(3, 3, 32, 32, generator=g),)}
    cases(out, "vit", model, ["x"], ["logits"], sizes, {"x": {0: "batch"}, "logits": {0: "batch"}})


class Gpt(torch.nn.Module):
    """A GPT-like decoder: token and position embeddings (positions from arange(seq)), pre-norm
    causal self-attention blocks (the mask built from the sequence length), a tied-free head."""

    def __init__(self, vocab=50, width=32, heads=4, layers=2, max_len=64):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, width)
        self.pos = torch.nn.Embedding(max_len, width)
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(torch.nn.ModuleDict({
                "ln1": torch.nn.LayerNorm(width), "attn": torch.nn.MultiheadAttention(
                    width, heads, batch_first=True), "ln2": torch.nn.LayerNorm(width),
                "mlp": torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                           torch.nn.Linear(4 * width, width))}))
        self.ln = torch.nn.LayerNorm(width)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(t, device=ids.device))[None]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        for b in self.blocks:
            h = b["ln1"](x)
            x = x + b["attn"](h, h, h, attn_mask=mask, need_weights=False)[0]
            x = x + b["mlp"](b["ln2"](x))
        return self.head(self.ln(x))


def make_gpt(out):
    torch.manual_seed(5)
    g = torch.Generator().manual_seed(5)
    sizes = {"b2s7": (torch.randint(0, 50, (2, 7), generator=g),),
             "b1s1": (torch.randint(0, 50, (1, 1), generator=g),),
             "b3s12": (torch.randint(0, 50, (3, 12), generator=g),)}
    cases(out, "gpt", Gpt().eval(), ["ids"], ["logits"], sizes,
          {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})


def make_encoder(out):
    torch.manual_seed(6)
    layer = torch.nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0,
                                             batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    g = torch.Generator().manual_seed(6)
    sizes = {"b2s6": (torch.randn(2, 6, 32, generator=g),),
             "b1s1": (torch.randn(1, 1, 32, generator=g),),
             "b3s9": (torch.randn(3, 9, 32, generator=g),)}
    # Exported with grad mode on: the traced composite path, not the fused inference fast path.
    cases(out, "encoder", model, ["x"], ["y"], sizes,
          {"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}})


class Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 6, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(6, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


def make_lstm(out):
    torch.manual_seed(7)
    g = torch.Generator().manual_seed(7)
    sizes = {"b2s5": (torch.randn(2, 5, 4, generator=g),),
             "b1s1": (torch.randn(1, 1, 4, generator=g),),
             "b3s8": (torch.randn(3, 8, 4, generator=g),)}
    cases(out, "lstm_dynamic", Lstm().eval(), ["x"], ["y"], sizes,
          {"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}})


class ShapeArithmetic(torch.nn.Module):
    """Shapes computed from shapes: view by size, flatten, topk with k from a dynamic length,
    new_zeros of a computed shape, nonzero and masked_select (data-dependent lengths)."""

    def forward(self, x):
        n, length = x.shape[0], x.shape[1]
        flat = x.view(n, -1)
        top, idx = torch.topk(flat, k=length // 2, dim=1)
        z = x.new_zeros(x.shape) + x.mean()
        nz = torch.nonzero(x > 0.5)
        picked = torch.masked_select(x, x > 0.5)
        return flat.flatten(), top, idx, z, nz, picked


def make_shapes(out):
    g = torch.Generator().manual_seed(8)
    sizes = {"n2l6": (torch.rand(2, 6, 3, generator=g),),
             # batch 1, length 1: topk k = 0 and an all-false mask give zero-size outputs
             "n1l1": (torch.rand(1, 1, 3, generator=g) * 0.5,),
             "n4l9": (torch.rand(4, 9, 3, generator=g),)}
    names = ["flat", "top", "idx", "z", "nz", "picked"]
    axes = {"x": {0: "n", 1: "len"}, "flat": {0: "f"}, "top": {0: "n", 1: "k"},
            "idx": {0: "n", 1: "k"}, "z": {0: "n", 1: "len"}, "nz": {0: "nnz"}, "picked": {0: "m"}}
    cases(out, "shapes", ShapeArithmetic().eval(), ["x"], names, sizes, axes)


MAKERS = {"lraspp": make_lraspp, "ssdlite": make_ssdlite, "fcn": make_fcn, "vit": make_vit,
          "gpt": make_gpt, "encoder": make_encoder, "lstm_dynamic": make_lstm, "shapes": make_shapes}


def main(argv):
    out = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "dynamic")
    names = argv[1:] or list(MAKERS)
    for name in names:
        MAKERS[name](out)


if __name__ == "__main__":
    main(sys.argv[1:])
