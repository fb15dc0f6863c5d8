"""Check a torch module's ONNX export in one call.

    import torch, torchvision, plumb.torch
    model = torchvision.models.resnet18(num_classes=10).eval()
    report = plumb.torch.check(model, (torch.randn(1, 3, 64, 64),))
    print(report.verdict, report.first_divergence)   # "match" None, or the first wrong ONNX node
    print(report.unmapped)                            # torch values with no ONNX tensor to compare

check() exports the module with torch.onnx.export, runs it eagerly with a forward hook on every
submodule, maps each submodule call's output onto the ONNX tensor that computes it, and runs
plumb.check on the export with torch's outputs and those intermediates as the expected values.
dump() writes the same as the ONNX test layout, for `plumb check` and other tools.

How a value is mapped (torch 1.13's exporter, whose node names carry the module scope:
"/layer1/layer1.0/conv1/Conv" is module layer1.0.conv1's Conv; a second call of one module in
the same parent is scope "relu_1"): a call's outputs map onto the ONNX tensors computed by the
nodes of its scope and read outside it (or graph outputs), its inputs onto the non-constant
tensors its scope's nodes read from outside; each torch tensor is mapped when exactly one such
tensor has its dtype and shape. Inputs count as much as outputs: a functional op between two
modules (`out += identity`, F.relu) is then localized to its node. Nothing else is guessed;
every value left out is listed in `unmapped` with the reason:
- a call with no node in its scope (Dropout, Identity in eval, or a BatchNorm the exporter folded
  into the Conv before it): when it is a BatchNorm or returns its input unchanged, the ONNX tensor
  of the call that produced its input computes *its* output, and is compared with it; the
  producer's own value (a Conv's output before the folded BatchNorm) is then not compared;
- several candidates of one dtype and shape (e.g. an LSTM's h and c), or none;
- two values on one ONNX tensor that differ.
Values are recorded as clones when each hook runs, so in-place ops (ReLU(inplace=True),
`out += identity`) after it do not change them."""
import io
import os
import shutil
import tempfile

import numpy as np
import torch

import plumb
from plumb import _plumb

__all__ = ["Export", "export", "check", "dump"]


