"""Vectors for the value and layout ops: constant, iota, shape_of, reshape, broadcast, transpose,
slice, concat, pad (spec/ops/<op>.md). Positions are computed with numpy index arrays; elements
are copied, so every dtype of the "every dtype" tables is exercised with its special values."""
from fractions import Fraction

import numpy as np

import formats as F
from common import case_text, expect_dir, input_dir, one_node

EVERY = F.ALL


def fill(dt, n, offset=0):
    xs = F.specials(dt)
    # more distinct values for wide types, so a misplaced element shows
    if F.is_int(dt) and F.BITS[dt] >= 8:
        xs = xs + [v for v in range(4, 40) if v <= F.int_range(dt)[1]]
    if dt == "string":
        xs = xs + ["s%d" % k for k in range(30)]
    return [xs[(k + offset) % len(xs)] for k in range(n)]


def gather_pos(xs, idx):
    return [xs[i] for i in idx.reshape(-1)]


def const_line(name, dt, shape, elems):
    from formats import dense, ttype
    return "%%%s = constant {value = %s} : %s" % (name, dense(dt, shape, elems), ttype(dt, shape))


def with_consts(consts, node, ins, outs, cells=(), extra=()):
    """a case whose operands after `ins` are constants: consts = [(name, dt, shape, elems)]."""
    params = [(n, F.ttype(dt, sh)) for n, dt, sh, _ in ins]
    nodes = [const_line(*c) for c in consts] + [node]
    results = [("r%d" % k, F.ttype(dt, sh)) for k, (dt, sh, _) in enumerate(outs)]
    d = ["cell " + c for c in cells] + [input_dir(n, dt, sh, el) for n, dt, sh, el in ins] + list(extra)
    d += [expect_dir(k, dt, sh, el) for k, (dt, sh, el) in enumerate(outs) if el is not None]
    return case_text(params, nodes, results, d)


def iota_value(dt, k):
    if F.is_int(dt):
        return F.wrap(dt, k)
    if dt == "f8e8m0":
        return F.e8m0_round(Fraction(k), False, "nearest_even")
    return F.FMT[dt].round(Fraction(k), False)


