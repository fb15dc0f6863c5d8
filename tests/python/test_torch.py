#!/usr/bin/python3
"""plumb.torch on real torch modules (Debian's python3-torch 1.13 and python3-torchvision 0.14,
random weights, fixed seeds, small inputs): the correct export of each model must give "match";
each of three faults (one node of the export edited with the onnx API: an attribute, or the op
type where the node has none that keeps the shape) must give "mismatch" naming that node.

    PYTHONPATH=build/python /usr/bin/python3 tests/python/test_torch.py SOURCE_DIR MODEL PLUMB_BIN

MODEL: resnet18, mobilenet_v3_small, transformer_encoder or gru. Exits 77 (skipped) without torch.
plumb.torch.dump's layout is checked with the CLI (PLUMB_BIN) too: it must match there as well."""
import copy
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
try:
    import torch
    import torchvision
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)
import onnx  # noqa: E402

import plumb  # noqa: E402
import plumb.torch  # noqa: E402

SOURCE, NAME, PLUMB_BIN = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(SOURCE, "tests", "models"))
import make_real_models  # noqa: E402
import mutate  # noqa: E402

nn = torch.nn


def random_batchnorm(model, shape):
    """Random BatchNorm scales, shifts and statistics (tests/models' own), so that the exporter's
    folding of each BatchNorm into its Conv changes the Conv's weights."""
    make_real_models.randomize_batchnorm(model)
    make_real_models.calibrate_batchnorm(model, [torch.randn(*shape)])
    return model


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.enc(x))


class GruHead(nn.Module):  # Conv1d features, a GRU over time, a classifier on the last step
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 16, 3, padding=1)
        self.gru = nn.GRU(16, 12)
        self.fc = nn.Linear(12, 5)

    def forward(self, x):
        f = torch.relu(self.conv(x)).permute(2, 0, 1)  # (time, batch, features)
        y, h = self.gru(f)
        return self.fc(y[-1]), h


# name -> (module builder, input shape, faults: (node, mutate.py kind, args))
MODELS = {
    "resnet18": (lambda: random_batchnorm(torchvision.models.resnet18(num_classes=10), (1, 3, 32, 32)), (1, 3, 32, 32), [
        ("/layer1/layer1.0/conv2/Conv", "pads", []),
        ("/layer2/layer2.1/conv1/Conv", "dilation", ["2"]),
        ("/fc/Gemm", "attr", ["alpha", "f", "1.5"]),
    ]),
    "mobilenet_v3_small": (lambda: random_batchnorm(torchvision.models.mobilenet_v3_small(num_classes=10), (1, 3, 32, 32)),
                           (1, 3, 32, 32), [
        ("/features/features.1/block/block.0/block.0.0/Conv", "pads", []),
        ("/features/features.1/block/block.1/scale_activation/HardSigmoid", "attr", ["alpha", "f", "0.3"]),
        ("/features/features.4/block/block.1/block.1.0/Conv", "dilation", ["2"]),
    ]),
    "transformer_encoder": (Encoder, (2, 5, 16), [
        ("/enc/layers.0/norm1/LayerNormalization", "attr", ["axis", "i", "-2"]),
        ("/enc/layers.0/Relu", "op", ["Sigmoid"]),
        ("/enc/layers.1/norm2/LayerNormalization", "attr", ["epsilon", "f", "0.5"]),
    ]),
    "gru": (GruHead, (2, 8, 6), [
        ("/conv/Conv", "pads", []),
        ("/gru/GRU", "attr", ["linear_before_reset", "i", "0"]),
        ("/fc/Gemm", "attr", ["alpha", "f", "1.5"]),
    ]),
}


# resnet18 (11M weights) takes ~25 s per two stochastic samples on 2 cores: its
# correct export is checked with the default samples (the false-alarm test), its faults (local
# errors far above the noise) with fewer, and the one-call API and the CLI on dump() are tested on
# the small models only.
HEAVY = ("resnet18",)
FAULT_SAMPLES = 3