class Export:
    """An export and torch's values for it: `onnx` (the serialized ModelProto), `inputs` and
    `outputs` (numpy arrays in graph order), `input_names`, `output_names`, `intermediates`
    (ONNX tensor name -> array), `mapped` (ONNX tensor name -> the module call it came from) and
    `unmapped` (one line per module call not compared, with the reason)."""

    def __init__(self):
        self.onnx = b""
        self.input_names, self.output_names = [], []
        self.inputs, self.outputs = [], []
        self.input_dtypes, self.output_dtypes = [], []
        self.intermediates, self.intermediate_dtypes, self.mapped = {}, {}, {}
        self.unmapped = []

    def save(self, out_dir):
        """Writes out_dir/model.onnx and out_dir/test_data_set_0/ (input_<k>.pb, output_<k>.pb,
        intermediate_<i>.pb; TensorProto name = ONNX tensor name)."""
        data = os.path.join(out_dir, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        with open(os.path.join(out_dir, "model.onnx"), "wb") as f:
            f.write(self.onnx)
        for k, (name, a, dt) in enumerate(zip(self.input_names, self.inputs, self.input_dtypes)):
            _plumb.write_pb(os.path.join(data, "input_%d.pb" % k), a, name, dt)
        for k, (name, a, dt) in enumerate(zip(self.output_names, self.outputs, self.output_dtypes)):
            _plumb.write_pb(os.path.join(data, "output_%d.pb" % k), a, name, dt)
        for i, (name, a) in enumerate(self.intermediates.items()):
            _plumb.write_pb(os.path.join(data, "intermediate_%d.pb" % i), a, name,
                            self.intermediate_dtypes.get(name, ""))
        return out_dir


def _to_numpy(t):
    """(array, plumb dtype name for a raw form or "")."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16).copy(), "bf16"
    return t.numpy().copy(), ""


def _flat_tensors(v):
    """The tensors of a (nested) output or argument, in order (as torch.onnx flattens them)."""
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for e in v for t in _flat_tensors(e)]
    if isinstance(v, dict):
        return [t for e in v.values() for t in _flat_tensors(e)]
    return []


def _scope_component(qualname):
    """The exporter's scope name of a module: its qualified name from the last non-numeric atom on
    ("layer1.0.conv1" -> "conv1", "layer1.0" -> "layer1.0", "features.1.block.0.0" -> "block.0.0")."""
    atoms = qualname.split(".")
    i = len(atoms) - 1
    while i > 0 and atoms[i].isdigit():
        i -= 1
    return ".".join(atoms[i:])


class _Call:
    def __init__(self, qualname, module, scope):
        self.qualname, self.module, self.scope = qualname, module, scope
        self.input_producers = []  # the _Call that returned each tensor input (None: not a module's)
        self.inputs, self.input_dtypes = [], []  # torch's tensor inputs, cloned before the call
        self.values, self.dtypes = [], []        # its output tensors, cloned when the hook ran
        self.is_identity = False   # returned its (first) input unchanged

    def label(self):
        return "module '%s' (%s, scope %s)" % (self.qualname, type(self.module).__name__, self.scope)


def _record(module, args, kwargs):
    """Runs the module eagerly with hooks on every submodule; returns (outputs, calls).

    Autograd stays on: with it off, torch 1.13 runs TransformerEncoderLayer and
    MultiheadAttention through fused fast paths that call none of their submodules (and that the
    exporter does not take), so their hooks would record nothing."""
    names = {m: q for q, m in module.named_modules() if q}
    calls, pending, stack, counts, producer, alive, handles = [], [], [], {}, {}, [], []

    def pre(mod, inputs):
        comp = _scope_component(names[mod])
        parent = "/".join(stack)
        n = counts.get((parent, comp), 0)
        counts[(parent, comp)] = n + 1
        stack.append(comp if n == 0 else "%s_%d" % (comp, n))
        c = _Call(names[mod], mod, "/" + "/".join(stack))
        flat_in = _flat_tensors(inputs)
        c.input_producers = [producer.get(id(t)) for t in flat_in]
        for t in flat_in:
            a, dt = _to_numpy(t)
            c.inputs.append(a)
            c.input_dtypes.append(dt)
        calls.append(c)
        pending.append(c)

    def post(mod, inputs, output):
        c = pending.pop()
        stack.pop()
        flat_out = _flat_tensors(output)
        for t in flat_out:
            a, dt = _to_numpy(t)
            c.values.append(a)
            c.dtypes.append(dt)
            producer[id(t)] = c
            alive.append(t)  # keeps id(t) unique while recording
        c.is_identity = (len(c.values) == 1 and len(c.inputs) >= 1 and c.dtypes[0] == c.input_dtypes[0]
                         and np.array_equal(c.values[0], c.inputs[0], equal_nan=True))

    try:
        for m in names:
            handles.append(m.register_forward_pre_hook(pre))
            handles.append(m.register_forward_hook(post))
        out = module(*args, **kwargs)
    finally:
        for h in handles:
            h.remove()
    return out, calls


def _onnx_types(model):
    """ONNX tensor name -> (elem_type, dims with None for symbolic), after shape inference."""
    import onnx
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {}
    g = inferred.graph
    for vi in list(g.value_info) + list(g.output) + list(g.input):
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        types[vi.name] = (tt.elem_type, dims)
    return types


def _fits(onnx_type, array, dtype_name):
    import onnx
    if onnx_type is None:
        return False
    elem, dims = onnx_type
    if dtype_name == "bf16":
        want = onnx.TensorProto.BFLOAT16
    else:
        try:
            want = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(array.dtype)]
        except KeyError:
            return False
    return elem == want and len(dims) == array.ndim and all(
        d is None or d == s for d, s in zip(dims, array.shape))


class _Slot:
    """One torch value of a call (an output, or an input) and the ONNX tensor it maps onto."""

    def __init__(self, call, kind, k, value, dtype):
        self.call, self.kind, self.k, self.value, self.dtype = call, kind, k, value, dtype
        self.tensor = None
        self.why = ""

    def label(self):
        return "%s %s %d" % (self.call.label(), self.kind, self.k)


def _map_calls(model, calls, exp):
    """Fills exp.intermediates / mapped / unmapped (see the module's docstring)."""
    g = model.graph
    types = _onnx_types(model)
    graph_inputs = {i.name for i in g.input}
    graph_outputs = {o.name for o in g.output}
    order = {}
    consts = {i.name for i in g.initializer}  # tensors that hold no run-time value of torch's
    for i, n in enumerate(g.node):
        for o in n.output:
            order[o] = i
        if n.op_type == "Constant" or all(x in consts or not x for x in n.input):
            consts.update(n.output)

    out_slots, in_slots = {}, []
    for c in calls:
        outs = [_Slot(c, "output", k, a, dt) for k, (a, dt) in enumerate(zip(c.values, c.dtypes))]
        ins = [_Slot(c, "input", k, a, dt) for k, (a, dt) in enumerate(zip(c.inputs, c.input_dtypes))]
        out_slots[id(c)] = outs
        in_slots.extend(ins)
        prefix = c.scope + "/"
        inside = [n for n in g.node if n.name.startswith(prefix)]
        if not inside:
            for s in outs + ins:
                s.why = "no ONNX node in its scope"
            continue
        produced = {o for n in inside for o in n.output if o}
        inside_ids = {id(n) for n in inside}
        leaving = {o for o in produced if o in graph_outputs and o not in consts}
        for n in g.node:
            if id(n) not in inside_ids:
                leaving.update(x for x in n.input if x in produced and x not in consts)
        entering = {x for n in inside for x in n.input if x and x not in produced and x not in consts}
        for slots, cands, where in ((outs, leaving, "leaving"), (ins, entering, "entering")):
            for s in slots:
                fit = sorted((o for o in cands if _fits(types.get(o), s.value, s.dtype)),
                             key=lambda o: order.get(o, -1))
                if len(fit) == 1:
                    s.tensor = fit[0]
                else:
                    s.why = "%d ONNX tensors %s its scope have its type (%s)" % (
                        len(fit), where, ", ".join(fit) or "none")

    # A call with no node of its own whose output is what its input's producer's ONNX tensor
    # holds: a BatchNorm folded into the Conv before it, or an identity (Dropout in eval).
    folded = {}  # ONNX tensor -> the slot of the BatchNorm folded into its node
    for c in calls:
        outs = out_slots[id(c)]
        if len(outs) != 1 or outs[0].tensor is not None or not c.input_producers:
            continue
        p = c.input_producers[0]
        pouts = out_slots.get(id(p)) if p is not None else None
        if not pouts or len(pouts) != 1 or pouts[0].tensor is None:
            continue
        t = pouts[0].tensor
        if isinstance(c.module, torch.nn.modules.batchnorm._BatchNorm) or c.is_identity:
            outs[0].tensor, outs[0].why = t, ""
            if not c.is_identity:
                folded[t] = outs[0]
        else:
            outs[0].why = ("no ONNX node in its scope, and it changes its input: its effect may be "
                           "in the node computing %s" % t)
            pouts[0].tensor = None
            pouts[0].why = "its ONNX tensor %s may also compute %s" % (t, c.label())

    value_of = {}  # ONNX tensor -> the slot whose torch value it is compared with
    slots = [s for c in calls for s in out_slots[id(c)]] + in_slots
    for s in slots:
        t = s.tensor
        if t is None or t in graph_outputs or t in graph_inputs:
            continue
        if t in folded and folded[t] is not s:
            if not np.array_equal(folded[t].value, s.value, equal_nan=True):
                s.tensor = None
                s.why = ("its ONNX tensor %s computes %s as well (the exporter folded the BatchNorm "
                         "into its node): compared with that" % (t, folded[t].call.label()))
            continue
        if t in value_of:
            if not np.array_equal(value_of[t].value, s.value, equal_nan=True):
                s.tensor = None
                s.why = "its ONNX tensor %s is also %s, whose torch value differs" % (
                    t, value_of[t].label())
            elif s.kind == "output" and len(s.call.scope) > len(value_of[t].call.scope):
                value_of[t] = s  # the same value: named after the innermost module computing it
            continue
        value_of[t] = folded.get(t, s)
    for t in folded:
        if t not in graph_outputs:
            value_of[t] = folded[t]

    for t, s in sorted(value_of.items(), key=lambda item: order.get(item[0], 0)):
        exp.intermediates[t] = s.value
        if s.dtype:
            exp.intermediate_dtypes[t] = s.dtype
        exp.mapped[t] = "%s %s %d" % (s.call.qualname, s.kind, s.k)
    for s in slots:
        if s.tensor is None:
            exp.unmapped.append("%s: %s" % (s.label(), s.why))


def export(module, args, kwargs=None, opset=None, dynamic_axes=None, **export_kwargs):
    """Exports MODULE on ARGS (a tuple; KWARGS a dict of keyword arguments of forward) with
    torch.onnx.export (opset_version=OPSET, DYNAMIC_AXES, and any other export_kwargs), runs it
    eagerly with hooks, and returns the Export with torch's values mapped onto ONNX tensors."""
    import onnx
    if isinstance(args, torch.Tensor):
        args = (args,)
    args, kwargs = tuple(args), dict(kwargs or {})
    flat_in = _flat_tensors(args) + _flat_tensors(kwargs)
    export_kwargs.setdefault("input_names", ["input_%d" % k for k in range(len(flat_in))])
    if opset is not None:
        export_kwargs["opset_version"] = opset
    if dynamic_axes is not None:
        export_kwargs["dynamic_axes"] = dynamic_axes
    was_training = module.training
    buf = io.BytesIO()
    try:
        torch.onnx.export(module, args + ((kwargs,) if kwargs else ()), buf, **export_kwargs)
        module.eval()  # the exporter's default training=EVAL: torch runs as it exported
        out, calls = _record(module, args, kwargs)
    finally:
        module.train(was_training)
    exp = Export()
    exp.onnx = buf.getvalue()
    model = onnx.load_from_string(exp.onnx)
    inits = {i.name for i in model.graph.initializer}
    graph_inputs = [i.name for i in model.graph.input if i.name not in inits]
    names = list(export_kwargs["input_names"])
    for name in graph_inputs:  # the exporter drops inputs the graph does not use
        if name not in names:
            raise plumb.Error("export: graph input '%s' is none of the input names %s" % (name, names))
        a, dt = _to_numpy(flat_in[names.index(name)])
        exp.input_names.append(name)
        exp.inputs.append(a)
        exp.input_dtypes.append(dt)
    flat_out = _flat_tensors(out)
    exp.output_names = [o.name for o in model.graph.output]
    if len(flat_out) != len(exp.output_names):
        raise plumb.Error("export: the ONNX graph has %d outputs, torch's forward returned %d tensors"
                          % (len(exp.output_names), len(flat_out)))
    for t in flat_out:
        a, dt = _to_numpy(t)
        exp.outputs.append(a)
        exp.output_dtypes.append(dt)
    _map_calls(model, calls, exp)
    return exp


def dump(module, args, out_dir, kwargs=None, opset=None, dynamic_axes=None, **export_kwargs):
    """export(), then writes OUT_DIR/model.onnx and OUT_DIR/test_data_set_0/ (input_<k>.pb,
    output_<k>.pb and one intermediate_<i>.pb per mapped intermediate, TensorProto name = ONNX
    tensor name): `plumb check OUT_DIR/model.onnx --data OUT_DIR/test_data_set_0`. Returns the Export."""
    exp = export(module, args, kwargs, opset, dynamic_axes, **export_kwargs)
    exp.save(os.fspath(out_dir))
    return exp


def check_export(exp, onnx_model=None, tolerance="auto", isolate=True, samples=None):
    """plumb.check of an Export's values against ONNX_MODEL (default: the export itself; give an
    edited copy, bytes or a ModelProto, to check a modified conversion)."""
    tmp = tempfile.mkdtemp(prefix="plumb-torch-")
    try:
        exp.save(tmp)
        model = os.path.join(tmp, "model.onnx")
        if onnx_model is not None:
            if hasattr(onnx_model, "SerializeToString"):
                onnx_model = onnx_model.SerializeToString()
            with open(model, "wb") as f:
                f.write(bytes(onnx_model))
        data = os.path.join(tmp, "test_data_set_0")
        report = plumb.check(model, data, data, tolerance=tolerance, isolate=isolate, samples=samples)
    finally:
        shutil.rmtree(tmp, True)
    report.unmapped = list(exp.unmapped)
    report.mapped = dict(exp.mapped)
    return report


def check(module, args, kwargs=None, opset=None, dynamic_axes=None, tolerance="auto", isolate=True,
          samples=None, **export_kwargs):
    """Exports MODULE on ARGS and checks the export against torch's own outputs and every submodule
    output mapped onto an ONNX tensor; returns plumb.Report (with `unmapped` and `mapped`)."""
    exp = export(module, args, kwargs, opset, dynamic_axes, **export_kwargs)
    return check_export(exp, tolerance=tolerance, isolate=isolate, samples=samples)
