"""Vectors for gather, scatter, sort, nonzero (spec/ops/<op>.md)."""
import math
from fractions import Fraction

import numpy as np

import formats as F
from common import one_node
from layout import fill, gather_pos


def gather_cases(out):
    for dt in F.ALL:
        for it in ("i32", "i64"):
            cell = "gather %s,%s" % (dt, it)
            out.require(cell)
            xs = fill(dt, 12)
            if it == "i64":   # kind axis: [3,4] operand, indices [2,2] on axis 1 -> [3,2,2]
                ind = [3, 0, 1, 3]
                idx = np.arange(12).reshape(3, 4)[:, np.array(ind).reshape(2, 2)]
                out.add("gather", "axis_%s_%s" % (dt, it), one_node(
                    lambda: "%%r0 = gather %%x, %%i {kind = axis, axis = 1, batch_dims = 0} : %s" % F.ttype(dt, [3, 2, 2]),
                    [("x", dt, [3, 4], xs), ("i", it, [2, 2], ind)], [(dt, [3, 2, 2], gather_pos(xs, idx))], cells=[cell]))
            else:             # kind elements, axis 0: indices [2,4]
                ind = [2, 0, 1, 2, 0, 0, 2, 1]
                idx = np.take_along_axis(np.arange(12).reshape(3, 4), np.array(ind).reshape(2, 4), axis=0)
                out.add("gather", "elements_%s_%s" % (dt, it), one_node(
                    lambda: "%%r0 = gather %%x, %%i {kind = elements, axis = 0, batch_dims = 0} : %s" % F.ttype(dt, [2, 4]),
                    [("x", dt, [3, 4], xs), ("i", it, [2, 4], ind)], [(dt, [2, 4], gather_pos(xs, idx))], cells=[cell]))
    # nd with batch_dims = 1: operand [2,3,2], indices [2,2,1] -> result [2,2,2]
    xs = fill("f32", 12)
    ind = [2, 0, 1, 1]
    op = np.arange(12).reshape(2, 3, 2)
    idx = np.array([[op[b, ind[b * 2 + t]] for t in range(2)] for b in range(2)])
    out.add("gather", "nd_batch1", one_node(
        lambda: "%r0 = gather %x, %i {kind = nd, axis = 0, batch_dims = 1} : f32[2,2,2]",
        [("x", "f32", [2, 3, 2], xs), ("i", "i64", [2, 2, 1], ind)], [("f32", [2, 2, 2], gather_pos(xs, idx))]))
    out.add("gather", "nd_full_index", one_node(
        lambda: "%r0 = gather %x, %i {kind = nd, axis = 0, batch_dims = 0} : i8[3]",
        [("x", "i8", [2, 2], [1, 2, 3, 4]), ("i", "i32", [3, 2], [1, 1, 0, 1, 1, 0])], [("i8", [3], [4, 2, 3])]))
    out.add("gather", "rank0_index", one_node(
        lambda: "%r0 = gather %x, %i {kind = axis, axis = 0, batch_dims = 0} : f32[]",
        [("x", "f32", [3], [F.f32_bits(v) for v in (1.0, -0.0, 2.0)]), ("i", "i64", [], [1])], [("f32", [], [F.f32_bits(-0.0)])]))
    out.add("gather", "empty_indices", one_node(
        lambda: "%r0 = gather %x, %i {kind = axis, axis = 0, batch_dims = 0} : f32[0,2]",
        [("x", "f32", [3, 2], [0] * 6), ("i", "i64", [0], [])], [("f32", [0, 2], [])]))
    for name, ind in (("R1_negative", [0, -1]), ("R1_too_large", [3, 0])):
        out.add("gather", name, one_node(
            lambda: "%r0 = gather %x, %i {kind = axis, axis = 0, batch_dims = 0} : f32[2]",
            [("x", "f32", [3], [0] * 3), ("i", "i64", [2], ind)], [("f32", [2], None)], extra=["expect-error gather.R1"]))
    out.add("gather", "R1_empty_result_still_checked", one_node(
        lambda: "%r0 = gather %x, %i {kind = axis, axis = 1, batch_dims = 0} : f32[0,1]",
        [("x", "f32", [0, 2], []), ("i", "i64", [1], [5])], [("f32", [0, 1], None)], extra=["expect-error gather.R1"]))
    out.add("gather", "C1_index_dtype", one_node(
        lambda: "%r0 = gather %x, %i {kind = axis, axis = 0, batch_dims = 0} : f32[1]",
        [("x", "f32", [3], [0] * 3), ("i", "u8", [1], [0])], [("f32", [1], None)], extra=["reject gather.C1"]))
    out.add("gather", "C3_axis", one_node(
        lambda: "%r0 = gather %x, %i {kind = axis, axis = 1, batch_dims = 0} : f32[1]",
        [("x", "f32", [3], [0] * 3), ("i", "i64", [1], [0])], [("f32", [1], None)], extra=["reject gather.C3"]))


