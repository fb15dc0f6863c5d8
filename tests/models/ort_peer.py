"""onnxruntime-node as the peer of the real-model test set (make_real_models.py): a model with
every node output made a graph output, and runs of model variants on one set of inputs (through
ort_outputs.js; onnxruntime-node installed in $ORT_PREFIX, default /tmp/ort-peer, as
bench/peer_ort.sh installs it)."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))

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

