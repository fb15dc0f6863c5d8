#!/usr/bin/python3
"""Makes the real-model test set of plumb check (tests/cli/check_real_*.sh): small torch exports
of real architectures (torchvision classifiers, transformer, recurrent and generative blocks) and
single-op / short-sequence exports, each with every node output as an expected value, and the
faults each model's tests inject.

    /usr/bin/python3 tests/models/make_real_models.py [--only NAME,...] [OUT_DIR]

OUT_DIR (default tests/models) gets, for each model NAME (see tests/models/README.md):
  NAME/model.onnx              torch.onnx.export, opset 17, random weights (fixed seed per model)
  NAME/data/input_<k>.pb       the inputs
  NAME/data/output_<k>.pb      torch's own f32 outputs (what a user has)
  NAME/nodes/t<k>.pb           every other node output, computed by onnxruntime-node (f32, graph
                               optimizations off): what a converter engineer dumps
  NAME/faults.txt              single-node faults (tests/models/mutate.py) with the exits plumb
                               check must give, chosen and measured on onnxruntime
and OUT_DIR/real_models.txt, a summary (nodes, bytes, |onnxruntime - torch| per model).

Needs Debian's python3-torch, python3-torchvision, python3-onnx and onnxruntime-node (npm, into
$ORT_PREFIX, default /tmp/ort-peer, as bench/peer_ort.sh installs it). Deterministic: torch runs on
one thread, every model has its own seed, onnxruntime runs on one thread with optimizations off."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper as nh
import torch
import torchvision.models as tvm
from torchvision.models import convnext, efficientnet, mobilenetv3, resnet, squeezenet, swin_transformer
from torchvision.models import vision_transformer

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutate  # noqa: E402
from test_layout import write_case  # noqa: E402

nn = torch.nn
F = torch.nn.functional
OPSET = 17

# ---- the models ---------------------------------------------------------------------------------
# Each builder returns (module, inputs, input names, output names). Sizes are chosen so that every
# node output of a model fits in well under 1 MB and plumb check runs in about a second.


def randomize_batchnorm(model):
    """Fresh BatchNorm parameters (scale 1, shift 0) and statistics (mean 0, variance 1) make it
    the identity or, with random statistics that do not fit the activations, let the shifts
    swamp the signal (a small EfficientNet's logits then hardly depend on its input). So: random
    scales and shifts, and statistics measured on random inputs (calibrate_batchnorm in make()),
    as a trained network's are."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                c = m.num_features
                m.weight.copy_(torch.rand(c) + 0.5)
                m.bias.copy_(torch.randn(c) * 0.2)
    return model


def calibrate_batchnorm(model, inputs):
    """Sets the BatchNorm running statistics to those of a batch of 8 random inputs shaped like
    `inputs` (one forward pass with only the BatchNorms in training mode, cumulative averages)."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    model.eval()
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
        m.train()
    with torch.no_grad():
        model(*[torch.randn((8,) + tuple(x.shape[1:])) for x in inputs])
    for m in bns:
        m.momentum = 0.1
    model.eval()


def image(n=1, c=3, h=32, w=32):
    return torch.randn(n, c, h, w)


def resnet_small():
    # torchvision's ResNet and BasicBlock, its stem and stage widths narrowed (64..512 -> 8..64)
    # through its own _make_layer.
    m = resnet.ResNet(resnet.BasicBlock, [1, 1, 1, 1], num_classes=10)
    m.inplanes = 8
    m.conv1 = nn.Conv2d(3, 8, 7, 2, 3, bias=False)
    m.bn1 = nn.BatchNorm2d(8)
    m.layer1 = m._make_layer(resnet.BasicBlock, 8, 1)
    m.layer2 = m._make_layer(resnet.BasicBlock, 16, 1, stride=2)
    m.layer3 = m._make_layer(resnet.BasicBlock, 32, 1, stride=2)
    m.layer4 = m._make_layer(resnet.BasicBlock, 64, 1, stride=2)
    m.fc = nn.Linear(64, 10)
    return randomize_batchnorm(m), (image(),), ["x"], ["logits"]


def mobilenet_v2_small():
    setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 1, 2], [6, 64, 1, 2]]
    m = tvm.MobileNetV2(num_classes=10, width_mult=0.25, inverted_residual_setting=setting)
    return randomize_batchnorm(m), (image(),), ["x"], ["logits"]


def mobilenet_v3_small():
    setting, last = mobilenetv3._mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25, reduced_tail=True)
    m = mobilenetv3.MobileNetV3(setting[:6], last, num_classes=10)
    return randomize_batchnorm(m), (image(),), ["x"], ["logits"]


def densenet_small():
    m = tvm.DenseNet(growth_rate=8, block_config=(2, 2, 2), num_init_features=16, bn_size=2, num_classes=10)
    return randomize_batchnorm(m), (image(),), ["x"], ["logits"]


def shufflenet_small():
    m = tvm.ShuffleNetV2([2, 1, 1], [8, 16, 32, 64, 128], num_classes=10)
    return randomize_batchnorm(m), (image(),), ["x"], ["logits"]


def squeezenet_small():
    # torchvision's SqueezeNet 1.1 head with its own Fire modules at a quarter of their widths.
    m = tvm.SqueezeNet("1_1", num_classes=10)
    Fire = squeezenet.Fire
    m.features = nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(16, 4, 8, 8), Fire(16, 4, 8, 8), nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(16, 8, 16, 16), Fire(32, 8, 16, 16))
    m.classifier[1] = nn.Conv2d(32, 10, 1)
    for mod in m.modules():  # SqueezeNet's own initialization, on the new modules
        if isinstance(mod, nn.Conv2d):
            if mod is m.classifier[1]:
                nn.init.normal_(mod.weight, mean=0.0, std=0.01)
            else:
                nn.init.kaiming_uniform_(mod.weight)
            nn.init.constant_(mod.bias, 0)
    return m, (image(),), ["x"], ["logits"]


def efficientnet_small():
    setting, last = efficientnet._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.25)
    m = efficientnet.EfficientNet(setting, dropout=0.2, num_classes=10, last_channel=last)
    return randomize_batchnorm(m), (image(),), ["x"], ["logits"]


def vit_small():
    m = vision_transformer.VisionTransformer(image_size=16, patch_size=4, num_layers=1, num_heads=2,
                                             hidden_dim=16, mlp_dim=32, num_classes=10)
    with torch.no_grad():  # a fresh ViT has a zero head and a zero class token
        m.heads.head.weight.normal_(0, 0.2)
        m.class_token.normal_(0, 1)
    return m, (image(h=16, w=16),), ["x"], ["logits"]


def swin_small():
    # Two blocks of one stage: a plain and a shifted window (its mask is built in the graph).
    m = swin_transformer.SwinTransformer(patch_size=[2, 2], embed_dim=16, depths=[2], num_heads=[2],
                                         window_size=[4, 4], num_classes=10)
    return m, (image(h=16, w=16),), ["x"], ["logits"]


def convnext_small():
    cfg = convnext.CNBlockConfig
    m = convnext.ConvNeXt([cfg(16, 32, 1), cfg(32, None, 1)], num_classes=10)
    with torch.no_grad():  # ConvNeXt's layer scale starts at 1e-6: the blocks would vanish
        for mod in m.modules():
            if isinstance(mod, convnext.CNBlock):
                mod.layer_scale.fill_(0.5)
    return m, (image(h=16, w=16),), ["x"], ["logits"]


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x, pad):
        return self.enc(x, src_key_padding_mask=pad)


def transformer_encoder():
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[1, 4:] = True
    return Encoder(), (torch.randn(2, 6, 16), pad), ["x", "pad"], ["y"]


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerDecoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.dec = nn.TransformerDecoder(layer, 1)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(5))

    def forward(self, tgt, memory):
        return self.dec(tgt, memory, tgt_mask=self.causal)


def transformer_decoder():
    return Decoder(), (torch.randn(2, 5, 16), torch.randn(2, 7, 16)), ["tgt", "memory"], ["y"]


class GruHead(nn.Module):  # a speech-style head: Conv1d features, a GRU, a Linear classifier
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 16, 3, padding=1)
        self.gru = nn.GRU(16, 12, batch_first=True)
        self.fc = nn.Linear(12, 5)

    def forward(self, x):
        h = F.relu(self.conv(x)).transpose(1, 2)
        y, _ = self.gru(h)
        return self.fc(y)


def gru_head():
    return GruHead(), (torch.randn(2, 8, 10),), ["x"], ["y"]


class LstmHead(nn.Module):  # a token classifier: Embedding, a 2-layer LSTM, a Linear head
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(8, 12, num_layers=2, batch_first=True)
        self.fc = nn.Linear(12, 4)

    def forward(self, tokens):
        y, _ = self.lstm(self.emb(tokens))
        return self.fc(y[:, -1])


def lstm_head():
    return LstmHead(), (torch.randint(0, 20, (2, 7)),), ["tokens"], ["y"]


class VaeDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 16 * 4 * 4)
        self.up = nn.Sequential(nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.BatchNorm2d(8), nn.ReLU(),
                                nn.ConvTranspose2d(8, 3, 4, 2, 1), nn.Sigmoid())

    def forward(self, z):
        return self.up(F.relu(self.fc(z)).view(-1, 16, 4, 4))


def vae_decoder():
    return randomize_batchnorm(VaeDecoder()), (torch.randn(2, 8),), ["z"], ["image"]


class Fn(nn.Module):
    """A short sequence of tensor functions (no parameters)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def reductions():
    def fn(x):
        return (x.sum(1), x.mean((1, 2)), x.amax(-1), x.amin(0), (x * 0.5).prod(2),
                torch.logsumexp(x, 1), (x > 0).all(2), (x > 1.5).any(1))
    return Fn(fn), (torch.randn(3, 4, 5),), ["x"], ["sum", "mean", "amax", "amin", "prod", "logsumexp", "all",
                                                      "any"]


def loss_bce():
    # torch 1.13 cannot export F.binary_cross_entropy: its formula as users write it instead (the
    # log clamped at -100, as torch's BCE does).
    def fn(logits, p, target):
        q = torch.sigmoid(p)
        bce = -(target * torch.clamp(torch.log(q), min=-100) + (1 - target) * torch.clamp(torch.log(1 - q), min=-100))
        return bce.mean(), F.binary_cross_entropy_with_logits(logits, target, reduction="sum")
    t = (torch.rand(4, 6) > 0.5).float()
    return Fn(fn), (torch.randn(4, 6), torch.randn(4, 6), t), ["logits", "p", "target"], ["bce", "bce_logits"]


def loss_kl():
    def fn(logq, p):
        return (F.kl_div(F.log_softmax(logq, 1), F.softmax(p, 1), reduction="batchmean"),
                F.kl_div(F.log_softmax(logq, 1), F.log_softmax(p, 1), reduction="sum", log_target=True))
    return Fn(fn), (torch.randn(4, 6), torch.randn(4, 6)), ["logq", "p"], ["kl", "kl_log_target"]


def loss_cross_entropy():
    w = torch.rand(7) + 0.5

    def fn(logits, labels):  # (torch 1.13 does not export label_smoothing)
        return (F.cross_entropy(logits, labels), F.cross_entropy(logits, labels, weight=w, ignore_index=3),
                F.cross_entropy(logits, labels, reduction="none"), F.nll_loss(F.log_softmax(logits / 2.0, 1), labels))
    labels = torch.tensor([3, 0, 6, 3, 2, 5])
    return Fn(fn), (torch.randn(6, 7), labels), ["logits", "labels"], ["ce", "ce_weighted", "ce_none",
                                                                          "nll_tempered"]


def std_var():
    def fn(x):
        return torch.std(x, 1), torch.var(x, (0, 2), unbiased=False), torch.std(x * 3 + 10)
    return Fn(fn), (torch.randn(3, 6, 5),), ["x"], ["std", "var", "std_all"]


def einsum_ops():
    def fn(a, b):
        return (torch.einsum("bii->bi", a), torch.einsum("bii->b", a), torch.einsum("bij,bjk->bik", a, b),
                torch.einsum("bij->j", b), torch.einsum("ii->", a[0]), torch.einsum("bij,bkj->bik", a, a))
    return Fn(fn), (torch.randn(2, 4, 4), torch.randn(2, 4, 3)), ["a", "b"], ["diagonal", "trace", "batched",
                                                                             "sum_j", "trace0", "gram"]


def matmul_family():
    def fn(m, a, b, c, d):
        return torch.bmm(a, b), torch.baddbmm(m, a, b, beta=0.5, alpha=2.0), torch.addmm(c, d, b[0], beta=1.5)
    args = (torch.randn(2, 3, 5), torch.randn(2, 3, 4), torch.randn(2, 4, 5), torch.randn(3, 5), torch.randn(3, 4))
    return Fn(fn), args, ["m", "a", "b", "c", "d"], ["bmm", "baddbmm", "addmm"]


def norms():
    gn = nn.GroupNorm(2, 4)
    inorm = nn.InstanceNorm2d(4, affine=True)
    ln = nn.LayerNorm([5])
    with torch.no_grad():
        for mod in (gn, inorm, ln):
            mod.weight.uniform_(0.5, 1.5)
            mod.bias.normal_(0, 0.3)
    mods = nn.ModuleList([gn, inorm, ln])

    def fn(x):
        return (torch.norm(x, dim=1), torch.norm(x, p=1, dim=(2, 3)), torch.linalg.norm(x.flatten(1), dim=1),
                F.normalize(x, dim=3), mods[0](x), mods[1](x), mods[2](x))
    model = Fn(fn)
    model.mods = mods
    return model, (torch.randn(2, 4, 3, 5),), ["x"], ["l2", "l1", "vector_norm", "normalize", "group_norm",
                                                        "instance_norm", "layer_norm"]


def interp(mode):
    def build():
        def fn(x):
            if mode == "nearest":
                return F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(5, 7), mode="nearest")
            return (F.interpolate(x, scale_factor=2, mode=mode, align_corners=False),
                    F.interpolate(x, size=(5, 7), mode=mode, align_corners=True))
        return Fn(fn), (torch.randn(1, 2, 4, 6),), ["x"], ["up2", "resized"]
    return build