def combine(dt, red, old, v):
    if red == "none":
        return v
    if dt == "bool":
        return (old or v) if red == "max" else (old and v)
    if F.is_int(dt):
        return F.wrap(dt, old + v if red == "add" else old * v) if red in ("add", "mul") else (max(old, v) if red == "max" else min(old, v))
    a, b = F.to_float(F.value(dt, old)), F.to_float(F.value(dt, v))
    if red in ("add", "mul"):
        with np.errstate(all="ignore"):
            r = float(np.float64(a) + np.float64(b)) if red == "add" else float(np.float64(a) * np.float64(b))
        return F.from_float(dt, r)
    if math.isnan(a) or math.isnan(b):
        return F.from_float(dt, float("nan")) if not math.isnan(a) else old
    if a == b:  # -0 < +0
        neg_a = math.copysign(1, a) < 0
        if red == "max":
            return v if neg_a else old
        return old if neg_a else v
    return (old if a > b else v) if red == "max" else (old if a < b else v)


SCATTER_TABLE = {"none": F.INTS + F.FLOATS + ["bool", "string"],
                 "add": F.INTS + F.FLOATS, "mul": F.INTS + F.FLOATS,
                 "max": F.INTS + F.FLOATS + ["bool"], "min": F.INTS + F.FLOATS + ["bool"]}


def scatter_cases(out):
    for red, dts in SCATTER_TABLE.items():
        for dt in dts:
            cell = "scatter.%s %s" % (red, dt)
            out.require(cell)
            ops = fill(dt, 6)
            ups = fill(dt, 4, 3)
            # elements on axis 1 of [2,3]; with a reduction indices repeat (row-major order)
            ind = [2, 0, 1, 2] if red == "none" else [1, 1, 0, 0]
            res = list(ops)
            for k, (row, col) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
                t = row * 3 + ind[k]
                res[t] = combine(dt, red, res[t], ups[k])
            it = "i32" if len(out.cells) % 2 else "i64"
            out.add("scatter", "%s_%s" % (red, dt), one_node(
                lambda: "%%r0 = scatter %%x, %%i, %%u {kind = elements, axis = 1, reduction = %s} : %s" % (red, F.ttype(dt, [2, 3])),
                [("x", dt, [2, 3], ops), ("i", it, [2, 2], ind), ("u", dt, [2, 2], ups)], [(dt, [2, 3], res)], cells=[cell]))
    for it in ("i32", "i64"):
        cell = "scatter.none f32,%s" % it
        out.require(cell)
        # nd: operand [3,2], indices [2,1] -> rows 2 and 0 replaced
        out.add("scatter", "nd_%s" % it, one_node(
            lambda: "%r0 = scatter %x, %i, %u {kind = nd, axis = 0, reduction = none} : f32[3,2]",
            [("x", "f32", [3, 2], [F.f32_bits(v) for v in (1, 2, 3, 4, 5, 6)]), ("i", it, [2, 1], [2, 0]),
             ("u", "f32", [2, 2], [F.f32_bits(v) for v in (-1, -2, -3, -4)])],
            [("f32", [3, 2], [F.f32_bits(v) for v in (-3, -4, 3, 4, -1, -2)])], cells=[cell]))
    out.add("scatter", "add_f16_order", one_node(   # (a + u0) + u1 in row-major order, rounded each time
        lambda: "%r0 = scatter %x, %i, %u {kind = elements, axis = 0, reduction = add} : f16[1]",
        [("x", "f16", [1], [F.from_float("f16", 2048.0)]), ("i", "i64", [3], [0, 0, 0]),
         ("u", "f16", [3], [F.from_float("f16", 1.0)] * 3)],
        [("f16", [1], [F.from_float("f16", 2048.0)])]))
    out.add("scatter", "empty_indices", one_node(
        lambda: "%r0 = scatter %x, %i, %u {kind = elements, axis = 0, reduction = none} : i8[2]",
        [("x", "i8", [2], [5, 6]), ("i", "i64", [0], []), ("u", "i8", [0], [])], [("i8", [2], [5, 6])]))
    out.add("scatter", "R1_out_of_range", one_node(
        lambda: "%r0 = scatter %x, %i, %u {kind = elements, axis = 0, reduction = none} : i8[2]",
        [("x", "i8", [2], [5, 6]), ("i", "i64", [1], [2]), ("u", "i8", [1], [1])], [("i8", [2], None)],
        extra=["expect-error scatter.R1"]))
    out.add("scatter", "R2_duplicate_none", one_node(
        lambda: "%r0 = scatter %x, %i, %u {kind = elements, axis = 0, reduction = none} : i8[2]",
        [("x", "i8", [2], [5, 6]), ("i", "i64", [2], [1, 1]), ("u", "i8", [2], [1, 2])], [("i8", [2], None)],
        extra=["expect-error scatter.R2"]))
    out.add("scatter", "C5_add_string", one_node(
        lambda: "%r0 = scatter %x, %i, %u {kind = elements, axis = 0, reduction = add} : string[2]",
        [("x", "string", [2], ["a", "b"]), ("i", "i64", [1], [1]), ("u", "string", [1], ["c"])], [("string", [2], None)],
        extra=["reject scatter.C5"]))
    out.add("scatter", "C2_kind_axis", one_node(
        lambda: "%r0 = scatter %x, %i, %u {kind = axis, axis = 0, reduction = none} : i8[2]",
        [("x", "i8", [2], [5, 6]), ("i", "i64", [1], [1]), ("u", "i8", [1], [1])], [("i8", [2], None)],
        extra=["reject scatter.C2"]))


