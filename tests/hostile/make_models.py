#!/usr/bin/python3
"""Hostile models for tests/cli/hostile.sh (issue 23), made at test time so nothing big is
committed. Writes OUTDIR/<case>/... and OUTDIR/cases.tsv, one case a line:

    name <TAB> exit code <TAB> pattern <TAB> plumb arguments (space-separated, relative to OUTDIR)

The pattern is an extended regular expression the one-line error must match (it names the file
and the place). Deep nesting and invalid UTF-8 are written with a hand-made protobuf encoder
(onnx.helper can do neither), the rest with onnx.helper.

Usage: make_models.py OUTDIR
"""
import os
import struct
import sys
import zipfile
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper

OPSET = [helper.make_opsetid("", 17)]
CASES = []


def case(name, rc, pattern, args):
    CASES.append((name, rc, pattern, args))


# --- a hand-made protobuf encoder ----------------------------------------------------------------

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(field, wire):
    return varint((field << 3) | wire)


def fbytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return tag(field, 2) + varint(len(data)) + data


def fint(field, v):
    return tag(field, 0) + varint(v)


def save(model, *parts):
    path = os.path.join(OUT, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(model, path)
    return os.path.join(*parts)


def write(data, *parts):
    path = os.path.join(OUT, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return os.path.join(*parts)


def model(nodes, inputs, outputs, inits=(), functions=(), ir=8):
    g = helper.make_graph(list(nodes), "g", list(inputs), list(outputs), list(inits))
    m = helper.make_model(g, opset_imports=OPSET + [helper.make_opsetid("local", 1)] if functions else OPSET,
                          functions=list(functions))
    m.ir_version = ir
    return m


def f32(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def identity_model(init):
    """y = x + w, w an initializer."""
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [f32("x", [2])],
                 [f32("y", None)], [init])


def raw_init(name, dims, raw, dtype=TensorProto.FLOAT):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def external_init(name, dims, location, offset=None, length=None):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, str(v)
    return t


# --- external data --------------------------------------------------------------------------------

def external():
    write(b"secret", "outside.bin")
    for name, loc, pat in (
            ("ext_dotdot", "../outside.bin", "leaves the model's folder"),
            ("ext_dotdot_inner", "sub/../../outside.bin", "leaves the model's folder"),
            ("ext_absolute", os.path.abspath("outside.bin"), "is absolute"),
            ("ext_missing", "nothing.bin", "not found next to the model"),
            ("ext_empty_location", "", "empty location"),
            ("ext_directory", "sub", "not a regular file")):
        os.makedirs(os.path.join(OUT, name, "sub"), exist_ok=True)
        p = save(identity_model(external_init("w", [2], loc)), name, "model.onnx")
        case(name, 2, rf"{p}.*initializer 'w'.*{pat}", f"convert {p} -o {name}/out.plumb")
    # a symlink to a file outside, and a symlinked folder leading outside
    p = save(identity_model(external_init("w", [2], "link.bin")), "ext_symlink", "model.onnx")
    os.symlink("../outside.bin", os.path.join(OUT, "ext_symlink", "link.bin"))
    case("ext_symlink", 2, rf"{p}.*initializer 'w'.*resolves outside the model's folder",
         f"convert {p} -o ext_symlink/out.plumb")
    p = save(identity_model(external_init("w", [2], "dir/outside.bin")), "ext_symlink_dir", "model.onnx")
    os.symlink("..", os.path.join(OUT, "ext_symlink_dir", "dir"))
    case("ext_symlink_dir", 2, rf"{p}.*initializer 'w'.*resolves outside the model's folder",
         f"convert {p} -o ext_symlink_dir/out.plumb")
    # sizes past the file's end (the file holds 8 bytes: two floats)
    for name, dims, off, ln, pat in (
            ("ext_length_past_end", [2], 4, 8, r"range \[4, \+8\) is past the end"),
            ("ext_offset_past_end", [2], 1 << 40, None, "offset 1099511627776 is past the end"),
            ("ext_offset_overflow", [2], (1 << 64) - 1, 8, "past the end"),
            ("ext_number_overflow", [2], "99999999999999999999", None, "overflows"),
            ("ext_number_negative", [2], "-8", None, "not a decimal integer"),
            ("ext_dims_past_end", [1 << 20], None, None, "bytes needed for 1048576 f32 elements"),
            ("ext_dims_2p62", [1 << 62], None, None, r"1 << 62|4611686018427387904|too many|overflow")):
        write(struct.pack("<2f", 1, 2), name, "w.bin")
        p = save(identity_model(external_init("w", dims, "w.bin", off, ln)), name, "model.onnx")
        case(name, 2, rf"{p}.*initializer 'w'.*({pat})", f"convert {p} -o {name}/out.plumb")


# --- dims, element counts, raw_data sizes ---------------------------------------------------------

def dims_and_sizes():
    for name, dims, raw, pat in (
            ("dims_2p62", [1 << 62], b"\0" * 8, r"4611686018427387904|too many|overflow|bytes"),
            ("dims_negative", [-3], b"\0" * 8, "negative"),
            ("dims_product_overflow", [1 << 32, 1 << 32, 1 << 32], b"", "too many|overflow"),
            ("dims_product_wraps_to_2", [2, 1 << 63 >> 1, 4], b"\0" * 8, "too many|overflow"),
            ("raw_data_short", [4], b"\0" * 8, "raw_data|bytes"),
            ("raw_data_long", [2], b"\0" * 20, "raw_data|bytes")):
        p = save(identity_model(raw_init("w", dims, raw)), name, "model.onnx")
        case(name, 2, rf"{p}.*initializer 'w'.*({pat})", f"convert {p} -o {name}/out.plumb")
    # typed fields with the wrong count
    t = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    t.dims[0] = 4
    p = save(identity_model(t), "float_data_short", "model.onnx")
    case("float_data_short", 2, rf"{p}.*initializer 'w'.*(float_data|values|elements)",
         f"convert {p} -o float_data_short/out.plumb")
    # declared input dims of 2^62 and negative
    for name, dims, pat in (("input_dim_2p62", [1 << 62, 1 << 62], "input 'x'|'x'"),
                            ("input_dim_negative", [-5], "input 'x'|'x'")):
        m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", dims)], [f32("y", None)])
        p = save(m, name, "model.onnx")
        np.save(os.path.join(OUT, name, "input_0.npy"), np.zeros([2], np.float32))
        case(name, 2, rf"{p}.*({pat})", f"run {p} --data {name}")
    # inputs (--data) whose headers claim 2^62 elements, and an element count past int64
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", None)], [f32("y", None)])
    for name, data, pat in (
            ("npy_input_2p62", npy_header("<f4", (1 << 62,)) + b"\0" * 8, "not a valid .npy file: dimension too large"),
            ("npy_input_overflow", npy_header("<f4", (1 << 40, 1 << 40, 1 << 40)) + b"\0" * 8,
             "not a valid .npy file: dimension too large"),
            ("pb_input_2p62", raw_init("x", [1 << 62], b"\0" * 8).SerializeToString(),
             "tensor 'x': element count overflows")):
        p = save(m, name, "model.onnx")
        f = write(data, name, "input_0." + ("pb" if name.startswith("pb") else "npy"))
        case(name, 2, rf"{f}: {pat}", f"run {p} --data {name}")
    # a ConstantOfShape whose shape asks for 2^62 and 2^31 x 2^31 x 2^31 elements (made at run time)
    for name, shape in (("constant_of_shape_2p62", [1 << 62]),
                        ("constant_of_shape_overflow", [1 << 31, 1 << 31, 1 << 31])):
        shp = helper.make_tensor("shape", TensorProto.INT64, [len(shape)], shape)
        m = model([helper.make_node("ConstantOfShape", ["shape"], ["y"], name="cos")], [], [f32("y", None)], [shp])
        p = save(m, name, "model.onnx")
        case(name, 2, rf"{p}.*(cos|ConstantOfShape)", f"run {p}")
    # Expand of a runtime input to a shape whose element count overflows int64
    m = model([helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")],
              [f32("x", [1]), helper.make_tensor_value_info("shape", TensorProto.INT64, [3])], [f32("y", None)])
    p = save(m, "expand_overflow", "model.onnx")
    np.save(os.path.join(OUT, "expand_overflow", "input_0.npy"), np.zeros([1], np.float32))
    np.save(os.path.join(OUT, "expand_overflow", "input_1.npy"), np.array([1 << 40, 1 << 40, 1 << 40], np.int64))
    case("expand_overflow", 2, rf"{p}.*(expand|Expand)", f"run {p} --data expand_overflow")


# --- nesting: If / Loop / function calls ----------------------------------------------------------

def value_info(name, elem, dims):
    shape = b"".join(fbytes(1, fint(1, d)) for d in dims)  # TensorShapeProto.dim { dim_value }
    tensor = fint(1, elem) + fbytes(2, shape)  # TypeProto.Tensor
    return fbytes(1, name) + fbytes(2, fbytes(1, tensor))  # ValueInfoProto.name, .type.tensor_type


def const_node(out):
    t = helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]).SerializeToString()
    attr = fbytes(1, "value") + fint(20, 4) + fbytes(5, t)
    return fbytes(2, out) + fbytes(4, "Constant") + fbytes(5, attr)


def nested(depth, op, attr_name):
    """A graph `depth` If (or Loop) nodes deep, each level's branch holding the next; serialized
    inside-out with a list of prefixes, so that 100,000 levels take linear time."""
    y = value_info("y", TensorProto.FLOAT, [1])
    small = fbytes(1, const_node("y")) + fbytes(12, y)
    inner = fbytes(1, const_node("y")) + fbytes(12, y)
    prefixes, suffix = [], fbytes(12, y)
    size = len(inner)
    for _ in range(depth):
        else_attr = fbytes(5, fbytes(1, "else_branch") + fint(20, 5) + fbytes(6, small)) if op == "If" else b""
        node_fixed = fbytes(1, "c") + fbytes(2, "y") + fbytes(4, op) + else_attr
        attr_fixed = fbytes(1, attr_name) + fint(20, 5) + tag(6, 2) + varint(size)
        attr_len = len(attr_fixed) + size
        node_len = len(node_fixed) + len(tag(5, 2) + varint(attr_len)) + attr_len
        prefix = tag(1, 2) + varint(node_len) + node_fixed + tag(5, 2) + varint(attr_len) + attr_fixed
        prefixes.append(prefix)
        size = len(prefix) + size + len(suffix)
    graph = b"".join(reversed(prefixes)) + inner + suffix * depth + fbytes(11, value_info("c", TensorProto.BOOL, []))
    opset = fbytes(1, "") + fint(2, 17)
    return fint(1, 8) + fbytes(8, opset) + fbytes(7, graph)


def nesting():
    for depth in (100000, 1000):
        for op, attr in (("If", "then_branch"), ("Loop", "body")):
            name = f"nested_{op.lower()}_{depth}"
            p = write(nested(depth, op, attr), name, "model.onnx")
            case(name, 2, rf"{p}: malformed ModelProto .*nested deeper than 100 messages", f"convert {p} -o {name}/out.plumb")
    # As deep as protobuf parses (its recursion limit, 100 messages: 3 per If level), a valid model
    # that runs; one level more is refused.
    for depth, rc in ((31, 0), (32, 2)):
        name = f"nested_if_{depth}"
        p = write(nested(depth, "If", "then_branch"), name, "model.onnx")
        np.save(os.path.join(OUT, name, "input_0.npy"), np.array(True))
        case(name, rc, rf"{p}: malformed ModelProto" if rc else "-", f"run {p} --data {name}")
    # Function calls: f0 calls f1 ... calls f<n-1>, which is an Identity; a function that calls
    # itself; two that call each other.
    for name, n, last, rc, pat in (
            ("function_chain_100000", 100000, None, 2, r"node '' \(local.f32-1\): model-local function calls nested deeper than 32"),
            ("function_chain_33", 33, None, 2, "nested deeper than 32"),
            ("function_chain_32", 32, None, 0, "-"),
            ("function_self_call", 1, 0, 2, r"node '' \(local.f0-1\): function local.f0 calls itself \(local.f0 -> local.f0\)"),
            ("function_mutual_calls", 2, 0, 2, r"function local.f0 calls itself \(local.f0 -> local.f1 -> local.f0\)")):
        fns = []
        for i in range(n):
            callee = i + 1 if i + 1 < n else last
            node = fbytes(1, "a") + fbytes(2, "b") + (
                fbytes(4, f"f{callee}") + fbytes(7, "local") if callee is not None else fbytes(4, "Identity"))
            fn = (fbytes(1, f"f{i}") + fbytes(4, "a") + fbytes(5, "b") + fbytes(7, node) +
                  fbytes(9, fbytes(1, "") + fint(2, 17)) + fbytes(9, fbytes(1, "local") + fint(2, 1)) +
                  fbytes(10, "local"))
            fns.append(fbytes(25, fn))
        call = fbytes(1, "x") + fbytes(2, "y") + fbytes(3, "call") + fbytes(4, "f0") + fbytes(7, "local")
        graph = fbytes(1, call) + fbytes(11, value_info("x", 1, [2])) + fbytes(12, value_info("y", 1, [2]))
        data = (fint(1, 8) + fbytes(8, fbytes(1, "") + fint(2, 17)) + fbytes(8, fbytes(1, "local") + fint(2, 1)) +
                fbytes(7, graph) + b"".join(fns))
        p = write(data, name, "model.onnx")
        np.save(os.path.join(OUT, name, "input_0.npy"), np.zeros([2], np.float32))
        case(name, rc, rf"{p}.*{pat}", f"run {p} --data {name}")


# --- graph structure: cycles, duplicate and empty names, invalid UTF-8 ------------------------------

def structure():
    relu = lambda i, o, n: helper.make_node("Relu", [i], [o], name=n)
    graphs = {
        "cycle_two_nodes": ([relu("x2", "x1", "a"), relu("x1", "x2", "b"), relu("x2", "y", "c")], [f32("x", [2])],
                            r"cycle|x1|x2|not defined|undefined"),
        "cycle_self": ([relu("t", "t", "a"), relu("t", "y", "b")], [f32("x", [2])], "cycle|'t'|not defined|undefined"),
        "duplicate_output": ([relu("x", "t", "a"), relu("x", "t", "b"), relu("t", "y", "c")], [f32("x", [2])],
                             r"graph 'g': node 'b' \(Relu\): output 't' is already defined by node 'a' \(Relu\)"),
        "duplicate_input": ([relu("x", "y", "a")], [f32("x", [2]), f32("x", [2])],
                            "graph 'g': input 'x' is declared twice"),
        "output_is_input": ([relu("x", "x", "a"), relu("x", "y", "b")], [f32("x", [2])],
                            "node 'a' .*output 'x' is already defined by graph input 'x'"),
        "empty_input_name": ([relu("", "y", "a")], [f32("x", [2])], r"node 'a' \(Relu-17\): required input 0 is missing"),
        "empty_graph_input": ([relu("x", "y", "a")], [f32("", [2]), f32("x", [2])], "graph 'g': input #0 has an empty name"),
        "empty_graph_output": ([relu("x", "", "a")], [f32("x", [2])], "graph output '' is not produced"),
    }
    for name, (nodes, inputs, pat) in graphs.items():
        outputs = [f32("", None)] if name == "empty_graph_output" else [f32("y", None)]
        p = save(model(nodes, inputs, outputs), name, "model.onnx")
        case(name, 2, rf"{p}.*({pat})", f"convert {p} -o {name}/out.plumb")
    # two initializers of one name
    w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    m = model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [f32("x", [2])], [f32("y", None)], [w, w])
    p = save(m, "duplicate_initializer", "model.onnx")
    case("duplicate_initializer", 2, rf"{p}: graph 'g': initializer 'w' is given twice",
         f"convert {p} -o duplicate_initializer/out.plumb")
    # invalid UTF-8 (and a newline) in names and in a string tensor; appended to a valid model's
    # graph (protobuf merges a repeated embedded message), as onnx.helper refuses such bytes.
    base = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", [2])], [f32("y", None)])
    for name, extra, pat in (
            ("utf8_node_name", fbytes(1, fbytes(1, "x") + fbytes(2, "z") + fbytes(3, b"\xff\xfe") + fbytes(4, "Relu")),
             r"node #1: the node's name is not valid UTF-8"),
            ("utf8_op_type", fbytes(1, fbytes(1, "x") + fbytes(2, "z") + fbytes(3, "n") + fbytes(4, b"Re\xc3lu")),
             r"node #1: the node's op_type is not valid UTF-8"),
            ("newline_node_name", fbytes(1, fbytes(1, "x") + fbytes(2, "z") + fbytes(3, b"a\nb") + fbytes(4, "Nope")),
             r"node 'a b' \(Nope-17\): no lowering for Nope"),
            ("utf8_string_tensor", fbytes(5, fint(1, 2) + fint(2, TensorProto.STRING) + fbytes(6, b"ok") +
                                          fbytes(6, b"\xc0\xaf") + fbytes(8, "s")),
             r"initializer 's': tensor 's': string element 1 is not valid UTF-8")):
        data = base.SerializeToString() + fbytes(7, extra)
        p = write(data, name, "model.onnx")
        case(name, 2, rf"{p}.*({pat})", f"convert {p} -o {name}/out.plumb")