def generate(out):
    for dt in EVERY:
        # constant
        cell = "constant %s" % dt
        out.require(cell)
        xs = fill(dt, 7)
        scalar = [xs[1]]
        out.add("constant", dt, case_text(
            [], [const_line("c", dt, [7], xs), const_line("s", dt, [], scalar), const_line("e", dt, [0, 2], [])],
            [("c", F.ttype(dt, [7])), ("s", F.ttype(dt, [])), ("e", F.ttype(dt, [0, 2]))],
            ["cell " + cell, expect_dir(0, dt, [7], xs), expect_dir(1, dt, [], scalar), expect_dir(2, dt, [0, 2], [])]))
        # shape_of
        cell = "shape_of %s" % dt
        out.require(cell)
        out.add("shape_of", dt, one_node(lambda: "%r0 = shape_of %x : i64[3]", [("x", dt, [2, 0, 5], [])],
                                         [("i64", [3], [2, 0, 5])], cells=[cell]))
        # reshape
        cell = "reshape %s" % dt
        out.require(cell)
        xs = fill(dt, 12)
        out.add("reshape", dt, with_consts([("s", "i64", [3], [3, 1, 4])], "%r0 = reshape %x, %s : " + F.ttype(dt, [3, 1, 4]),
                                           [("x", dt, [2, 6], xs)], [(dt, [3, 1, 4], xs)], cells=[cell]))
        # broadcast
        cell = "broadcast %s" % dt
        out.require(cell)
        xs = fill(dt, 3)
        idx = np.broadcast_to(np.arange(3).reshape(3, 1), (2, 3, 4))
        out.add("broadcast", dt, with_consts([("s", "i64", [3], [2, 3, 4])], "%r0 = broadcast %x, %s {dims = [1, 2]} : " + F.ttype(dt, [2, 3, 4]),
                                             [("x", dt, [3, 1], xs)], [(dt, [2, 3, 4], gather_pos(xs, idx))], cells=[cell]))
        # transpose
        cell = "transpose %s" % dt
        out.require(cell)
        xs = fill(dt, 24)
        idx = np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1)
        out.add("transpose", dt, one_node(lambda: "%r0 = transpose %x {perm = [2, 0, 1]} : " + F.ttype(dt, [4, 2, 3]),
                                          [("x", dt, [2, 3, 4], xs)], [(dt, [4, 2, 3], gather_pos(xs, idx))], cells=[cell]))
        # slice: start [1, 4], size [2, 2], stride [1, -2] on [3, 5]
        cell = "slice %s" % dt
        out.require(cell)
        xs = fill(dt, 15)
        idx = np.arange(15).reshape(3, 5)[1:3, 4::-2][:, :2]
        out.add("slice", dt, with_consts(
            [("a", "i64", [2], [1, 4]), ("n", "i64", [2], [2, 2]), ("t", "i64", [2], [1, -2])],
            "%r0 = slice %x, %a, %n, %t : " + F.ttype(dt, [2, 2]),
            [("x", dt, [3, 5], xs)], [(dt, [2, 2], gather_pos(xs, idx))], cells=[cell]))
        # concat
        cell = "concat %s" % dt
        out.require(cell)
        a, b = fill(dt, 4), fill(dt, 6, 3)
        r = np.concatenate([np.arange(4).reshape(2, 2), 4 + np.arange(6).reshape(2, 3)], axis=1)
        out.add("concat", dt, one_node(lambda: "%r0 = concat %a, %e, %b {axis = 1} : " + F.ttype(dt, [2, 5]),
                                       [("a", dt, [2, 2], a), ("e", dt, [2, 0], []), ("b", dt, [2, 3], b)],
                                       [(dt, [2, 5], gather_pos(a + b, r))], cells=[cell]))
        # pad, each mode
        cell = "pad %s" % dt
        out.require(cell)
        xs = fill(dt, 6)
        v = fill(dt, 1, 5)[0]
        for mode in ("constant", "reflect", "edge", "wrap"):
            base = np.arange(6).reshape(2, 3)
            if mode == "constant":   # position 6 stands for the padding value
                idx = np.pad(base, ((1, 0), (2, 1)), mode="constant", constant_values=6)
            else:                    # reflect: every pad is smaller than its dim (2 and 3)
                idx = np.pad(base, ((1, 0), (2, 1)), mode=mode)
            out.add("pad", "%s_%s" % (dt, mode), with_consts(
                [("lo", "i64", [2], [1, 2]), ("hi", "i64", [2], [0, 1]), ("v", dt, [], [v])],
                "%%r0 = pad %%x, %%lo, %%hi, %%v {mode = %s} : %s" % (mode, F.ttype(dt, [3, 6])),
                [("x", dt, [2, 3], xs)], [(dt, [3, 6], gather_pos(xs + [v], idx))],
                cells=[cell] if mode == "constant" else []))
    # iota: every dtype of its table, length 20 (f4e2m1 saturates, u2 wraps), plus f16 near 65520
    for dt in F.INTS + F.FLOATS:
        cell = "iota %s" % dt
        out.require(cell)
        n = 20
        ys = [iota_value(dt, k) for _ in range(2) for k in range(n)]
        out.add("iota", dt, with_consts([("s", "i64", [2], [2, n])], "%%r0 = iota %%s {dtype = %s, axis = 1} : %s" % (dt, F.ttype(dt, [2, n])),
                                        [], [(dt, [2, n], ys)], cells=[cell]))
    ys = [iota_value("f16", k) for k in range(65500, 65530)]   # from 65520 on: inf
    out.add("iota", "f16_overflow", with_consts(
        [("s", "i64", [1], [65530]), ("a", "i64", [1], [65500]), ("n", "i64", [1], [30]), ("t", "i64", [1], [1])],
        "%i = iota %s {dtype = f16, axis = 0} : f16[65530]\n  %r0 = slice %i, %a, %n, %t : f16[30]",
        [], [("f16", [30], ys)]))
    ys_i8 = [iota_value("i8", k) for k in range(300)]
    out.add("iota", "i8_wraps", with_consts([("s", "i64", [1], [300])], "%r0 = iota %s {dtype = i8, axis = 0} : i8[300]",
                                            [], [("i8", [300], ys_i8)]))
    out.add("iota", "empty", with_consts([("s", "i64", [2], [0, 4])], "%r0 = iota %s {dtype = f32, axis = 0} : f32[0,4]",
                                         [], [("f32", [0, 4], [])]))
    # rank 0 / empty for the layout ops
    out.add("reshape", "rank0_to_1", with_consts([("s", "i64", [1], [1])], "%r0 = reshape %x, %s : f32[1]",
                                                 [("x", "f32", [], [F.f32_bits(-0.0)])], [("f32", [1], [F.f32_bits(-0.0)])]))
    out.add("reshape", "to_rank0", with_consts([("s", "i64", [0], [])], "%r0 = reshape %x, %s : i8[]",
                                               [("x", "i8", [1, 1], [-5])], [("i8", [], [-5])]))
    out.add("reshape", "empty", with_consts([("s", "i64", [3], [3, 0, 7])], "%r0 = reshape %x, %s : f32[3,0,7]",
                                            [("x", "f32", [0, 3], [])], [("f32", [3, 0, 7], [])]))
    out.add("broadcast", "rank0_splat", with_consts([("s", "i64", [2], [2, 2])], "%r0 = broadcast %x, %s {dims = []} : u4[2,2]",
                                                    [("x", "u4", [], [9])], [("u4", [2, 2], [9] * 4)]))
    out.add("broadcast", "one_to_zero", with_consts([("s", "i64", [2], [0, 3])], "%r0 = broadcast %x, %s {dims = [0, 1]} : f32[0,3]",
                                                    [("x", "f32", [1, 3], [0, 0, 0])], [("f32", [0, 3], [])]))
    out.add("transpose", "rank0", one_node(lambda: "%r0 = transpose %x {perm = []} : string[]",
                                           [("x", "string", [], ["z"])], [("string", [], ["z"])]))
    out.add("transpose", "empty", one_node(lambda: "%r0 = transpose %x {perm = [1, 0]} : f32[3,0]",
                                           [("x", "f32", [0, 3], [])], [("f32", [3, 0], [])]))
    out.add("slice", "rank0", with_consts([("a", "i64", [0], []), ("n", "i64", [0], []), ("t", "i64", [0], [])],
                                          "%r0 = slice %x, %a, %n, %t : i64[]", [("x", "i64", [], [7])], [("i64", [], [7])]))
    out.add("slice", "empty_start_at_end", with_consts([("a", "i64", [1], [5]), ("n", "i64", [1], [0]), ("t", "i64", [1], [1])],
                                                       "%r0 = slice %x, %a, %n, %t : f32[0]", [("x", "f32", [5], [0] * 5)], [("f32", [0], [])]))
    out.add("pad", "wrap_beyond_dim", with_consts([("lo", "i64", [1], [4]), ("hi", "i64", [1], [5]), ("v", "i32", [], [0])],
                                                  "%r0 = pad %x, %lo, %hi, %v {mode = wrap} : i32[12]",
                                                  [("x", "i32", [3], [1, 2, 3])], [("i32", [12], [3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2])]))
    out.add("pad", "rank0", with_consts([("lo", "i64", [0], []), ("hi", "i64", [0], []), ("v", "f32", [], [0])],
                                        "%r0 = pad %x, %lo, %hi, %v {mode = edge} : f32[]",
                                        [("x", "f32", [], [F.f32_bits(2.5)])], [("f32", [], [F.f32_bits(2.5)])]))
    # runtime errors: shapes and positions that only exist at run time
    rt_err = [
        ("reshape", "R2_count_mismatch", [("s", "i64", [2], [4, 2])], "%r0 = reshape %x, %s : f32[?,?]", [("x", "f32", [2, 3], [0] * 6)], "reshape.R2"),
        ("reshape", "R1_negative", [("s", "i64", [2], [-1, -6])], "%r0 = reshape %x, %s : f32[?,?]", [("x", "f32", [2, 3], [0] * 6)], "reshape.R1"),
        ("broadcast", "R2_bad_dim", [("s", "i64", [1], [4])], "%r0 = broadcast %x, %s {dims = [0]} : f32[?]", [("x", "f32", [3], [0] * 3)], "broadcast.R2"),
        ("slice", "R3_out_of_range", [("a", "i64", [1], [3]), ("n", "i64", [1], [2]), ("t", "i64", [1], [1])], "%r0 = slice %x, %a, %n, %t : f32[?]", [("x", "f32", [4], [0] * 4)], "slice.R3"),
        ("slice", "R1_zero_stride", [("a", "i64", [1], [0]), ("n", "i64", [1], [2]), ("t", "i64", [1], [0])], "%r0 = slice %x, %a, %n, %t : f32[?]", [("x", "f32", [4], [0] * 4)], "slice.R1"),
        ("pad", "R2_reflect_too_far", [("lo", "i64", [1], [3]), ("hi", "i64", [1], [0]), ("v", "f32", [], [0])], "%r0 = pad %x, %lo, %hi, %v {mode = reflect} : f32[?]", [("x", "f32", [3], [0] * 3)], "pad.R2"),
        ("iota", "R1_negative", [("s", "i64", [1], [-2])], "%r0 = iota %s {dtype = f32, axis = 0} : f32[?]", [], "iota.R1"),
    ]
    for op, name, shape_ins, node, ins, label in rt_err:
        out.add(op, name, one_node(lambda: node, shape_ins + ins, [], extra=["expect-error " + label])
                .replace("-> ()", "-> (%s)" % node.split(" : ")[1]).replace("  return\n", "  return %r0\n"))
    # verifier rejections
    rej = [
        ("transpose", "C2_not_permutation", "%r0 = transpose %x {perm = [0, 0]} : f32[2,2]", [("x", "f32", [2, 2], [0] * 4)], "f32[2,2]", "transpose.C2"),
        ("concat", "C2_axis", "%r0 = concat %x, %x {axis = 2} : f32[4,2]", [("x", "f32", [2, 2], [0] * 4)], "f32[4,2]", "concat.C2"),
        ("concat", "C1_dtype", "%r0 = concat %x, %y {axis = 0} : f32[4]", [("x", "f32", [2], [0] * 2), ("y", "f16", [2], [0] * 2)], "f32[4]", "concat.C1"),
        ("broadcast", "C2_dims_not_increasing", "%r0 = broadcast %x, %s {dims = [1, 0]} : f32[?,?]", [("x", "f32", [2, 2], [0] * 4), ("s", "i64", [2], [2, 2])], "f32[?,?]", "broadcast.C2"),
        ("iota", "C3_bool", "%r0 = iota %s {dtype = bool, axis = 0} : bool[?]", [("s", "i64", [1], [2])], "bool[?]", "iota.C3"),
        ("slice", "C1_start_dtype", "%r0 = slice %x, %s, %s, %s : f32[?]", [("x", "f32", [4], [0] * 4), ("s", "i32", [1], [0])], "f32[?]", "slice.C1"),
    ]
    for op, name, node, ins, rtype, label in rej:
        out.add(op, name, one_node(lambda: node, ins, [], extra=["reject " + label])
                .replace("-> ()", "-> (%s)" % rtype).replace("  return\n", "  return %r0\n"))
