#!/usr/bin/python3
"""The whole-model test data for tests/embed/*.sh, through numpy and onnx (Debian's python3-onnx),
never plumb:

    example_io.py inputs MODEL_DIR OUT_DIR     data/input_<k>.pb -> OUT_DIR/input_<k>.npy
    example_io.py compare TEXT OUT_DIR         plumb_embed_example's lines against OUT_DIR/output_<k>.pb
                                               (or .npy): same names, dtypes, shapes, and bits
    example_io.py ulps TEXT_A TEXT_B           the largest distance in ulps between two printouts' f32
                                               values (same lines otherwise)

Each input is saved C-contiguous in its own dtype. `compare` reads f32 values printed as %.9g and
f64 as %.17g back to the same bits (both are round-trip precisions), integers exactly, and other
float types from their hex bits; NaNs compare by being NaN (the print keeps no payload). Exits 1 with
one line per difference."""
import glob
import os
import re
import sys

import numpy as np

sys.dont_write_bytecode = True

DTYPES = {"f32": np.float32, "f64": np.float64, "bool": np.bool_, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
          "u64": np.uint64, "f16": np.float16}


def read_tensor(path):
    if path.endswith(".npy"):
        return np.load(path)
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def inputs(model_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    files = sorted(glob.glob(os.path.join(model_dir, "data", "input_*.pb")),
                   key=lambda p: int(re.search(r"input_(\d+)\.pb$", p).group(1)))
    for k, path in enumerate(files):
        np.save(os.path.join(out_dir, "input_%d.npy" % k), np.ascontiguousarray(read_tensor(path)))
    print(len(files))


def parse_values(dtype, tokens):
    if dtype in ("f32", "f64"):
        return np.array([float(t) for t in tokens], dtype=np.float64).astype(DTYPES[dtype])
    if dtype in DTYPES and dtype != "f16":
        return np.array([int(t) for t in tokens], dtype=np.int64 if dtype[0] != "u" else np.uint64).astype(
            DTYPES[dtype])
    return np.array([int(t, 16) for t in tokens], dtype=np.uint64)  # bits


def same(dtype, got, want):
    if dtype in ("f32", "f64", "f16"):
        if dtype == "f16":
            want = want.view(np.uint16).astype(np.uint64)
            return np.array_equal(got, want)
        nan = np.isnan(want)
        if not np.array_equal(nan, np.isnan(got)):
            return False
        bits = np.uint32 if dtype == "f32" else np.uint64
        return np.array_equal(got[~nan].view(bits), want[~nan].view(bits))
    return np.array_equal(got, want.astype(got.dtype))


def compare(text_path, out_dir):
    problems = []
    lines = [l for l in open(text_path).read().splitlines() if l]
    expected = len(glob.glob(os.path.join(out_dir, "output_*")))
    if len(lines) != expected:
        problems.append("%d output lines, %d expected outputs" % (len(lines), expected))
    for line in lines:
        m = re.match(r"output (\d+) '(.*)' (\w+)\[([\d,]*)\]:(.*)$", line)
        if not m:
            problems.append("unreadable line: " + line[:80])
            continue
        k, name, dtype, dims, values = int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5)
        shape = tuple(int(d) for d in dims.split(",")) if dims else ()
        path = os.path.join(out_dir, "output_%d.pb" % k)
        if not os.path.exists(path):
            path = os.path.join(out_dir, "output_%d.npy" % k)
        want = read_tensor(path)
        if want.shape != shape:
            problems.append("output %d '%s': shape %s, plumb run gives %s" % (k, name, shape, want.shape))
            continue
        got = parse_values(dtype, values.split())
        if got.size != want.size or not same(dtype, got, want.reshape(-1)):
            problems.append("output %d '%s' %s: values differ from plumb run's" % (k, name, dtype))
    for p in problems:
        print("%s: %s" % (text_path, p))
    return 1 if problems else 0


def ulps(path_a, path_b):
    a = open(path_a).read().splitlines()
    b = open(path_b).read().splitlines()
    worst = 0
    for la, lb in zip(a, b):
        ha, _, va = la.partition(":")
        hb, _, vb = lb.partition(":")
        if ha != hb or " f32[" not in ha:
            if la != lb:
                return -1
            continue
        x = np.array([float(t) for t in va.split()], dtype=np.float64).astype(np.float32).view(np.int32)
        y = np.array([float(t) for t in vb.split()], dtype=np.float64).astype(np.float32).view(np.int32)
        if x.size != y.size:
            return -1
        worst = max(worst, int(np.max(np.abs(x.astype(np.int64) - y.astype(np.int64)), initial=0)))
    return worst if len(a) == len(b) else -1


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "inputs":
        inputs(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "ulps":
        print(ulps(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
