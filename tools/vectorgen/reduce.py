"""Vectors for reduce, arg_reduce, scan, pool (spec/ops/<op>.md). Sums and products are computed
exactly (Fractions, IEEE special values) and rounded once; the Accumulation bound of
spec/numerics.md is written as a `bound` line (n * eps * sum|x|) where the data is not exact."""
import math
from fractions import Fraction

import formats as F
from common import expect_dir, one_node

INF, NAN = float("inf"), float("nan")


def eps(dt):
    if dt == "f8e8m0":
        return 1.0
    return 2.0 ** -F.FMT[dt].m


def ev(dt, x):
    """exact value of element x: Fraction, '-0', or float inf/nan; ints and bool as ints."""
    if dt == "bool" or F.is_int(dt):
        return x
    return F.value(dt, x)


def fl(x):
    """a bound as an f64 (huge ones clamp to the largest f64: they only loosen the bound)."""
    return float(x) if x < Fraction(2) ** 1020 else 1.7976931348623157e308


def is_nan(v): return isinstance(v, float) and math.isnan(v)
def is_inf(v): return isinstance(v, float) and math.isinf(v)
def frac(v): return Fraction(0) if v == "-0" else v
def neg0(v): return v == "-0"


def exact_sum(vals):
    """IEEE sum of exact values with the spec's -0 start (a sum of -0s is -0)."""
    if any(is_nan(v) for v in vals):
        return NAN
    infs = set(v for v in vals if is_inf(v))
    if len(infs) == 2:
        return NAN
    if infs:
        return infs.pop()
    if vals and all(neg0(v) for v in vals):
        return "-0"
    s = sum((frac(v) for v in vals), Fraction(0))
    return s


def exact_prod(vals):
    if any(is_nan(v) for v in vals):
        return NAN
    has_inf = any(is_inf(v) for v in vals)
    has_zero = any(neg0(v) or (not is_inf(v) and v == 0) for v in vals)
    if has_inf and has_zero:
        return NAN
    negative = sum(1 for v in vals if (neg0(v) or (is_inf(v) and v < 0) or (not is_inf(v) and not neg0(v) and v < 0))) % 2 == 1
    if has_inf:
        return -INF if negative else INF
    p = Fraction(1)
    for v in vals:
        p *= frac(v)
    if p == 0:
        return "-0" if negative else Fraction(0)
    return p


def fmax_list(vals, kind):
    if any(is_nan(v) for v in vals):
        return NAN
    def key(v):
        if is_inf(v):
            return (Fraction(10) ** 400 * (1 if v > 0 else -1), 0)
        if neg0(v):
            return (Fraction(0), -1)
        return (v, 1 if v == 0 else 0)
    return (max if kind == "max" else min)(vals, key=key)


def round_result(dt, v):
    """accumulator result -> element of dt (overflow as cast saturate=false)."""
    if dt == "f8e8m0":
        return F.e8m0_round(v, False, "nearest_even")
    return F.FMT[dt].round(v, False)


def reduce_float(dt, kind, xs):
    vals = [ev(dt, x) for x in xs]
    if kind == "sum":
        r = exact_sum(vals) if vals else Fraction(0)
        mag = sum((abs(frac(v)) for v in vals if not is_inf(v) and not is_nan(v)), Fraction(0))
    elif kind == "prod":
        r = exact_prod(vals) if vals else Fraction(1)
        mag = Fraction(1)
        for v in vals:
            if not is_inf(v) and not is_nan(v):
                mag *= abs(frac(v))
    else:
        if vals:
            return fmax_list(vals, kind), 0.0
        r = -INF if kind == "max" else INF      # formats without inf round it as cast does
        mag = Fraction(0)
    bound = 0.0 if is_inf(r) or is_nan(r) else fl(len(vals) * Fraction(eps(dt)) * mag)
    return r, bound


