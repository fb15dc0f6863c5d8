#!/usr/bin/python3
"""Seed inputs for two fuzz targets of tests/fuzz, written with numpy (tools/fuzz.sh runs it).

  fuzz_seeds.py fuzz_polygraphy_json|fuzz_expected_folder MODELS_DIR OUT_DIR

fuzz_polygraphy_json: Polygraphy's saved outputs in the forms plumb reads (check/onnx/expected.h):
a RunResults of plain ndarrays and of LazyArrays, and saved inputs (a list of {name: array}), over
arrays of several dtypes and shapes and the output_0.pb-derived names of MODELS_DIR.
fuzz_expected_folder: the target's framing (files joined by "\\n@@\\n" in the order of kFiles in
tests/fuzz/fuzz_expected_folder.cpp), filled with names.json mappings, .npy files, the .pb files
of MODELS_DIR's data folders, .npz archives and Polygraphy JSON."""
import base64
import glob
import io
import json
import os
import sys

import numpy as np

SEPARATOR = b"\n@@\n"


def npy_bytes(a):
    f = io.BytesIO()
    np.save(f, a, allow_pickle=False)
    return f.getvalue()


def npz_bytes(arrays, compressed):
    f = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(f, **arrays)
    return f.getvalue()


def ndarray(a, lazy):
    v = {"array": base64.b64encode(npy_bytes(a)).decode(), "polygraphy_class": "ndarray"}
    return {"values": v, "polygraphy_class": "LazyArray"} if lazy else v


def run_results(arrays, lazy):
    it = {"outputs": {n: ndarray(a, lazy) for n, a in arrays.items()}, "runtime": 0.01,
          "runner_name": "onnxrt-runner-N0", "polygraphy_class": "IterationResult"}
    return json.dumps({"lst": [["onnxrt-runner-N0", [it]]], "polygraphy_class": "RunResults"}).encode()


def saved_inputs(arrays):
    return json.dumps([{n: ndarray(a, False) for n, a in arrays.items()}]).encode()


def sample_arrays(rng):
    return [
        {"y": rng.standard_normal((2, 3)).astype(np.float32)},
        {"out/0:0": np.arange(6, dtype=np.int64).reshape(3, 2), "mask": np.array([True, False])},
        {"h": rng.standard_normal((1, 4)).astype(np.float16), "s": np.float64(2.5)},
        {"e": np.zeros((0, 3), dtype=np.int32), "u": np.array([1, 2, 255], dtype=np.uint8)},
    ]


def main():
    target, models, out = sys.argv[1], sys.argv[2], sys.argv[3]
    rng = np.random.default_rng(0)
    pbs = sorted(glob.glob(os.path.join(models, "*", "data", "*.pb")))
    pbs = [p for p in pbs if os.path.getsize(p) < 16384][:40]
    seeds = []
    for k, arrays in enumerate(sample_arrays(rng)):
        if target == "fuzz_polygraphy_json":
            seeds += [run_results(arrays, False), run_results(arrays, True), saved_inputs(arrays)]
            continue
        names = json.dumps({"a.npy": list(arrays)[0], "output_0": "renamed"}).encode()
        first = next(iter(arrays.values()))
        pb_out = open(pbs[k % len(pbs)], "rb").read() if pbs else b""
        pb_in = open(pbs[(k + 1) % len(pbs)], "rb").read() if pbs else b""
        files = [names, npy_bytes(first), npy_bytes(np.asarray(first) * 2), npy_bytes(first),
                 pb_out, npz_bytes(arrays, k % 2 == 1), run_results(arrays, k % 2 == 0), pb_in]
        seeds.append(SEPARATOR.join(files))
        seeds.append(SEPARATOR.join(files[:3]))
    for k, s in enumerate(seeds):
        with open(os.path.join(out, "seed%03d" % k), "wb") as f:
            f.write(s)


if __name__ == "__main__":
    main()