def grid_sample():
    def fn(x, grid):
        return (F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False),
                F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=True))
    grid = torch.rand(1, 3, 5, 2) * 2.4 - 1.2
    return Fn(fn), (torch.randn(1, 2, 4, 6), grid), ["x", "grid"], ["bilinear", "nearest"]


def cumsum():
    def fn(x):
        return torch.cumsum(x, 1), torch.cumsum(x * 2 - 1, 0)
    # values that cancel: +-1e3 pairs with small remainders, so a running sum's error is relative
    # to the large terms, not to the small result.
    big = torch.randn(3, 8) * 1e3
    x = torch.stack([big, -big + torch.randn(3, 8)], 2).reshape(3, 16)
    return Fn(fn), (x,), ["x"], ["along_1", "along_0"]


MODELS = {
    "resnet_small": resnet_small,
    "mobilenet_v2_small": mobilenet_v2_small,
    "mobilenet_v3_small": mobilenet_v3_small,
    "densenet_small": densenet_small,
    "shufflenet_v2_small": shufflenet_small,
    "squeezenet_small": squeezenet_small,
    "efficientnet_small": efficientnet_small,
    "vit_block": vit_small,
    "swin_block": swin_small,
    "convnext_block": convnext_small,
    "transformer_encoder": transformer_encoder,
    "transformer_decoder": transformer_decoder,
    "gru_head": gru_head,
    "lstm_head": lstm_head,
    "vae_decoder": vae_decoder,
    "op_reductions": reductions,
    "op_loss_bce": loss_bce,
    "op_loss_kl": loss_kl,
    "op_loss_cross_entropy": loss_cross_entropy,
    "op_std_var": std_var,
    "op_einsum": einsum_ops,
    "op_matmul_family": matmul_family,
    "op_norms": norms,
    "op_interp_nearest": interp("nearest"),
    "op_interp_bilinear": interp("bilinear"),
    "op_interp_bicubic": interp("bicubic"),
    "op_grid_sample": grid_sample,
    "op_cumsum": cumsum,
}

