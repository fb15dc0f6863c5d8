"""plumb from Python: load or convert a model, run it on the reference interpreter, and check a
conversion against expected values (the library behind `plumb check`).

    import plumb
    m = plumb.load("model.onnx")                      # or a .plumb file; plumb.convert(onnx_bytes)
    y = m.run({"x": x})                               # dict: output name -> numpy array
    r = plumb.check(m, {"x": x}, {"probs": y_torch})  # verdict "match" | "mismatch" | "inconclusive"
    print(r.verdict, r.first_divergence and r.first_divergence.node)

Values are numpy arrays. plumb's dtypes that numpy lacks travel in raw form: bf16 as uint16 (the
bits), every f8 kind as uint8 (the bits), i4/i2 as int8 and u4/u2/f4e2m1 as uint8 (one element
per byte, the value in the low bits). Inputs and outputs are converted by the model's declared
types; an intermediate expected value in a raw form needs a .pb file (give a folder).

Errors raise plumb.Error with the message `plumb` prints (without its "plumb: " prefix).
plumb.torch checks a torch module's ONNX export in one call."""
import json
import os
import shutil
import tempfile
import weakref

import numpy as np

from . import _plumb

Error = _plumb.Error

__all__ = ["Error", "Model", "Report", "Divergence", "load", "convert", "check"]


class Model:
    """A model loaded from .onnx or .plumb (plumb.load, plumb.convert)."""

    def __init__(self, native, keep=None):
        self._m = native
        if keep:  # a temporary folder holding the model file (plumb.convert from bytes)
            self._finalizer = weakref.finalize(self, shutil.rmtree, keep, True)

    path = property(lambda self: self._m.path, doc="the model file")
    input_names = property(lambda self: list(self._m.input_names))
    output_names = property(lambda self: list(self._m.output_names))
    input_types = property(lambda self: list(self._m.input_types), doc='e.g. ["f32[1,3,32,32]"]')
    output_types = property(lambda self: list(self._m.output_types))

    def run(self, inputs, backend="ref", precise=False):
        """Runs the model: inputs a dict name -> array or a list of arrays in input order; returns
        a dict output name -> array (floats as f64 with precise=True: every float value in f64)."""
        return self._m.run(_values(inputs), backend, bool(precise))

    def save(self, path):
        """Writes the core graph as a .plumb file."""
        self._m.save(os.fspath(path))

    def __repr__(self):
        return "plumb.Model(%r: %s -> %s)" % (self.path, self.input_types, self.output_types)


def load(path):
    """Loads a .onnx model (lowered onto plumb's core ops) or a .plumb file."""
    return Model(_plumb.Model.load(os.fspath(path)))


def convert(onnx_model):
    """An ONNX model (a path, the serialized bytes, or an onnx.ModelProto) lowered onto plumb's core ops."""
    if hasattr(onnx_model, "SerializeToString"):
        onnx_model = onnx_model.SerializeToString()
    if isinstance(onnx_model, (bytes, bytearray, memoryview)):
        tmp = tempfile.mkdtemp(prefix="plumb-")
        path = os.path.join(tmp, "model.onnx")
        with open(path, "wb") as f:
            f.write(bytes(onnx_model))
        try:
            return Model(_plumb.Model.load(path), keep=tmp)
        except Exception:
            shutil.rmtree(tmp, True)
            raise
    path = os.fspath(onnx_model)
    if not path.endswith(".onnx"):
        raise Error("%s: plumb.convert takes an .onnx model (plumb.load reads .plumb files)" % path)
    return load(path)


class Divergence:
    """Where a mismatch starts: `node` (the ONNX node name, None when the divergence lies on a span
    of several nodes: see `span`), `op_type`, `tensor` (the ONNX tensor that first differs),
    `kind` ("local": on the expected values of its inputs, or "carried") and `text`."""

    def __init__(self, d):
        self.__dict__.update(d)  # node, op_type, opset, tensor, kind, localized, text, span

    def __repr__(self):
        return "plumb.Divergence(%s)" % self.text