def float_rows(dt):
    """rows of 6 elements: exact-friendly values, specials, denormals, overflow."""
    R = lambda vals: [F.FMT[dt].round(v if isinstance(v, float) else Fraction(v), saturate=not isinstance(v, float))
                      if not (isinstance(v, str)) else F.FMT[dt].round("-0") for v in vals]
    if dt == "f8e8m0":
        return [[0x7F, 0x80, 0x7E, 0x81, 0x7F, 0x7D], [0x7F, 0xFF, 0x80, 0x7F, 0x7F, 0x7F],
                [0x00, 0x01, 0x02, 0x7F, 0x7F, 0x7F], [0xFE, 0xFE, 0x7F, 0x7F, 0x7F, 0x7F]]
    f = F.FMT[dt]
    rows = [R([1, Fraction(-3, 2), Fraction(1, 2), 3, Fraction(5, 2), "-0"]),
            R(["-0", "-0", "-0", "-0", "-0", "-0"]),
            R([Fraction(1, 4), -1, Fraction(3, 4), 2, Fraction(-1, 2), Fraction(1, 4)])]
    if f.kind != "f4":
        rows.append(R([1, NAN, 2, 3, -1, 0]))
        sub = Fraction(2) ** (f.emin - f.m)
        rows.append(R([sub, sub, -sub, Fraction(2) ** f.emin, sub * 3, 1]))
    if f.kind == "ieee":
        rows.append(R([INF, 1, -INF, 2, 3, 4]))
        rows.append(R([INF, 1, 2, -1, 3, INF]))
    if dt not in ("f32", "f64", "bf16"):
        rows.append(R([f.maxv, f.maxv, 1, 1, 1, 1]))           # overflow of the final rounding
    return rows


def reduce_cases(out):
    table = {k: F.FLOATS + F.INTS for k in ("sum", "prod", "max", "min")}
    table["max"] = table["max"] + ["bool"]
    table["min"] = table["min"] + ["bool"]
    for kind, dts in table.items():
        for dt in dts:
            cell = "reduce.%s %s" % (kind, dt)
            out.require(cell)
            if F.is_float(dt):
                rows = float_rows(dt)
            elif dt == "bool":
                rows = [[True, False, True], [False, False, False], [True, True, True]]
            else:
                rows = [F.specials(dt)[:6] if len(F.specials(dt)) >= 6 else (F.specials(dt) * 3)[:6]]
                rows.append([F.int_range(dt)[1]] * 6)
                rows.append([F.int_range(dt)[0], 1, 1, 0 if F.is_signed(dt) else 1, 1, 1])
            c = len(rows[0])
            xs = [x for row in rows for x in row]
            ys, bounds, any_bound = [], [], False
            for row in rows:
                if F.is_float(dt):
                    r, b = reduce_float(dt, kind, [x for x in row])
                    ys.append(round_result(dt, r))
                    bounds.append(b)
                    any_bound = any_bound or b > 0
                elif dt == "bool":
                    ys.append(any(row) if kind == "max" else all(row))
                else:
                    if kind == "sum":
                        ys.append(F.wrap(dt, sum(row)))
                    elif kind == "prod":
                        p = 1
                        for x in row:
                            p *= x
                        ys.append(F.wrap(dt, p))
                    else:
                        ys.append(max(row) if kind == "max" else min(row))
            n = len(rows)
            extra = []
            if any_bound:
                extra.append("bound 0 = dense<f64[%d]>[%s]" % (n, ", ".join(repr(float(b)) for b in bounds)))
            out.add("reduce", "%s_%s" % (kind, dt), one_node(
                lambda: "%%r0 = reduce %%x {kind = %s, axes = [1]} : %s" % (kind, F.ttype(dt, [n])),
                [("x", dt, [n, c], xs)], [(dt, [n], ys)], cells=[cell], extra=extra))
    # identities of empty reductions, axes = [], rank 0, order
    for kind, ident in (("sum", 0.0), ("prod", 1.0), ("max", -INF), ("min", INF)):
        out.add("reduce", "%s_empty_f32" % kind, one_node(
            lambda: "%%r0 = reduce %%x {kind = %s, axes = [0]} : f32[3]" % kind,
            [("x", "f32", [0, 3], [])], [("f32", [3], [F.f32_bits(ident)] * 3)]))
    for kind, ident in (("sum", 0), ("prod", 1), ("max", -8), ("min", 7)):
        out.add("reduce", "%s_empty_i4" % kind, one_node(
            lambda: "%%r0 = reduce %%x {kind = %s, axes = [1]} : i4[2]" % kind,
            [("x", "i4", [2, 0], [])], [("i4", [2], [ident] * 2)]))
    out.add("reduce", "max_empty_bool", one_node(
        lambda: "%r0 = reduce %x {kind = max, axes = [0]} : bool[]", [("x", "bool", [0], [])], [("bool", [], [False])]))
    out.add("reduce", "sum_empty_f8e8m0_is_nan", one_node(
        lambda: "%r0 = reduce %x {kind = sum, axes = [0]} : f8e8m0[]", [("x", "f8e8m0", [0], [])], [("f8e8m0", [], [0xFF])]))
    out.add("reduce", "sum_no_axes_rank0", one_node(
        lambda: "%r0 = reduce %x {kind = sum, axes = []} : f16[]", [("x", "f16", [], [F.from_float("f16", -0.0)])],
        [("f16", [], [F.from_float("f16", -0.0)])]))
    out.add("reduce", "sum_f32_order", one_node(   # spec: 1e8 + 1 + 1 + 1 + 1 - 1e8 sums to 0 on ref
        lambda: "%r0 = reduce %x {kind = sum, axes = [0, 1]} : f32[]",
        [("x", "f32", [2, 3], [F.f32_bits(v) for v in (1e8, 1, 1, 1, 1, -1e8)])], [("f32", [], [F.f32_bits(0.0)])],
        extra=["bound 0 = dense<f64[]>[%r]" % (6 * 2.0 ** -23 * (2e8 + 4))]))
    out.add("reduce", "C3_sum_bool", one_node(
        lambda: "%r0 = reduce %x {kind = sum, axes = [0]} : bool[]", [("x", "bool", [2], [True, True])],
        [("bool", [], None)], extra=["reject reduce.C3"]))
    out.add("reduce", "C2_axes_order", one_node(
        lambda: "%r0 = reduce %x {kind = max, axes = [1, 0]} : f32[]", [("x", "f32", [1, 1], [0])],
        [("f32", [], None)], extra=["reject reduce.C2"]))
    out.add("reduce", "C1_string", one_node(
        lambda: "%r0 = reduce %x {kind = max, axes = [0]} : string[]", [("x", "string", [1], ["a"])],
        [("string", [], None)], extra=["reject reduce.C1"]))