def main():
    build, shape, faults = MODELS[NAME]
    torch.manual_seed(0)
    module = build().eval()
    x = torch.randn(*shape)
    t0 = time.time()
    exp = plumb.torch.export(module, (x,), opset=17)
    print("%s: exported, %d intermediates mapped, %d torch values not (%.1f s)"
          % (NAME, len(exp.intermediates), len(exp.unmapped), time.time() - t0))
    for line in exp.unmapped:
        print("  unmapped: " + line)
    failures = []
    t0 = time.time()
    r = plumb.torch.check_export(exp)
    print("%s: correct export: %s (%d tensors, %.1f s)" % (NAME, r.verdict, len(r.tensors), time.time() - t0))
    if r.verdict != "match":
        print(r)
        failures.append("the correct export gives %s, not match" % r.verdict)
    if len(r.tensors) < 2 + len(exp.output_names):
        failures.append("only %d tensors compared" % len(r.tensors))

    heavy = NAME in HEAVY
    if not heavy:  # the same through the one-call API
        r1 = plumb.torch.check(module, (x,), opset=17)
        if r1.verdict != "match" or len(r1.tensors) != len(r.tensors):
            failures.append("plumb.torch.check gives %s on %d tensors" % (r1.verdict, len(r1.tensors)))

    base = onnx.load_from_string(exp.onnx)
    for node, kind, args in faults:
        m = mutate.apply(copy.deepcopy(base), node, kind, args)
        t0 = time.time()
        r = plumb.torch.check_export(exp, m, samples=FAULT_SAMPLES if heavy else None)
        fd = r.first_divergence
        got = fd.node if fd and fd.node else (fd.text if fd else "-")
        print("%s: fault %s %s %s: %s at %s (%.1f s)" % (NAME, node, kind, " ".join(args), r.verdict, got,
                                                         time.time() - t0))
        if r.verdict != "mismatch" or fd is None or fd.node != node:
            print(r)
            failures.append("fault %s %s %s: %s at %s" % (node, kind, args, r.verdict, got))

    # dump(): the ONNX test layout, checked by the CLI.
    with tempfile.TemporaryDirectory() as tmp:
        if heavy:
            plumb.torch.dump(module, (x,), tmp, opset=17)
            return finish(failures)
        d = plumb.torch.dump(module, (x,), tmp, opset=17)
        data = os.path.join(tmp, "test_data_set_0")
        files = sorted(os.listdir(data))
        want = len(d.inputs) + len(d.outputs) + len(d.intermediates)
        if len(files) != want or "model.onnx" not in os.listdir(tmp):
            failures.append("dump wrote %d files, not %d" % (len(files), want))
        p = subprocess.run([PLUMB_BIN, "check", os.path.join(tmp, "model.onnx"), "--data", data],
                           capture_output=True, text=True)
        if p.returncode != 0:
            failures.append("plumb check on the dump exits %d: %s" % (p.returncode, p.stdout + p.stderr))
    # Repeated calls (resnet's relu, twice per block: scope relu_1) and tuple outputs (the GRU's
    # (y, h): h is a graph output, y the Squeeze after the GRU node) are mapped.
    want = {"resnet18": ("/layer1/layer1.0/relu_1/Relu_output_0", "layer1.0.relu output 0"),
            "gru": ("/gru/Squeeze_output_0", "gru output 0")}.get(NAME)
    if want and exp.mapped.get(want[0]) != want[1]:
        failures.append("%s is mapped to %s, not %s" % (want[0], exp.mapped.get(want[0]), want[1]))
    if NAME == "resnet18":  # the exporter folds every BatchNorm into its Conv: said, not compared
        folded = [u for u in exp.unmapped if "folded the BatchNorm" in u]
        if len(folded) < 20 or not any("'layer1.0.conv1'" in u for u in folded):
            failures.append("the folded Conv outputs are not listed as unmapped: %s" % folded)
    finish(failures)


def finish(failures):
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
