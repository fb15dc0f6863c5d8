"""The real architectures and single-op / short-sequence models of plumb check's real-model test
set (make_real_models.py): each builder returns (module, inputs, input names, output names), with
random weights (make_real_models.py seeds torch per model) at sizes where every node output of a
model fits in well under 1 MB and plumb check runs in about a second."""
import torch
import torchvision.models as tvm
from torchvision.models import convnext, efficientnet, mobilenetv3, resnet, squeezenet, swin_transformer
from torchvision.models import vision_transformer

nn = torch.nn
F = torch.nn.functional
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