# ---- onnxruntime: every node output ------------------------------------------------------------

ORT_TYPES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64", np.dtype(np.int64): "int64",
             np.dtype(np.int32): "int32", np.dtype(np.bool_): "bool", np.dtype(np.uint8): "uint8",
             np.dtype(np.int8): "int8"}
NP_TYPES = {v: k for k, v in ORT_TYPES.items()}


def with_every_node_output(model):
    """The model with each node output of the main graph (that shape inference types) added as a
    graph output, in node order; returns (model, names of the added outputs)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    typed = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    outs = {o.name for o in model.graph.output}
    m = onnx.ModelProto()
    m.CopyFrom(model)
    added = []
    for node in model.graph.node:
        for name in node.output:
            if name and name not in outs and name in typed and typed[name].type.HasField("tensor_type"):
                vi = onnx.ValueInfoProto()
                vi.CopyFrom(typed[name])
                vi.type.tensor_type.ClearField("shape")  # ORT's own shapes, not inference's guesses
                m.graph.output.append(vi)
                added.append(name)
    return m, added


class Ort:
    """Runs model variants on onnxruntime-node with one set of inputs."""

    def __init__(self, tmp, inputs):
        prefix = os.environ.get("ORT_PREFIX", "/tmp/ort-peer")
        self.env = dict(os.environ, NODE_PATH=os.path.join(prefix, "node_modules"))
        if not os.path.isdir(os.path.join(prefix, "node_modules", "onnxruntime-node")):
            sys.exit("onnxruntime-node is not installed in %s (see bench/peer_ort.sh)" % prefix)
        self.tmp = tmp
        spec = []
        for k, (name, arr) in enumerate(inputs):
            f = os.path.join(tmp, "in%d.bin" % k)
            np.array(arr, order="C").tofile(f)
            spec.append({"name": name, "type": ORT_TYPES[arr.dtype], "dims": list(arr.shape), "file": f})
        self.inputs_json = os.path.join(tmp, "inputs.json")
        with open(self.inputs_json, "w") as f:
            json.dump(spec, f)

    def run(self, models):
        """models: list of ModelProto; returns, for each, {output name: array} or None (ORT refused
        or failed on it)."""
        jobs = []
        for k, m in enumerate(models):
            d = os.path.join(self.tmp, "job%d" % k)
            os.makedirs(d, exist_ok=True)
            onnx.save(m, os.path.join(d, "model.onnx"))
            jobs += [os.path.join(d, "model.onnx"), d]
        subprocess.run(["node", os.path.join(HERE, "ort_outputs.js"), self.inputs_json] + jobs, check=True,
                       env=self.env)
        results = []
        for k in range(len(models)):
            d = os.path.join(self.tmp, "job%d" % k)
            with open(os.path.join(d, "outputs.json")) as f:
                manifest = json.load(f)
            if isinstance(manifest, dict):
                results.append(None)
            else:
                results.append({o["name"]: np.fromfile(o["file"], NP_TYPES[o["type"]]).reshape(o["dims"])
                                for o in manifest})
            shutil.rmtree(d)
        return results


# ---- faults ------------------------------------------------------------------------------------

UNARY_SWAP = {"Relu": "Sigmoid", "Sigmoid": "Tanh", "Tanh": "Sigmoid", "Erf": "Tanh", "Exp": "Softplus",
              "Log": "Neg", "Sqrt": "Abs", "Abs": "Relu", "Neg": "Abs", "Softplus": "Relu",
              "HardSwish": "Relu", "HardSigmoid": "Sigmoid", "Reciprocal": "Neg"}
BINARY_SWAP = {"Add": "Sub", "Sub": "Add", "Mul": "Add", "Div": "Mul", "Max": "Min", "Min": "Max",
               "Greater": "Less", "Less": "Greater"}
# Between reductions that take their axes the same way at opset 17 (ReduceSum takes them as an
# input, the others as an attribute).
REDUCE_SWAP = {"ReduceMean": "ReduceMax", "ReduceMax": "ReduceMin", "ReduceMin": "ReduceMax",
               "ReduceProd": "ReduceMax", "ReduceLogSumExp": "ReduceMax", "ReduceSumSquare": "ReduceL2",
               "ReduceL2": "ReduceL1", "ReduceL1": "ReduceL2"}
WEIGHTED = {"Conv": (1,), "ConvTranspose": (1,), "Gemm": (1,), "MatMul": (0, 1), "BatchNormalization": (1, 2),
            "LayerNormalization": (1, 2), "InstanceNormalization": (1,), "LSTM": (1, 2), "GRU": (1, 2),
            "Gather": (0,), "Add": (0, 1), "Mul": (0, 1)}
FIXED_ATTR_FAULTS = {"CumSum": [("exclusive", "i", "1"), ("reverse", "i", "1")],
                     "LSTM": [("input_forget", "i", "1"), ("clip", "f", "0.1")]}
EPSILON_OPS = ("BatchNormalization", "LayerNormalization", "InstanceNormalization")
# A Constant read only by these is a parameter of the arithmetic (a scale, a shift, a clamp), not
# a shape, an index or a Resize's scales: scaling it a little moves values a little.
ARITHMETIC = {"Add", "Sub", "Mul", "Div", "Pow", "MatMul", "Gemm", "Clip", "Max", "Min", "Where", "Sum"}


def attr_of(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def einsum_faults(node, shapes):
    """Equations of the same output shape: a repeated index (a diagonal) made a free one (a sum),
    or an operand's two last indices swapped where its last two dims are equal."""
    eq = attr_of(node, "equation").decode().replace(" ", "")
    lhs, rhs = eq.split("->")
    terms = lhs.split(",")
    unused = [c for c in "pqrstuvwxyz" if c not in eq]
    out = []
    for k, term in enumerate(terms):
        dims = shapes.get(node.input[k], ())
        for i, c in enumerate(term):
            if c in term[:i] and unused:
                out.append(",".join(terms[:k] + [term[:i] + unused[0] + term[i + 1:]] + terms[k + 1:]) + "->" + rhs)
                break
        if len(term) >= 2 and len(dims) == len(term) and dims[-1] == dims[-2] and term[-1] != term[-2]:
            out.append(",".join(terms[:k] + [term[:-2] + term[-1] + term[-2]] + terms[k + 1:]) + "->" + rhs)
    return out


