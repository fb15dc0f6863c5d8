#!/usr/bin/python3
"""The Python module plumb (python/plumb) without torch: load, convert, run, check on .onnx and
.plumb models with numpy arrays, the raw forms of plumb's dtypes numpy lacks, and errors.

    PYTHONPATH=build/python /usr/bin/python3 tests/python/test_core.py PLUMB_BIN SOURCE_DIR

PLUMB_BIN (build/bin/plumb) gives the CLI's error lines, which plumb.Error must repeat."""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

sys.dont_write_bytecode = True
import plumb  # noqa: E402

PLUMB_BIN, SOURCE = sys.argv[1], sys.argv[2]
EXAMPLE = os.path.join(SOURCE, "examples", "mlp_torch")
MODEL = os.path.join(EXAMPLE, "model.onnx")
DATA = os.path.join(EXAMPLE, "data")


def cli_error(*args):
    """The CLI's error line, without its "plumb: " prefix."""
    p = subprocess.run([PLUMB_BIN] + list(args), capture_output=True, text=True)
    assert p.returncode == 2, (args, p.returncode, p.stderr)
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("plumb: "), line
    return line[len("plumb: "):]


def tensor_pb(path):
    """A TensorProto file's array, read with plumb itself: `plumb run` of an Identity would do, but
    the example's input and output are read back through check below; here numpy is enough."""
    import onnx
    import onnx.numpy_helper as nh
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return nh.to_array(t)


class Core(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.x = tensor_pb(os.path.join(DATA, "input_0.pb"))
        cls.y = tensor_pb(os.path.join(DATA, "output_0.pb"))  # torch's own output

    def test_load_run(self):
        m = plumb.load(MODEL)
        self.assertEqual(m.input_names, ["x"])
        self.assertEqual(m.output_names, ["probs"])
        self.assertEqual(m.input_types, ["f32[3,12]"])
        out = m.run({"x": self.x})
        self.assertEqual(list(out), ["probs"])
        self.assertEqual(out["probs"].dtype, np.float32)
        self.assertEqual(out["probs"].shape, (3, 6))
        np.testing.assert_allclose(out["probs"], self.y, rtol=1e-5, atol=1e-6)
        # A list in input order is the same; the precise run returns f64.
        np.testing.assert_array_equal(m.run([self.x])["probs"], out["probs"])
        p = m.run([self.x], precise=True)["probs"]
        self.assertEqual(p.dtype, np.float64)
        np.testing.assert_allclose(p, self.y, rtol=1e-5, atol=1e-6)
        # A non-contiguous array (copied) gives the same result as a contiguous one.
        xt = np.ascontiguousarray(self.x.T).T
        self.assertFalse(xt.flags.c_contiguous)
        np.testing.assert_array_equal(m.run([xt])["probs"], out["probs"])

    def test_convert_bytes_and_plumb_file(self):
        with open(MODEL, "rb") as f:
            m = plumb.convert(f.read())
        path = os.path.join(self.tmp.name, "mlp.plumb")
        m.save(path)
        p = plumb.load(path)
        np.testing.assert_array_equal(p.run([self.x])["probs"], m.run([self.x])["probs"])
        # plumb.check on the .plumb file with numpy arrays: torch's output matches ...
        r = plumb.check(path, {"x": self.x}, {"probs": self.y})
        self.assertEqual(r.verdict, "match", str(r))
        self.assertIsNone(r.first_divergence)
        self.assertTrue(r)
        self.assertEqual([t["name"] for t in r.tensors], ["probs"])
        # ... and a wrong one does not.
        wrong = self.y.copy()
        wrong[0] = wrong[0][::-1]
        r = plumb.check(p, [self.x], [wrong])
        self.assertEqual(r.verdict, "mismatch", str(r))
        self.assertEqual(r.first_divergence.tensor, "probs")

    def test_check_folder_localizes(self):
        r = plumb.check(MODEL, DATA)  # the ONNX test layout: inputs and expected in one folder
        self.assertEqual(r.verdict, "match", str(r))
        self.assertEqual(len(r.tensors), 4)  # fc1, act, fc2 and the output
        r = plumb.check(os.path.join(EXAMPLE, "model_wrong_axis.onnx"), DATA, DATA)
        self.assertEqual(r.verdict, "mismatch")
        self.assertEqual(r.first_divergence.node, "/softmax/Softmax")
        self.assertEqual(r.first_divergence.op_type, "Softmax")
        # The renderings are the CLI's: --report FILE.json is to_json(), the table is str().
        rep = os.path.join(self.tmp.name, "cli.json")
        subprocess.run([PLUMB_BIN, "check", os.path.join(EXAMPLE, "model_wrong_axis.onnx"), "--data", DATA,
                        "--report", rep], capture_output=True)
        with open(rep) as f:
            self.assertEqual(f.read(), r.to_json())
        self.assertIn("first divergence", str(r))
        html = os.path.join(self.tmp.name, "r.html")
        r.save_html(html)
        with open(html) as f:
            self.assertIn('id="error-plot"', f.read())
        # Fixed tolerance and dict expected values by ONNX tensor name (intermediates included).
        acts = {"/fc1/Gemm_output_0": tensor_pb(os.path.join(DATA, "act_fc1.pb")), "probs": self.y}
        r = plumb.check(MODEL, {"x": self.x}, acts, tolerance=(1e-4, 1e-6))
        self.assertEqual(r.verdict, "match", str(r))
        self.assertEqual(r.tolerance, "rtol 0.0001, atol 1e-06")
        r = plumb.check(MODEL, {"x": self.x}, {"probs": self.y, "no_such": self.y})
        self.assertEqual(len(r.skipped), 1)
        self.assertTrue(r.skipped[0].startswith("no_such "), r.skipped)

    def test_errors(self):
        missing = os.path.join(self.tmp.name, "missing.onnx")
        with self.assertRaises(plumb.Error) as e:
            plumb.load(missing)
        self.assertEqual(str(e.exception), cli_error("run", missing))
        with self.assertRaises(plumb.Error) as e:
            plumb.check(missing, DATA)
        self.assertEqual(str(e.exception), cli_error("check", missing, "--data", DATA))
        m = plumb.load(MODEL)
        # Wrong dtype and wrong shape: one line naming the input, from run and from check; the
        # check's line is the CLI's for the same .npy input.
        for bad in (self.x.astype(np.float64), self.x[:, :5], np.zeros((3, 12), np.int32)):
            with self.assertRaises(plumb.Error) as e:
                m.run({"x": bad})
            self.assertNotIn("\n", str(e.exception))
            self.assertIn("x", str(e.exception))
            with self.assertRaises(plumb.Error) as e:
                plumb.check(m, {"x": bad}, {"probs": self.y})
            msg = str(e.exception)
            npy = os.path.join(self.tmp.name, "input_0.npy")
            np.save(npy, bad)
            cli = cli_error("check", MODEL, "--data", self.tmp.name, "--expected", DATA)
            self.assertEqual(msg.replace(msg.split(":")[0], "F"), cli.replace(cli.split(":")[0], "F"))
            os.remove(npy)
        with self.assertRaises(plumb.Error) as e:
            m.run({"y": self.x})
        self.assertIn("no input 'y'", str(e.exception))
        with self.assertRaises(plumb.Error):
            m.run([])
        with self.assertRaises(plumb.Error):
            m.run({"x": np.array([object()] * 36, dtype=object).reshape(3, 12)})
        with self.assertRaises(plumb.Error):
            plumb.check(m, [self.x], [self.y], tolerance="tight")
        with self.assertRaises(plumb.Error):
            plumb.check(m, [self.x], [self.y], tolerance=(-1, 0))
        with self.assertRaises(plumb.Error):
            m.run({"x": self.x}, backend="no-such-backend")


def identity_model(path, elem_type, shape):
    """An ONNX model computing Y = Identity(X) for one element type (onnx 1.12 lacks the names of
    the newer types: the codes are written as numbers)."""
    import onnx
    from onnx import helper
    g = helper.make_graph([helper.make_node("Identity", ["X"], ["Y"], name="id")], "g",
                          [helper.make_tensor_value_info("X", elem_type, shape)],
                          [helper.make_tensor_value_info("Y", elem_type, shape)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]), path)


