#!/usr/bin/python3
"""Makes the expected-value fixtures of tests/cli/check_formats.sh from examples/mlp_torch/data
(torch's output and intermediates, by ONNX tensor name) in the other formats `plumb check` reads:

    mlp_torch.npz             numpy.savez: one entry per tensor (stored)
    mlp_torch_deflate.npz     numpy.savez_compressed (deflated entries)
    polygraphy_outputs.json   Polygraphy's `run --save-outputs` RunResults, arrays as LazyArray
                              around base64 np.save bytes (newer Polygraphy)
    polygraphy_legacy.json    the same with plain ndarray entries (older Polygraphy)
    bad_array.json            an array entry that is not base64 (plumb check must exit 2)

    /usr/bin/python3 examples/check_formats/make_formats.py"""
import base64
import glob
import io
import json
import os

import numpy as np
import onnx
import onnx.numpy_helper as nh

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "mlp_torch", "data")
arrays = {}
for f in sorted(glob.glob(os.path.join(src, "*.pb"))):
    if os.path.basename(f).startswith("input_"):
        continue
    t = onnx.TensorProto()
    with open(f, "rb") as fh:
        t.ParseFromString(fh.read())
    arrays[t.name] = nh.to_array(t)

np.savez(os.path.join(here, "mlp_torch.npz"), **arrays)
np.savez_compressed(os.path.join(here, "mlp_torch_deflate.npz"), **arrays)


def ndarray(a):
    b = io.BytesIO()
    np.save(b, a, allow_pickle=False)
    return {"array": base64.b64encode(b.getvalue()).decode(), "polygraphy_class": "ndarray"}


def run_results(wrap):
    outputs = {k: ({"values": ndarray(v), "polygraphy_class": "LazyArray"} if wrap else ndarray(v))
               for k, v in arrays.items()}
    it = {"outputs": outputs, "runtime": 0.001, "runner_name": "onnxrt-runner-N0", "polygraphy_class": "IterationResult"}
    return {"lst": [["onnxrt-runner-N0", [it]]], "polygraphy_class": "RunResults"}


with open(os.path.join(here, "polygraphy_outputs.json"), "w") as f:
    json.dump(run_results(True), f, indent=4)
with open(os.path.join(here, "polygraphy_legacy.json"), "w") as f:
    json.dump(run_results(False), f, indent=4)
bad = run_results(False)
bad["lst"][0][1][0]["outputs"]["probs"]["array"] = "not base64 \u4e00"
with open(os.path.join(here, "bad_array.json"), "w") as f:
    json.dump(bad, f)