# --- a build that fails in the middle of a lowering rule (issues 15 and 23) ------------------------
# Shapes that disagree so that a rule's first core nodes build and a later one fails its shape rule:
# the rule must stop there and report that failure, naming the node, instead of reading the type of
# what the failed build gave back (no value: rnn.cpp read dim 0 of its empty shape, a SIGSEGV).

def failed_builds():
    i64 = lambda name, vals: helper.make_tensor(name, TensorProto.INT64, [len(vals)], vals)
    w = lambda name, dims: helper.make_tensor(name, TensorProto.FLOAT, dims, [0.5] * int(np.prod(dims)))
    node = helper.make_node
    models = {
        # initial_h's batch (3) differs from X's (2): the fuzzer's LSTM case, for GRU and RNN
        "gru_initial_h_batch": ([node("GRU", ["x", "w", "r", "", "", "h0"], ["", "y"], name="gru", hidden_size=3)],
                                [f32("x", [1, 2, 4])], [w("w", [1, 9, 4]), w("r", [1, 9, 3]), w("h0", [1, 3, 3])]),
        "rnn_initial_h_batch": ([node("RNN", ["x", "w", "r", "", "", "h0"], ["", "y"], name="rnn", hidden_size=3)],
                                [f32("x", [1, 2, 4])], [w("w", [1, 3, 4]), w("r", [1, 3, 3]), w("h0", [1, 3, 3])]),
        # a bias of 3 entries for a convolution with 2 output channels
        "conv_bias_channels": ([node("Conv", ["x", "w", "b"], ["y"], name="conv")], [f32("x", [1, 1, 4, 4])],
                               [w("w", [2, 1, 3, 3]), w("b", [3])]),
        "conv_transpose_bias_channels": ([node("ConvTranspose", ["x", "w", "b"], ["y"], name="convt")],
                                         [f32("x", [1, 1, 4, 4])], [w("w", [1, 2, 3, 3]), w("b", [3])]),
        # indices that address more dims than the data has
        "gather_nd_index_depth": ([node("GatherND", ["x", "i"], ["y"], name="gnd")], [f32("x", [2, 2])],
                                  [helper.make_tensor("i", TensorProto.INT64, [1, 3], [0, 0, 0])]),
        # a scalar squeezed along axis 0 (read the first entry of an empty list)
        "squeeze_scalar": ([node("Squeeze", ["x", "a"], ["y"], name="sq")], [f32("x", [])], [i64("a", [0])]),
        # a target shape of 4 elements for 6
        "reshape_count": ([node("Reshape", ["x", "s"], ["y"], name="rs")], [f32("x", [2, 3])], [i64("s", [4])]),
        # a position of two entries where a scalar is due
        "sequence_at_position_shape": ([node("SequenceConstruct", ["x", "z"], ["q"], name="sc"),
                                        node("SequenceAt", ["q", "p"], ["y"], name="sa")],
                                       [f32("x", [2, 3]), f32("z", [2, 3])], [i64("p", [0, 1])]),
    }
    for name, (nodes, inputs, inits) in models.items():
        p = save(model(nodes, inputs, [f32("y", None)], inits), name, "model.onnx")
        where = "|".join(f"'{n.name}'" for n in nodes)
        case(name, 2, rf"{p}: .*({where})", f"convert {p} -o {name}/out.plumb")