def sort_key(dt, x):
    if dt == "string":
        return (0, x.encode())
    if F.is_float(dt):
        v = F.to_float(F.value(dt, x))
        return (1, 0.0) if math.isnan(v) else (0, v)
    return (0, int(x))


def sort_cases(out):
    for dt in F.ALL:
        cell = "sort %s" % dt
        out.require(cell)
        xs = F.specials(dt)
        xs = xs + xs[: len(xs) // 2]   # ties
        n = len(xs)
        rows = [xs, list(reversed(xs))]
        for desc in (False, True):
            vals, inds = [], []
            for row in rows:
                perm = sorted(range(n), key=lambda j: sort_key(dt, row[j]), reverse=desc)
                vals += [row[j] for j in perm]
                inds += perm
            out.add("sort", "%s_%s" % (dt, "desc" if desc else "asc"), one_node(
                lambda: "%%r0, %%r1 = sort %%x {axis = 1, descending = %s} : %s, i64[2,%d]" % (
                    "true" if desc else "false", F.ttype(dt, [2, n]), n),
                [("x", dt, [2, n], rows[0] + rows[1])], [(dt, [2, n], vals), ("i64", [2, n], inds)],
                cells=[cell] if not desc else []))
    out.add("sort", "empty_line", one_node(
        lambda: "%r0, %r1 = sort %x {axis = 0, descending = false} : f32[0,3], i64[0,3]",
        [("x", "f32", [0, 3], [])], [("f32", [0, 3], []), ("i64", [0, 3], [])]))
    out.add("sort", "C2_axis", one_node(
        lambda: "%r0, %r1 = sort %x {axis = 0, descending = false} : f32[], i64[]",
        [("x", "f32", [], [0])], [("f32", [], None), ("i64", [], None)], extra=["reject sort.C2"]))


def nonzero_cases(out):
    for dt in ["bool"] + F.INTS + F.FLOATS:
        cell = "nonzero %s" % dt
        out.require(cell)
        xs = F.specials(dt)
        n = len(xs)
        if F.is_float(dt):
            nz = [not (F.value(dt, x) == "-0" or F.value(dt, x) == 0) for x in xs]
        else:
            nz = [bool(x) for x in xs]
        if n % 2:
            xs = xs + [xs[0]]
            nz = nz + [nz[0]]
            n += 1
        coords = [(k // (n // 2), k % (n // 2)) for k in range(n) if nz[k]]
        m = len(coords)
        out.add("nonzero", dt, one_node(
            lambda: "%r0 = nonzero %x : i64[2,?]",
            [("x", dt, [2, n // 2], xs)], [("i64", [2, m], [c[0] for c in coords] + [c[1] for c in coords])], cells=[cell])
            .replace("-> (i64[2,%d])" % m, "-> (i64[2,?])"))
    out.add("nonzero", "rank0", one_node(lambda: "%r0 = nonzero %x : i64[0,?]", [("x", "f32", [], [F.f32_bits(3.0)])],
                                         [("i64", [0, 1], [])]).replace("-> (i64[0,1])", "-> (i64[0,?])"))
    out.add("nonzero", "empty", one_node(lambda: "%r0 = nonzero %x : i64[2,?]", [("x", "i8", [0, 3], [])],
                                         [("i64", [2, 0], [])]).replace("-> (i64[2,0])", "-> (i64[2,?])"))
    out.add("nonzero", "C1_string", one_node(lambda: "%r0 = nonzero %x : i64[1,?]", [("x", "string", [1], ["a"])],
                                             [("i64", [1, 1], None)], extra=["reject nonzero.C1"]).replace("-> (i64[1,1])", "-> (i64[1,?])"))


def generate(out):
    gather_cases(out)
    scatter_cases(out)
    sort_cases(out)
    nonzero_cases(out)