def candidates(model, shapes):
    """Plausible single-node faults, as (category, node name, kind, args), in node order."""
    inits = {t.name: t for t in model.graph.initializer}
    readers = {}
    for node in model.graph.node:
        for i in node.input:
            readers.setdefault(i, []).append(node)
    out = []
    for node in model.graph.node:
        t, n = node.op_type, node.name
        rank = len(shapes.get(node.output[0], ())) if node.output else 0
        if t in EPSILON_OPS:
            out.append(("attr", n, "attr", ["epsilon", "f", "0.1"]))
        if t == "Gemm":
            out.append(("attr", n, "attr", ["alpha", "f", "0.5"]))
        if t in ("LeakyRelu", "Elu", "HardSigmoid"):
            out.append(("attr", n, "attr", ["alpha", "f", str(attr_of(node, "alpha", 0.2) * 1.5)]))
        if t in ("Softmax", "LogSoftmax") and rank >= 2:  # (an axis of the same shape)
            axis = attr_of(node, "axis", -1) % rank
            dims = shapes.get(node.output[0], ())
            for other in range(rank):
                if other != axis and dims[other] > 1:
                    out.append(("attr", n, "attr", ["axis", "i", str(other)]))
                    break
        if t == "Resize":
            mode = attr_of(node, "mode", b"nearest").decode()
            for other in {"nearest": ["linear"], "linear": ["nearest", "cubic"], "cubic": ["linear"]}[mode]:
                out.append(("attr", n, "attr", ["mode", "s", other]))
            ctm = attr_of(node, "coordinate_transformation_mode", b"half_pixel").decode()
            for other in ("align_corners", "asymmetric", "half_pixel"):
                if other != ctm:
                    out.append(("attr", n, "attr", ["coordinate_transformation_mode", "s", other]))
            if mode == "nearest":
                out.append(("attr", n, "attr", ["nearest_mode", "s", "ceil"]))
            if mode == "cubic":
                out.append(("attr", n, "attr", ["cubic_coeff_a", "f", "-0.5"]))
                out.append(("attr", n, "attr", ["exclude_outside", "i", "1"]))
        if t == "GridSample":
            out.append(("attr", n, "attr", ["align_corners", "i", str(1 - attr_of(node, "align_corners", 0))]))
            mode = attr_of(node, "mode", b"bilinear").decode()
            out.append(("attr", n, "attr", ["mode", "s", "nearest" if mode != "nearest" else "bilinear"]))
            pm = attr_of(node, "padding_mode", b"zeros").decode()
            out.append(("attr", n, "attr", ["padding_mode", "s", "reflection" if pm != "reflection" else "zeros"]))
        if t in ("SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"):
            red = attr_of(node, "reduction", b"mean").decode()
            if red != "none":
                out.append(("attr", n, "attr", ["reduction", "s", "sum" if red == "mean" else "mean"]))
            out.append(("attr", n, "attr", ["ignore_index", "i", str(attr_of(node, "ignore_index", -1) + 1)]))
        if t == "Einsum":
            out += [("attr", n, "attr", ["equation", "s", e]) for e in einsum_faults(node, shapes)]
        out += [("attr", n, "attr", list(a)) for a in FIXED_ATTR_FAULTS.get(t, ())]
        if t == "GRU":
            out.append(("attr", n, "attr", ["linear_before_reset", "i", str(1 - attr_of(node, "linear_before_reset", 0))]))
        if t in ("Conv", "MaxPool", "AveragePool", "ConvTranspose"):
            pads = attr_of(node, "pads")
            if pads and pads[0] > 0:
                out.append(("pads", n, "pads", ["shift"]))
        if t == "Conv":
            w = inits.get(node.input[1])
            dil = attr_of(node, "dilations", [1])
            if w is not None and len(w.dims) >= 3 and w.dims[2] == 3 and dil[0] == 1:
                out.append(("dilation", n, "dilation", ["2"]))
        if t in UNARY_SWAP:
            out.append(("op", n, "op", [UNARY_SWAP[t]]))
        if t in BINARY_SWAP:
            out.append(("op", n, "op", [BINARY_SWAP[t]]))
        if t in REDUCE_SWAP:
            out.append(("op", n, "op", [REDUCE_SWAP[t]]))
        for k in WEIGHTED.get(t, ()):
            if k < len(node.input) and node.input[k] in inits:
                w = inits[node.input[k]]
                if w.data_type == onnx.TensorProto.FLOAT and np.prod(w.dims) > 1:
                    out.append(("weight", n, "weight", [str(k), "1.05"]))
                    if t not in ("LSTM", "GRU"):  # a recurrence has two: input and recurrent
                        break
        if t == "Constant" and all(c.op_type in ARITHMETIC for c in readers.get(node.output[0], [])):
            v = attr_of(node, "value")
            if v is not None and v.data_type == onnx.TensorProto.FLOAT and np.any(nh.to_array(v) != 0):
                out.append(("const", n, "const", ["1.05"]))
    return out