def arg_key(dt, x):
    if F.is_float(dt):
        v = F.to_float(F.value(dt, x))
        return v
    return int(x)


def arg_reduce_cases(out):
    for kind in ("max", "min"):
        for dt in ["bool"] + F.INTS + F.FLOATS:
            cell = "arg_reduce.%s %s" % (kind, dt)
            out.require(cell)
            xs = F.specials(dt)
            lines = [xs, list(reversed(xs)), xs[1:] + xs[:1]]
            n = len(xs)
            for last in (False, True):
                res = []
                for line in lines:
                    best = 0
                    for t in range(1, n):
                        x, b = arg_key(dt, line[t]), arg_key(dt, line[best])
                        if isinstance(b, float) and math.isnan(b):
                            take = last and isinstance(x, float) and math.isnan(x)
                        elif isinstance(x, float) and math.isnan(x):
                            take = True
                        else:
                            take = (x > b if kind == "max" else x < b) or (last and x == b)
                        if take:
                            best = t
                    res.append(best)
                out.add("arg_reduce", "%s_%s%s" % (kind, dt, "_last" if last else ""), one_node(
                    lambda: "%%r0 = arg_reduce %%x {kind = %s, axis = 1, select_last = %s} : i64[3]" % (kind, "true" if last else "false"),
                    [("x", dt, [3, n], [e for l in lines for e in l])], [("i64", [3], res)], cells=[] if last else [cell]))
    out.add("arg_reduce", "rank1_to_rank0", one_node(
        lambda: "%r0 = arg_reduce %x {kind = max, axis = 0, select_last = true} : i64[]",
        [("x", "f32", [4], [F.f32_bits(v) for v in (-0.0, 0.0, -0.0, 0.0)])], [("i64", [], [3])]))
    out.add("arg_reduce", "empty_other_dim", one_node(
        lambda: "%r0 = arg_reduce %x {kind = min, axis = 1} : i64[0]".replace("axis = 1}", "axis = 1, select_last = false}"),
        [("x", "i8", [0, 3], [])], [("i64", [0], [])]))
    out.add("arg_reduce", "C3_empty_axis", one_node(
        lambda: "%r0 = arg_reduce %x {kind = max, axis = 0, select_last = false} : i64[]",
        [("x", "f32", [0], [])], [("i64", [], None)], extra=["reject arg_reduce.C3"]))


