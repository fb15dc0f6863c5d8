#!/usr/bin/python3
"""Makes, at test time, the cases of tests/cli/check_real_*.sh from one committed real model
(tests/models/<name>/, made by make_real_models.py); nothing it writes is committed.

    real_cases.py full MODEL_DIR OUT_DIR
        OUT_DIR: the expected values with every intermediate: torch's outputs (data/output_*.pb)
        and onnxruntime's node outputs (nodes/*.pb).
    real_cases.py wrong MODEL_DIR OUT_DIR
        OUT_DIR/<variant>/output_<k>.pb for each wrong-output variant that differs from the
        original: zeros (every float output zeroed), shuffled (each output of more than one
        distinct value permuted), scaled (float outputs times 1.01), moved (one element of the
        first float output moved by 1% of that output's largest magnitude). Prints the variants.
    real_cases.py faults MODEL_DIR OUT_DIR
        OUT_DIR/<id>.onnx for each fault of faults.txt (the subtle one excepted). Prints
        "<id> <exit with intermediates> <exit outputs only> <node>" per fault.
    real_cases.py subtle MODEL_DIR PLUMB OUT.onnx
        The subtle fault: slice 0 of the weight (or Constant) that faults.txt's S1 line names,
        scaled by 1 + delta, delta the smallest whose effect on the outputs is 100x the
        difference between plumb's native run and torch (the line's sensitivity, measured on
        onnxruntime, gives a first delta; it is doubled until `PLUMB run` of OUT.onnx moves the
        outputs by 100x that difference). Prints the numbers; exit 3 when the model has no S1.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.numpy_helper as nh

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate  # noqa: E402


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, nh.to_array(t)


def write_pb(path, name, arr):
    with open(path, "wb") as f:
        f.write(nh.from_array(np.array(arr, order="C"), name=name).SerializeToString())


def outputs(data_dir):
    out, k = [], 0
    while os.path.exists(os.path.join(data_dir, "output_%d.pb" % k)):
        out.append(read_pb(os.path.join(data_dir, "output_%d.pb" % k)))
        k += 1
    return out


def is_float(a):
    return np.issubdtype(a.dtype, np.floating)


def fault_lines(model_dir):
    with open(os.path.join(model_dir, "faults.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                yield line


def cmd_full(model_dir, out):
    os.makedirs(out, exist_ok=True)
    for sub, pick in (("data", lambda n: n.startswith("output_")), ("nodes", lambda n: True)):
        if not os.path.isdir(os.path.join(model_dir, sub)):
            continue  # no nodes/: every node output is a graph output (op_grid_sample)
        for n in sorted(os.listdir(os.path.join(model_dir, sub))):
            if n.endswith(".pb") and pick(n):
                shutil.copy(os.path.join(model_dir, sub, n), os.path.join(out, sub + "_" + n))


def cmd_wrong(model_dir, out):
    outs = outputs(os.path.join(model_dir, "data"))
    rng = np.random.default_rng(12)
    variants = {"zeros": [], "shuffled": [], "scaled": [], "moved": []}
    first_float = next((k for k, (_, a) in enumerate(outs) if is_float(a) and a.size), None)
    for k, (name, a) in enumerate(outs):
        variants["zeros"].append(np.zeros_like(a) if is_float(a) else a)
        flat = a.reshape(-1).copy()
        if np.unique(flat).size > 1:
            perm = rng.permutation(flat.size)
            while np.array_equal(flat[perm], flat):
                perm = rng.permutation(flat.size)
            variants["shuffled"].append(flat[perm].reshape(a.shape))
        else:
            variants["shuffled"].append(a)
        variants["scaled"].append((a.astype(np.float64) * 1.01).astype(a.dtype) if is_float(a) else a)
        moved = a.copy()
        if k == first_float:
            i = flat.size // 2
            moved.reshape(-1)[i] = np.float64(moved.reshape(-1)[i]) + 0.01 * float(np.max(np.abs(a)))
        variants["moved"].append(moved)
    for v, arrays in variants.items():
        if all(np.array_equal(x, y) for x, (_, y) in zip(arrays, outs)):
            continue  # e.g. zeros of outputs that are all zero: not a wrong value
        os.makedirs(os.path.join(out, v), exist_ok=True)
        for k, ((name, _), arr) in enumerate(zip(outs, arrays)):
            write_pb(os.path.join(out, v, "output_%d.pb" % k), name, arr)
        print(v)


def cmd_faults(model_dir, out):
    os.makedirs(out, exist_ok=True)
    model = onnx.load(os.path.join(model_dir, "model.onnx"))
    for fid, exit_full, exit_outputs, node, kind, *args in fault_lines(model_dir):
        if "subtle" in args:
            continue
        m = onnx.ModelProto()
        m.CopyFrom(model)
        mutate.apply(m, node, kind, args)
        onnx.save(m, os.path.join(out, fid + ".onnx"))
        print(fid, exit_full, exit_outputs, node)


def cmd_subtle(model_dir, plumb, out_model):
    line = next((l for l in fault_lines(model_dir) if "subtle" in l), None)
    if line is None:
        print("no subtle fault (the model has no weight or float Constant)")
        sys.exit(3)
    _, _, _, node, kind, *rest = line
    args, sensitivity = rest[:rest.index("subtle")], float(rest[-1])
    data = os.path.join(model_dir, "data")
    torch_out = [a for _, a in outputs(data)]
    model = onnx.load(os.path.join(model_dir, "model.onnx"))
    with tempfile.TemporaryDirectory() as tmp:
        def run(path):
            d = tempfile.mkdtemp(dir=tmp)
            r = subprocess.run([plumb, "run", path, "--data", data, "--out", d], capture_output=True, text=True)
            if r.returncode != 0:
                print("plumb run %s: exit %d: %s" % (path, r.returncode, (r.stderr or r.stdout).strip()[:300]))
                sys.exit(4)
            return [a for _, a in outputs(d)]

        def max_diff(xs, ys):
            return max((float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) for x, y in zip(xs, ys)
                        if is_float(x) and x.size), default=0.0)

        native = run(os.path.join(model_dir, "model.onnx"))
        largest = max(float(np.max(np.abs(a))) for a in torch_out if is_float(a) and a.size)
        # Two correct f32 implementations; at least half an ulp of the largest output, so that a
        # bit-exact pair still asks for an effect above f32 resolution.
        noise = max(max_diff(native, torch_out), largest * 2.0 ** -24)
        delta, effect = 100 * noise / sensitivity, 0.0
        while delta <= 0.5:  # beyond, the slice hardly reaches the outputs: no subtle fault
            m = onnx.ModelProto()
            m.CopyFrom(model)
            mutate.apply(m, node, kind, args + [repr(1 + delta)])
            onnx.save(m, out_model)
            effect = max_diff(run(out_model), native)
            if effect >= 100 * noise:
                break
            delta *= 2
        print("node %s %s: delta %.3g (|plumb - torch| %.3g, effect on the outputs %.3g = %.0fx)"
              % (node, " ".join([kind] + args), delta, noise, effect, effect / noise))
        if effect < 100 * noise:
            sys.exit(5)


def main(argv):
    cmds = {"full": cmd_full, "wrong": cmd_wrong, "faults": cmd_faults, "subtle": cmd_subtle}
    if len(argv) < 2 or argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[argv[1]](*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