class Report:
    """What plumb.check found: `verdict` ("match", "mismatch" or "inconclusive"),
    `first_divergence` (a Divergence, or None), `tensors` (per compared tensor: name, node, type,
    match, and the error statistics "carried" and, isolated, "local"), `skipped` (expected names
    that are no tensors of the model), `inconclusive_reason`, `note`, `specialized_inputs`; plus
    `unmapped` from plumb.torch. Renderings: str() (the CLI's table), to_json() (the CLI's
    --report FILE.json), save_html(path)."""

    def __init__(self, native):
        self._native = native
        self._json = native.json()
        d = json.loads(self._json)
        self.data = d
        # model, verdict, inconclusive_reason, tolerance, note, specialized_inputs, isolated,
        # tensors, skipped: as in the CLI's JSON report
        self.__dict__.update({k: v for k, v in d.items() if k != "first_divergence"})
        self.first_divergence = Divergence(d["first_divergence"]) if d["first_divergence"] else None
        self.unmapped = []
        self.mapped = {}

    def __bool__(self):
        return self.verdict == "match"

    def __str__(self):
        return self._native.text()

    def __repr__(self):
        fd = " at %s" % self.first_divergence.text if self.first_divergence else ""
        return "plumb.Report(%s%s, %d tensors)" % (self.verdict, fd, len(self.tensors))

    def to_json(self):
        return self._json

    def save_html(self, path):
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self._native.html())


def _values(v):
    return {str(k): a for k, a in v.items()} if isinstance(v, dict) else list(v)


def _is_folder(v):
    return isinstance(v, (str, os.PathLike))


def _write_inputs(model, inputs, folder):
    if isinstance(inputs, dict):
        items = [(model._m.input_index(str(name)), a) for name, a in inputs.items()]
    else:
        inputs = list(inputs)
        if len(inputs) != len(model.input_names):
            raise Error("%s: the model has %d inputs, %d values were given"
                        % (model.path, len(model.input_names), len(inputs)))
        items = list(enumerate(inputs))
    for k, a in items:
        model._m.write_input(k, os.path.join(folder, "input_%d.pb" % k), a)


def _write_expected(model, expected, folder):
    outputs = model.output_names
    if isinstance(expected, dict):
        for i, (name, a) in enumerate(expected.items()):
            name = str(name)
            if name in outputs:
                k = outputs.index(name)
                model._m.write_output(k, os.path.join(folder, "output_%d.pb" % k), a)
            else:
                _plumb.write_pb(os.path.join(folder, "value_%d.pb" % i), a, name)
    else:
        expected = list(expected)
        if len(expected) != len(outputs):
            raise Error("%s: the model has %d outputs, %d expected values were given"
                        % (model.path, len(outputs), len(expected)))
        for k, a in enumerate(expected):
            model._m.write_output(k, os.path.join(folder, "output_%d.pb" % k), a)


def check(model, inputs, expected=None, tolerance="auto", isolate=True, samples=None):
    """Checks MODEL (a path or a Model) on INPUTS against EXPECTED, as `plumb check` does.

    inputs: a dict input name -> array, a list of arrays in input order, or a folder in the ONNX
    test layout (input_<k>.pb / .npy). expected: a dict ONNX tensor name -> array (graph outputs
    and any intermediate), a list of arrays (the outputs in order), or a folder or file (.pb,
    .npy, .npz, Polygraphy JSON); None: the inputs folder. tolerance: "auto" (from the data, may be
    inconclusive) or (rtol, atol). isolate: also evaluate each node on the expected values of its
    inputs (localizes the first divergence). samples: stochastic runs for the auto bound."""
    if tolerance == "auto":
        tol = None
    else:
        try:
            rtol, atol = (float(t) for t in tolerance)
        except (TypeError, ValueError):
            raise Error("tolerance takes 'auto' or (rtol, atol), got %r" % (tolerance,)) from None
        if not (rtol >= 0 and atol >= 0):
            raise Error("tolerance: rtol and atol must be numbers >= 0, got %r" % (tolerance,))
        tol = (rtol, atol)
    m = model if isinstance(model, Model) else None
    path = m.path if m else os.fspath(model)
    if m is None and not (_is_folder(inputs) and (expected is None or _is_folder(expected))):
        m = load(path)  # the declared types of the inputs and outputs given as arrays
    tmp = tempfile.mkdtemp(prefix="plumb-check-")

    def folder(values, name, write):  # a folder as given, or one written from arrays
        if _is_folder(values):
            return os.fspath(values)
        d = os.path.join(tmp, name)
        os.mkdir(d)
        write(m, values, d)
        return d

    try:
        data = folder(inputs, "inputs", _write_inputs)
        exp = data if expected is None else folder(expected, "expected", _write_expected)
        return Report(_plumb.run_check(path, data, exp, tol, bool(isolate), int(samples or 0)))
    finally:
        shutil.rmtree(tmp, True)