def scan_cases(out):
    for kind in ("sum", "prod"):
        for dt in F.FLOATS + F.INTS:
            cell = "scan.%s %s" % (kind, dt)
            out.require(cell)
            if F.is_float(dt):
                rows = float_rows(dt)
            else:
                sp = F.specials(dt)
                rows = [(sp * 3)[:6], [F.int_range(dt)[1]] * 6]
            c = len(rows[0])
            for excl, rev in ((False, False), (True, False), (False, True), (True, True)):
                ys, bounds, any_bound = [], [], False
                for row in rows:
                    out_row = [None] * c
                    order_ = list(range(c))[::-1] if rev else list(range(c))
                    for step, t in enumerate(order_):
                        prefix = [row[j] for j in order_[: step + (0 if excl else 1)]]
                        if F.is_float(dt):
                            if not prefix:
                                r, b = (Fraction(0) if kind == "sum" else Fraction(1)), 0.0
                            elif kind == "sum":
                                vals = [ev(dt, x) for x in prefix]
                                r = exact_sum(vals)
                                b = 0.0 if is_inf(r) or is_nan(r) else fl(len(vals) * Fraction(eps(dt)) * sum((abs(frac(v)) for v in vals), Fraction(0)))
                            else:
                                r, b = reduce_float(dt, "prod", prefix)
                            out_row[t] = round_result(dt, r)
                            bounds.append((t, b))
                            any_bound = any_bound or b > 0
                        else:
                            if kind == "sum":
                                out_row[t] = F.wrap(dt, sum(prefix))
                            else:
                                p = 1
                                for x in prefix:
                                    p *= x
                                out_row[t] = F.wrap(dt, p)
                    ys += out_row
                n = len(rows)
                extra = []
                if any_bound:
                    bl = [0.0] * (n * c)
                    k = 0
                    for ri in range(n):
                        for t, b in bounds[ri * c:(ri + 1) * c]:
                            bl[ri * c + t] = b
                    extra.append("bound 0 = dense<f64[%d,%d]>[%s]" % (n, c, ", ".join(repr(float(b)) for b in bl)))
                name = "%s_%s%s%s" % (kind, dt, "_exclusive" if excl else "", "_reverse" if rev else "")
                out.add("scan", name, one_node(
                    lambda: "%%r0 = scan %%x {kind = %s, axis = 1, exclusive = %s, reverse = %s} : %s" % (
                        kind, "true" if excl else "false", "true" if rev else "false", F.ttype(dt, [n, c])),
                    [("x", dt, [n, c], [x for row in rows for x in row])], [(dt, [n, c], ys)],
                    cells=[cell] if not excl and not rev else [], extra=extra))
    out.add("scan", "empty", one_node(
        lambda: "%r0 = scan %x {kind = sum, axis = 0, exclusive = false, reverse = false} : f32[0,2]",
        [("x", "f32", [0, 2], [])], [("f32", [0, 2], [])]))
    out.add("scan", "C3_max", one_node(
        lambda: "%r0 = scan %x {kind = max, axis = 0, exclusive = false, reverse = false} : f32[2]",
        [("x", "f32", [2], [0, 0])], [("f32", [2], None)], extra=["reject scan.C3"]))
    out.add("scan", "C1_bool", one_node(
        lambda: "%r0 = scan %x {kind = sum, axis = 0, exclusive = false, reverse = false} : bool[2]",
        [("x", "bool", [2], [True, False])], [("bool", [2], None)], extra=["reject scan.C1"]))


