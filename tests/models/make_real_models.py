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
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper as nh
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ort_peer import Ort, with_every_node_output  # noqa: E402
from real_faults import choose_faults, mutated, subtle_and_noise  # noqa: E402
from real_model_zoo import MODELS, calibrate_batchnorm, randomize_batchnorm  # noqa: E402,F401
from test_layout import write_case  # noqa: E402

OPSET = 17

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