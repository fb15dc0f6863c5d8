"""The single-node faults of the real-model test set (make_real_models.py): candidate faults per
node (swapped ops, moved attributes, scaled weights, epsilons...), measured on onnxruntime so that
each changes the node's own output and, where tested, the model's outputs; and the subtle fault and
the below-noise change of each model."""
import numpy as np
import onnx
import onnx.numpy_helper as nh

import mutate

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