def relative_change(a, b):
    """max |a - b| over the largest |a| (arrays of one shape); inf when b is not finite or the
    shape changed."""
    if a.shape != b.shape:
        return float("inf")
    if a.dtype == np.bool_ or np.issubdtype(a.dtype, np.integer):
        return float(np.any(a != b))
    if not np.all(np.isfinite(b)) and np.all(np.isfinite(a)):
        return float("inf")
    scale = float(np.max(np.abs(a.astype(np.float64)))) if a.size else 0.0
    d = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0
    return d / scale if scale > 0 else (float("inf") if d > 0 else 0.0)


def mutated(model, node, kind, args):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    return mutate.apply(m, node, kind, args)


def choose_faults(model, aug, ref, ort, output_names, shapes):
    """Screens candidates on onnxruntime and keeps up to 7, spread over categories and over the
    graph: a fault is kept when it moves its own node's output by at least 1e-3 of that output's
    largest magnitude (about 1e4 ulp: far above f32 noise), stays finite, and keeps shapes."""
    cands = candidates(model, shapes)
    # At most 8 per category, evenly spaced through the graph, to bound the screening runs.
    by_cat = {}
    for c in cands:
        by_cat.setdefault(c[0], []).append(c)
    screened = []
    for cat, cs in by_cat.items():
        pick = cs if len(cs) <= 8 else [cs[int(round(i * (len(cs) - 1) / 7))] for i in range(8)]
        screened += pick
    variants = []
    for cat, node, kind, args in screened:
        try:
            variants.append(mutated(aug, node, kind, args))
        except ValueError:
            variants.append(None)
    results = ort.run([v for v in variants if v is not None])
    it = iter(results)
    node_outputs = {n.name: [o for o in n.output if o] for n in model.graph.node}
    kept = []
    for (cat, node, kind, args), v in zip(screened, variants):
        r = next(it) if v is not None else None
        if r is None:
            continue
        own = [relative_change(ref[o], r[o]) for o in node_outputs[node] if o in ref and o in r]
        if not own or not all(np.isfinite(own)) or max(own) < 1e-3:
            continue
        outs = [relative_change(ref[o], r[o]) for o in output_names]
        if not all(np.isfinite(outs)):
            continue
        kept.append((cat, node, kind, args, max(own), max(outs)))
    # Round-robin over categories so each model gets varied faults.
    chosen, queues = [], {}
    for k in kept:
        queues.setdefault(k[0], []).append(k)
    for q in queues.values():  # from the middle of the graph outwards
        q.sort(key=lambda k: abs(kept.index(k) - len(kept) / 2))
    while len(chosen) < 7 and any(queues.values()):
        for cat in list(queues):
            if queues[cat] and len(chosen) < 7:
                chosen.append(queues[cat].pop(0))
    order = [n.name for n in model.graph.node]
    chosen.sort(key=lambda k: order.index(k[1]))
    return chosen