# --- whole files: > 2 GiB, a header claiming more than the file holds, an inflating .npz ---------

def files():
    # a sparse file of 2.5 GiB (no disk blocks): a valid model's bytes, then a hole
    base = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", [2])], [f32("y", None)])
    p = write(base.SerializeToString(), "over_2gib", "model.onnx")
    with open(os.path.join(OUT, p), "r+b") as f:
        f.truncate(5 << 29)
    case("over_2gib", 2, rf"{p}.*(2684354560|limit|too large|2 GiB)", f"convert {p} -o over_2gib/out.plumb")
    # a graph field that claims 3 GiB in a file of a few bytes
    p = write(fint(1, 8) + tag(7, 2) + varint(3 << 30) + b"\x0a\x00", "claims_3gib", "model.onnx")
    case("claims_3gib", 2, rf"{p}.*malformed", f"convert {p} -o claims_3gib/out.plumb")
    # .npz entries whose headers claim 100 GiB: a stored one, a deflated one whose stream is short,
    # and a real deflate bomb (4 MB that inflate to 4 GiB under a claim of 100 GiB).
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", [2])], [f32("y", None)])
    d = "npz_bomb"
    p = save(m, d, "model.onnx")
    np.save(os.path.join(OUT, d, "input_0.npy"), np.zeros([2], np.float32))
    header = npy_header("<f4", (100 << 28,))  # 2^34.6 floats: 100 GiB
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = z.compress(b"\0" * (1 << 20)) + z.flush(zlib.Z_FULL_FLUSH)
    for kind, body, claimed in (("stored", header, 100 << 30), ("short", None, 80000),
                                ("bomb", None, 100 << 30), ("bomb_4gib", None, (4 << 30) + len(header))):
        if kind == "short":
            zz = zlib.compressobj(1, zlib.DEFLATED, -15)
            body = zz.compress(header + b"\0" * 64) + zz.flush()
        elif kind.startswith("bomb"):
            zz = zlib.compressobj(1, zlib.DEFLATED, -15)
            head = zz.compress(header) + zz.flush(zlib.Z_FULL_FLUSH)
            body = head + block * 4096 + zlib.compressobj(1, zlib.DEFLATED, -15).flush()
        npz = zip_one("y.npy", body, claimed, 0 if kind == "stored" else 8)
        e = write(npz, d, f"{kind}.npz")
        pat = {"stored": "stored entry 'y.npy' has mismatched sizes",
               "short": "entry 'y.npy' is corrupt",
               "bomb": r"entry 'y.npy' claims 107374182400 bytes inflated from [0-9]+: more than deflate can expand",
               "bomb_4gib": "entry 'y.npy' inflates to 4294967424 bytes: out of memory"}[kind]
        case(f"npz_{kind}", 2, rf"{e}: npz: {pat}", f"check {p} --data {d} --expected {e}")


def npy_header(descr, shape):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s,), }" % (descr, ", ".join(map(str, shape)))
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()


def zip_one(name, data, usize, method):
    """A one-entry ZIP64 archive whose entry claims `usize` bytes uncompressed (CRC 0)."""
    n = name.encode()
    z64 = struct.pack("<HHQQ", 1, 16, usize, len(data))
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF,
                        len(n), len(z64)) + n + z64
    z64c = struct.pack("<HHQQQ", 1, 24, usize, len(data), 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0, 0, 0xFFFFFFFF,
                          0xFFFFFFFF, len(n), len(z64c), 0, 0, 0, 0, 0xFFFFFFFF) + n + z64c
    cd_off = len(local) + len(data)
    eocd64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, len(central), cd_off)
    loc64 = struct.pack("<IIQI", 0x07064B50, 0, cd_off + len(central), 1)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return local + data + central + eocd64 + loc64 + eocd


def main():
    global OUT
    OUT = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    os.chdir(OUT)
    OUT = "."
    external()
    dims_and_sizes()
    nesting()
    structure()
    failed_builds()
    files()
    with open("cases.tsv", "w") as f:
        for c in CASES:
            f.write("\t".join(map(str, c)) + "\n")


if __name__ == "__main__":
    main()