class Dtypes(unittest.TestCase):
    def roundtrip(self, code, given, want_dtype=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.onnx")
            identity_model(path, code, list(given.shape))
            m = plumb.load(path)
            y = m.run([given])["Y"]
            self.assertEqual(y.dtype, np.dtype(want_dtype or given.dtype))
            np.testing.assert_array_equal(y, given)
            r = plumb.check(m, [given], [given])
            self.assertEqual(r.verdict, "match", str(r))
            return y

    def test_numpy_dtypes(self):
        rng = np.random.default_rng(1)
        for code, dt in ((1, np.float32), (11, np.float64), (10, np.float16), (2, np.uint8), (3, np.int8),
                         (4, np.uint16), (5, np.int16), (6, np.int32), (7, np.int64), (12, np.uint32),
                         (13, np.uint64)):
            self.roundtrip(code, (rng.standard_normal((2, 3)) * 50).astype(dt))
        self.roundtrip(9, np.array([[True, False, True]]))

    def test_raw_forms(self):
        bits16 = np.array([0x3F80, 0xC000, 0x7F80, 0x0001], np.uint16)  # bf16 1, -2, inf, tiny
        self.roundtrip(16, bits16)
        bits8 = np.arange(0, 256, 17, dtype=np.uint8)
        for code in (17, 19):  # f8e4m3fn, f8e5m2
            self.roundtrip(code, bits8)
        self.roundtrip(22, np.array([-8, -1, 0, 7], np.int8))  # i4
        self.roundtrip(21, np.array([0, 1, 15], np.uint8))     # u4
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.onnx")
            identity_model(path, 22, [2])
            with self.assertRaises(plumb.Error) as e:
                plumb.load(path).run([np.array([8, 0], np.int8)])  # 8 is no i4
            self.assertIn("outside i4's range", str(e.exception))

    def test_strings(self):
        s = np.array(["a", "", "plumb \u00e9"])
        y = self.roundtrip(8, s, want_dtype=object)
        self.assertEqual(list(y), ["a", "", "plumb \u00e9"])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