def pool_cases(out):
    """1-D windows over [1, 1, 6] (N, C, W): window 3, stride 2, dilation 1, pads 1/1 -> 3 outputs;
    and a window in the padding only."""
    for kind in ("max", "sum"):
        for dt in F.INTS + ["f16", "bf16", "f32", "f64"]:
            cell = "pool.%s %s" % (kind, dt)
            out.require(cell)
            if F.is_float(dt):
                xs = float_rows(dt)[0] if kind == "sum" else F.specials(dt)[:6]
                if len(xs) < 6:
                    xs = (xs * 2)[:6]
            else:
                xs = (F.specials(dt) * 3)[:6]
            D = 6
            wins = []
            for e in range(3):
                wins.append([q for q in (e * 2 - 1, e * 2, e * 2 + 1) if 0 <= q < D])
            ys, idxs, bounds, any_bound = [], [], [], False
            for w in wins:
                vals = [xs[q] for q in w]
                if kind == "sum":
                    if F.is_float(dt):
                        ex = [ev(dt, x) for x in vals]
                        r = exact_sum([Fraction(0)] + ex)   # starts from +0
                        ys.append(round_result(dt, r))
                        b = 0.0 if is_inf(r) or is_nan(r) else fl(len(ex) * Fraction(eps(dt)) * sum((abs(frac(v)) for v in ex if not is_inf(v) and not is_nan(v)), Fraction(0)))
                        bounds.append(b)
                        any_bound = any_bound or b > 0
                    else:
                        ys.append(F.wrap(dt, sum(vals)))
                else:
                    best = None
                    for q in w:
                        if best is None:
                            best = q
                            continue
                        b, x = xs[best], xs[q]
                        if F.is_float(dt):
                            bv, xv = F.to_float(F.value(dt, b)), F.to_float(F.value(dt, x))
                            if math.isnan(bv):
                                continue
                            if math.isnan(xv) or xv > bv or (xv == 0 and bv == 0 and math.copysign(1, bv) < 0 and math.copysign(1, xv) > 0):
                                best = q
                        elif x > b:
                            best = q
                    ys.append(xs[best])
                    idxs.append(best)
            outs = [(dt, [1, 1, 3], ys)] + ([("i64", [1, 1, 3], idxs)] if kind == "max" else [])
            types = F.ttype(dt, [1, 1, 3]) + (", i64[1,1,3]" if kind == "max" else "")
            names = "%r0, %r1" if kind == "max" else "%r0"
            extra = ["bound 0 = dense<f64[1,1,3]>[%s]" % ", ".join(repr(b) for b in bounds)] if any_bound else []
            out.add("pool", "%s_%s" % (kind, dt), one_node(
                lambda: "%s = pool %%x {kind = %s, window = [1, 1, 3], strides = [1, 1, 2], dilations = [1, 1, 1], pads_low = [0, 0, 1], pads_high = [0, 0, 1]} : %s" % (names, kind, types),
                [("x", dt, [1, 1, D], xs)], outs, cells=[cell], extra=extra))
    # a window entirely in the padding: max gives lowest and index -1, sum +0
    out.add("pool", "max_window_in_padding", one_node(
        lambda: "%r0, %r1 = pool %x {kind = max, window = [2], strides = [3], dilations = [1], pads_low = [0], pads_high = [3]} : i8[2], i64[2]",
        [("x", "i8", [2], [5, -3])], [("i8", [2], [5, -128]), ("i64", [2], [0, -1])]))
    out.add("pool", "sum_dilated_2d", one_node(
        lambda: "%r0 = pool %x {kind = sum, window = [2, 2], strides = [1, 1], dilations = [2, 1], pads_low = [0, 0], pads_high = [0, 0]} : i32[1,2]",
        [("x", "i32", [3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9])], [("i32", [1, 2], [1 + 2 + 7 + 8, 2 + 3 + 8 + 9])]))
    out.add("pool", "C6_bool", one_node(
        lambda: "%r0 = pool %x {kind = max, window = [1], strides = [1], dilations = [1], pads_low = [0], pads_high = [0]} : bool[2]",
        [("x", "bool", [2], [True, False])], [("bool", [2], None)], extra=["reject pool.C6"]))
    out.add("pool", "C7_indices_for_sum", one_node(
        lambda: "%r0, %r1 = pool %x {kind = sum, window = [1], strides = [1], dilations = [1], pads_low = [0], pads_high = [0]} : f32[2], i64[2]",
        [("x", "f32", [2], [0, 0])], [("f32", [2], None), ("i64", [2], None)], extra=["reject pool.C7"]))
    out.add("pool", "C3_zero_stride", one_node(
        lambda: "%r0 = pool %x {kind = max, window = [1], strides = [0], dilations = [1], pads_low = [0], pads_high = [0]} : f32[2]",
        [("x", "f32", [2], [0, 0])], [("f32", [2], None)], extra=["reject pool.C3"]))


def generate(out):
    reduce_cases(out)
    arg_reduce_cases(out)
    scan_cases(out)
    pool_cases(out)