def subtle_and_noise(model, aug, ref, ort, output_names, shapes):
    """The weight fault of the subtle test: the weighted node nearest the middle of the graph
    whose slice-0 scaling moves the outputs. Returns (node, fault without its scale ("weight K" or
    "const"), sensitivity: max |output change| per unit of delta, measured at delta 1e-2), or
    None."""
    cands = candidates(model, shapes)
    # A model without weights (single-op exports): its float Constants are its parameters.
    weights = [c for c in cands if c[0] == "weight"] or [c for c in cands if c[0] == "const"]
    if not weights:
        return None
    mid = len(weights) / 2
    weights = [w for _, w in sorted(enumerate(weights), key=lambda iw: abs(iw[0] - mid))][:4]
    # Measured at delta 1e-2: a slice that barely reaches the outputs (e.g. behind a saturated
    # sigmoid) gives a rounding-noise "sensitivity", so the first candidate whose effect is at
    # least 1e-4 of the outputs' largest magnitude is taken, else the one of largest effect.
    results = ort.run([mutated(aug, n, k, a[:-1] + ["1.01"]) for _, n, k, a in weights])
    largest = max(float(np.max(np.abs(ref[o].astype(np.float64)))) if ref[o].size else 0.0 for o in output_names)
    best = None
    for (_, node, kind, args), r in zip(weights, results):
        if r is None:
            continue
        d = max(float(np.max(np.abs(ref[o].astype(np.float64) - r[o].astype(np.float64)))) if ref[o].size else 0.0
                for o in output_names)
        cand = (node, " ".join([kind] + args[:-1]), d / 1e-2)
        if d >= 1e-4 * largest:
            return cand
        if d > 0 and (best is None or cand[2] > best[2]):
            best = cand
    return best


