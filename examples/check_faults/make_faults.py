#!/usr/bin/python3
"""Makes the injected-fault fixtures of tests/cli/check_faults.sh: small ONNX models (built with
onnx.helper), torch's float32 values of their inputs, outputs and every intermediate (computed
independently of plumb, by torch), and single-node mutations of each model of the kinds real
converter bugs have (wrong axis, swapped inputs, changed alpha / epsilon / dilation).

    /usr/bin/python3 examples/check_faults/make_faults.py examples/check_faults

For each model <m>/: model.onnx, data/ (input_0.pb, output_0.pb, one <tensor>.pb per
intermediate), data_noise/ (every expected value moved by about 2 ulp: below noise),
data_reassoc/ (every sum evaluated in another association order: below noise), and
model_<fault>.onnx. cases.txt lists `model data exit_code first_divergence_node` per case.
Deterministic (fixed seeds)."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh
import torch
from onnx import TensorProto, helper

F = torch.float32


def init(name, arr):
    return nh.from_array(np.ascontiguousarray(arr, dtype=np.float32), name=name)


def save(arr, name, path):
    t = nh.from_array(np.ascontiguousarray(arr), name=name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


# ---- model "block": MatMul, Add, LeakyRelu, ReduceMean, Sub, LayerNormalization, Concat, Softmax
def block_model(rng):
    w1 = rng.standard_normal((8, 16)).astype(np.float32) * 0.5
    b1 = rng.standard_normal(16).astype(np.float32) * 0.1
    gamma = (1 + 0.1 * rng.standard_normal(16)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(16)).astype(np.float32)
    w2 = rng.standard_normal((32, 6)).astype(np.float32) * 0.3
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["mm1"], name="mm1_node"),
        helper.make_node("Add", ["mm1", "b1"], ["add1"], name="add1_node"),
        helper.make_node("LeakyRelu", ["add1"], ["act"], name="leaky", alpha=0.1),
        helper.make_node("ReduceMean", ["act"], ["mean"], name="reduce_mean", axes=[1], keepdims=1),
        helper.make_node("Sub", ["act", "mean"], ["centered"], name="center"),
        helper.make_node("LayerNormalization", ["centered", "gamma", "beta"], ["ln"], name="ln_node",
                         axis=-1, epsilon=1e-5),
        helper.make_node("Concat", ["ln", "act"], ["cat"], name="concat", axis=1),
        helper.make_node("MatMul", ["cat", "w2"], ["logits"], name="mm2_node"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [4, 6])],
        [init("w1", w1), init("b1", b1), init("gamma", gamma), init("beta", beta), init("w2", w2)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((4, 8)).astype(np.float32)

    def run(reassoc):
        t = {k: torch.tensor(v) for k, v in dict(x=x, w1=w1, b1=b1, gamma=gamma, beta=beta, w2=w2).items()}
        v = {}

        def mm(a, b):
            if not reassoc:
                return a @ b
            k = a.shape[1] // 2  # two partial products, summed last
            return a[:, k:] @ b[k:] + a[:, :k] @ b[:k]

        v["mm1"] = mm(t["x"], t["w1"])
        v["add1"] = v["mm1"] + t["b1"]
        v["act"] = torch.nn.functional.leaky_relu(v["add1"], 0.1)
        if reassoc:
            v["mean"] = torch.flip(v["act"], [1]).sum(1, keepdim=True) / 16
        else:
            v["mean"] = v["act"].mean(1, keepdim=True)
        v["centered"] = v["act"] - v["mean"]
        v["ln"] = torch.nn.functional.layer_norm(v["centered"], (16,), t["gamma"], t["beta"], 1e-5)
        v["cat"] = torch.cat([v["ln"], v["act"]], 1)
        v["logits"] = mm(v["cat"], t["w2"])
        v["probs"] = torch.softmax(v["logits"], -1)
        return {k: a.numpy() for k, a in v.items()}

    faults = {
        "softmax_axis": ("softmax", lambda n: n.attribute[0].__setattr__("i", 0)),
        "reduce_axis": ("reduce_mean", lambda n: n.attribute[0].ints.__setitem__(0, 0)),
        "sub_swapped": ("center", lambda n: n.input.reverse()),
        "leaky_alpha": ("leaky", lambda n: n.attribute[0].__setattr__("f", 0.2)),
        "ln_epsilon": ("ln_node", lambda n: [a.__setattr__("f", 1e-1) for a in n.attribute if a.name == "epsilon"]),
    }
    return model, x, run, faults


# ---- model "conv": Conv, Relu, MaxPool, Flatten, Gemm
def conv_model(rng):
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3
    b = rng.standard_normal(4).astype(np.float32) * 0.1
    wf = rng.standard_normal((64, 5)).astype(np.float32) * 0.2
    bf = rng.standard_normal(5).astype(np.float32) * 0.1
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["conv"], name="conv_node", pads=[1, 1, 1, 1],
                         dilations=[1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu_node"),
        helper.make_node("MaxPool", ["relu"], ["pool"], name="pool_node", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten_node", axis=1),
        helper.make_node("Gemm", ["flat", "wf", "bf"], ["y"], name="fc_node", alpha=1.0, beta=1.0),
    ]
    graph = helper.make_graph(
        nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        [init("w", w), init("b", b), init("wf", wf), init("bf", bf)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)

    def run(reassoc):
        tx, tw, tb = torch.tensor(x), torch.tensor(w), torch.tensor(b)
        v = {}
        if reassoc:  # input channels summed in another order: channel 2 first, then 0 and 1
            v["conv"] = (torch.nn.functional.conv2d(tx[:, 2:], tw[:, 2:], None, padding=1) +
                         torch.nn.functional.conv2d(tx[:, :2], tw[:, :2], tb, padding=1))
        else:
            v["conv"] = torch.nn.functional.conv2d(tx, tw, tb, padding=1)
        v["relu"] = torch.relu(v["conv"])
        v["pool"] = torch.nn.functional.max_pool2d(v["relu"], 2, 2)
        v["flat"] = v["pool"].reshape(2, -1)
        twf, tbf = torch.tensor(wf), torch.tensor(bf)
        v["y"] = (v["flat"][:, 32:] @ twf[32:] + v["flat"][:, :32] @ twf[:32] + tbf) if reassoc else v["flat"] @ twf + tbf
        return {k: a.numpy() for k, a in v.items()}

    def dilate(n):
        for a in n.attribute:
            if a.name == "dilations":
                a.ints[:] = [2, 2]
            if a.name == "pads":
                a.ints[:] = [2, 2, 2, 2]

    faults = {
        "conv_dilation": ("conv_node", dilate),
        "gemm_alpha": ("fc_node", lambda n: [a.__setattr__("f", 0.5) for a in n.attribute if a.name == "alpha"]),
    }
    return model, x, run, faults


def write_data(folder, x, values, output, rng=None):
    os.makedirs(folder, exist_ok=True)
    save(x, "x", os.path.join(folder, "input_0.pb"))
    for name, arr in values.items():
        if rng is not None:  # about 2 ulp of f32, either sign
            arr = (arr * (1 + rng.choice([-2.0, 2.0], arr.shape) * 2.0 ** -24)).astype(np.float32)
        save(arr, name, os.path.join(folder, "output_0.pb" if name == output else name + ".pb"))


def main(out):
    torch.manual_seed(0)
    cases = []
    for label, build, output in (("block", block_model, "probs"), ("conv", conv_model, "y")):
        rng = np.random.default_rng(11)
        model, x, run, faults = build(rng)
        onnx.checker.check_model(model)
        d = os.path.join(out, label)
        os.makedirs(d, exist_ok=True)
        onnx.save(model, os.path.join(d, "model.onnx"))
        write_data(os.path.join(d, "data"), x, run(False), output)
        write_data(os.path.join(d, "data_noise"), x, run(False), output, np.random.default_rng(5))
        write_data(os.path.join(d, "data_reassoc"), x, run(True), output)
        cases += [f"{label}/model.onnx {label}/data 0 -", f"{label}/model.onnx {label}/data_noise 0 -",
                  f"{label}/model.onnx {label}/data_reassoc 0 -"]
        for fault, (node_name, mutate) in faults.items():
            m = onnx.ModelProto()
            m.CopyFrom(model)
            node = next(n for n in m.graph.node if n.name == node_name)
            mutate(node)
            onnx.save(m, os.path.join(d, f"model_{fault}.onnx"))
            cases.append(f"{label}/model_{fault}.onnx {label}/data 1 {node_name}")
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("# model data expected_exit first_divergence_node (made by make_faults.py)\n")
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