# ---- one model ---------------------------------------------------------------------------------


def to_numpy(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


def make(name, builder, out_root):
    seed = sum(ord(c) for c in name)  # per-model, so adding a model changes no other
    torch.manual_seed(seed)
    module, inputs, in_names, out_names = builder()
    calibrate_batchnorm(module, inputs)
    module.eval()
    out = os.path.join(out_root, name)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    path = os.path.join(out, "model.onnx")
    # Exported with grad mode on (the traced composite path, not torch's fused inference paths).
    torch.onnx.export(module, inputs, path, input_names=in_names, output_names=out_names, opset_version=OPSET,
                      do_constant_folding=True)
    with torch.no_grad():
        ys = module(*inputs)
    ys = ys if isinstance(ys, tuple) else (ys,)
    np_inputs = [(n, to_numpy(x)) for n, x in zip(in_names, inputs)]
    model = onnx.load(path)
    graph_inputs = [i.name for i in model.graph.input]
    graph_outputs = [o.name for o in model.graph.output]
    np_inputs = [(n, a) for n, a in np_inputs if n in graph_inputs]  # inputs the export kept
    write_case(out, path, np_inputs, [(n, to_numpy(y)) for n, y in zip(graph_outputs, ys)])

    aug, added = with_every_node_output(model)
    with tempfile.TemporaryDirectory() as tmp:
        ort = Ort(tmp, np_inputs)
        (ref,) = ort.run([aug])
        if ref is None:
            sys.exit("%s: onnxruntime refused the export" % name)
        os.makedirs(os.path.join(out, "nodes"))
        for k, n in enumerate(added):
            with open(os.path.join(out, "nodes", "t%d.pb" % k), "wb") as f:
                f.write(nh.from_array(np.array(ref[n], order="C"), name=n).SerializeToString())
        ort_vs_torch = max(float(np.max(np.abs(ref[o].astype(np.float64) - to_numpy(y).astype(np.float64))))
                           if ref[o].size else 0.0 for o, y in zip(graph_outputs, ys))
        shapes = dict({n: a.shape for n, a in np_inputs}, **{k: v.shape for k, v in ref.items()})
        faults = choose_faults(model, aug, ref, ort, graph_outputs, shapes)
        subtle = subtle_and_noise(model, aug, ref, ort, graph_outputs, shapes)
        n1 = None
        if subtle is not None:
            node, k, _ = subtle
            n1 = [node] + k.split() + ["%.17g" % (1 + 2.0 ** -22)]
            n1_exits = "0 0"
            if k == "const":
                # A Constant's own output is an expected value with intermediates, compared
                # exactly: moved by an ulp it truly differs (not tested). Outputs only, it is
                # below noise where its effect on the outputs is at most |onnxruntime - torch|.
                (r,) = ort.run([mutated(aug, node, "const", n1[2:])])
                effect = max(float(np.max(np.abs(ref[o].astype(np.float64) - r[o].astype(np.float64))))
                             if ref[o].size else 0.0 for o in graph_outputs)
                n1_exits = "- 0" if effect <= ort_vs_torch else "- -"
    with open(os.path.join(out, "faults.txt"), "w") as f:
        f.write("# made by tests/models/make_real_models.py; measured on onnxruntime-node (f32)\n"
                "# id  exit_with_intermediates  exit_outputs_only  node  fault...  # effect\n"
                "# exit 1 with intermediates: 'first divergence' names the node; '-': not tested (the\n"
                "# fault's effect at the outputs is below 1e-3 of their largest magnitude)\n")
        for k, (cat, node, kind, args, own, outs) in enumerate(faults):
            out_exit = "1" if outs >= 1e-3 else ("0" if outs == 0 else "-")
            f.write("F%d 1 %s %s %s %s  # node output moved by %.2g, outputs by %.2g (relative)\n"
                    % (k + 1, out_exit, node, kind, " ".join(args), own, outs))
        if subtle is not None:
            node, k, sens = subtle
            # Below noise: slice 0 scaled by 1 + 2^-22 (each weight moves by 1 or 2 ulp).
            f.write("N1 %s %s  # below noise\n" % (n1_exits, " ".join(n1)))
            f.write("S1 - 1 %s %s subtle %.6g  # max |output change| per unit delta\n" % (node, k, sens))
    nbytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    ops = sorted({n.op_type for n in model.graph.node})
    return "%-24s nodes=%-4d bytes=%-8d faults=%d subtle=%s max|ort-torch|=%.3g ops=%s" % (
        name, len(model.graph.node), nbytes, len(faults), "yes" if subtle else "no", ort_vs_torch, ",".join(ops))


def main(argv):
    only = None
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--only":
        only = set(args[1].split(","))
        args = args[2:]
    out_root = args[0] if args else HERE
    torch.set_num_threads(1)
    lines = []
    for name, builder in MODELS.items():
        if only and name not in only:
            continue
        line = make(name, builder, out_root)
        print(line, flush=True)
        lines.append(line)
    if not only:
        with open(os.path.join(out_root, "real_models.txt"), "w") as f:
            f.write("# made by tests/models/make_real_models.py\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv)
