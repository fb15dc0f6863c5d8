"""Vectors for matmul and conv (spec/ops/matmul.md, conv.md): exact sums of products (Fractions,
IEEE special values) rounded once to `to`; the DotProduct bound (n * eps * sum|a||b|) is written
as a `bound` line."""
from fractions import Fraction

import formats as F
from common import one_node
from reduce import INF, NAN, ev, exact_sum, fl, frac, is_inf, is_nan, round_result

F8 = ["f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz"]
TABLE = ([("f16", "f16", t) for t in ("f16", "f32")] + [("bf16", "bf16", t) for t in ("bf16", "f32")] +
         [("f32", "f32", "f32"), ("f64", "f64", "f64")] +
         [(a, b, t) for a in F8 for b in F8 for t in ("f32", "f16", "bf16")] +
         [(a, b, t) for a in F.INTS for b in F.INTS for t in ("i32", "u32", "i64", "u64")])


def mul(a, b):
    """exact IEEE product of exact values (no rounding: products of these formats are exact in
    the accumulator except f64, whose rounding the bound covers)."""
    if is_nan(a) or is_nan(b):
        return NAN
    za = a == "-0" or (not is_inf(a) and a == 0)
    zb = b == "-0" or (not is_inf(b) and b == 0)
    if (is_inf(a) and zb) or (is_inf(b) and za):
        return NAN
    neg = ((a == "-0" or (a != "-0" and a < 0)) != (b == "-0" or (b != "-0" and b < 0)))
    if is_inf(a) or is_inf(b):
        return -INF if neg else INF
    p = frac(a) * frac(b)
    return ("-0" if neg else Fraction(0)) if p == 0 else p


def acc_round(acc, v):
    if is_nan(v) or is_inf(v) or v == "-0":
        return v
    return acc.decode(acc.round(v))


def tame(dt, vals):
    return [F.FMT[dt].round(Fraction(v) if not isinstance(v, float) else v, saturate=not isinstance(v, float)) for v in vals]


def operands(a_dt, b_dt, n_a, n_b):
    if F.is_int(a_dt):
        A = (F.specials(a_dt) * 4)[:n_a]
    else:
        A = tame(a_dt, ([1, Fraction(-3, 2), Fraction(1, 2), 3, Fraction(5, 2), -2] * 4)[:n_a])
    if F.is_int(b_dt):
        B = (list(reversed(F.specials(b_dt))) * 4)[:n_b]
    else:
        B = tame(b_dt, ([Fraction(1, 2), 2, -1, Fraction(3, 2), Fraction(1, 4), -3] * 4)[:n_b])
    return A, B


def dot(a_dt, b_dt, to, pairs):
    """pairs of elements -> (result element, bound)."""
    if F.is_int(a_dt):
        return F.wrap(to, sum(a * b for a, b in pairs)), 0.0
    acc = F.FMT["f64" if a_dt == "f64" else "f32"]   # acc_t; each product is rounded to it
    terms = [acc_round(acc, mul(ev(a_dt, a), ev(b_dt, b))) for a, b in pairs]
    r = exact_sum([Fraction(0)] + terms)      # starts from +0: never -0
    mag = sum((abs(frac(ev(a_dt, a))) * abs(frac(ev(b_dt, b))) for a, b in pairs
               if not any(is_inf(ev(d, x)) or is_nan(ev(d, x)) for d, x in ((a_dt, a), (b_dt, b)))), Fraction(0))
    eps = Fraction(1, 1 << F.FMT[to].m)
    b = 0.0 if is_inf(r) or is_nan(r) else fl(len(pairs) * eps * mag)
    return round_result(to, r), b


def bound_line(shape, bounds):
    if not any(b > 0 for b in bounds):
        return []
    return ["bound 0 = dense<f64%s>[%s]" % (F.shape_str(shape), ", ".join(repr(b) for b in bounds))]


def matmul_case(out, name, a_dt, b_dt, to, M, K, N, A, B, cell=None, batch=()):
    bs = 1
    for d in batch:
        bs *= d
    ys, bounds = [], []
    for bi in range(bs):
        for m in range(M):
            for n in range(N):
                y, b = dot(a_dt, b_dt, to, [(A[bi * M * K + m * K + k], B[bi * K * N + k * N + n]) for k in range(K)])
                ys.append(y)
                bounds.append(b)
    rs = list(batch) + [M, N]
    out.add("matmul", name, one_node(
        lambda: "%%r0 = matmul %%a, %%b {to = %s} : %s" % (to, F.ttype(to, rs)),
        [("a", a_dt, list(batch) + [M, K], A), ("b", b_dt, list(batch) + [K, N], B)], [(to, rs, ys)],
        cells=[cell] if cell else [], extra=bound_line(rs, bounds)))


def conv_case(out, name, a_dt, b_dt, to, X, W, xs, ws, strides, dil, lhs_dil, lo, hi, groups, cell=None):
    N, C, D = X
    O, Cg, Kk = W
    din = 0 if D == 0 else (D - 1) * lhs_dil + 1
    E = (din + lo + hi - ((Kk - 1) * dil + 1)) // strides + 1
    Og = O // groups
    ys, bounds = [], []
    for b in range(N):
        for o in range(O):
            g = o // Og
            for e in range(E):
                pairs = []
                for c in range(Cg):
                    for k in range(Kk):
                        p = e * strides + k * dil - lo
                        if 0 <= p < din and p % lhs_dil == 0:
                            i = p // lhs_dil
                            pairs.append((xs[(b * C + g * Cg + c) * D + i], ws[(o * Cg + c) * Kk + k]))
                y, bd = dot(a_dt, b_dt, to, pairs)
                ys.append(y)
                bounds.append(bd)
    rs = [N, O, E]
    out.add("conv", name, one_node(
        lambda: "%%r0 = conv %%x, %%w {to = %s, strides = [%d], dilations = [%d], lhs_dilations = [%d], pads_low = [%d], pads_high = [%d], groups = %d} : %s" % (
            to, strides, dil, lhs_dil, lo, hi, groups, F.ttype(to, rs)),
        [("x", a_dt, list(X), xs), ("w", b_dt, list(W), ws)], [(to, rs, ys)],
        cells=[cell] if cell else [], extra=bound_line(rs, bounds)))


def generate(out):
    for a_dt, b_dt, to in TABLE:
        cell = "matmul %s,%s,%s" % (a_dt, b_dt, to)
        out.require(cell)
        A, B = operands(a_dt, b_dt, 6, 6)
        matmul_case(out, "%s_%s_to_%s" % (a_dt, b_dt, to), a_dt, b_dt, to, 2, 3, 2, A, B, cell)
        cell = "conv %s,%s,%s" % (a_dt, b_dt, to)
        out.require(cell)
        xs, ws = operands(a_dt, b_dt, 8, 8)
        conv_case(out, "%s_%s_to_%s" % (a_dt, b_dt, to), a_dt, b_dt, to, (1, 2, 4), (2, 2, 2), xs, ws,
                  1, 1, 1, 1, 0, 1, cell)
    # special values, batch, K = 0, empty
    f = lambda vs: [F.f32_bits(v) for v in vs]
    matmul_case(out, "f32_specials", "f32", "f32", "f32", 2, 2, 2, f([INF, 0.0, NAN, 1.0]), f([0.0, 1.0, 2.0, -0.0]))
    matmul_case(out, "f32_negzero_is_plus_zero", "f32", "f32", "f32", 1, 1, 1, f([-1.0]), f([0.0]))
    matmul_case(out, "f32_overflow", "f32", "f32", "f32", 1, 2, 1, f([3e38, 3e38]), f([2.0, -2.0]))
    matmul_case(out, "i8_u8_batch", "i8", "u8", "i32", 2, 2, 1, [-128, 127, 1, -1, 5, 6, 7, 8], [255, 255, 1, 2], batch=(2,))
    matmul_case(out, "f16_k0", "f16", "f16", "f32", 2, 0, 3, [], [])
    matmul_case(out, "f32_m0", "f32", "f32", "f32", 0, 2, 3, [], f([1.0] * 6))
    out.add("matmul", "C4_bool", one_node(lambda: "%r0 = matmul %a, %b {to = i32} : i32[1,1]",
                                         [("a", "bool", [1, 1], [True]), ("b", "bool", [1, 1], [True])], [("i32", [1, 1], None)],
                                         extra=["reject matmul.C4"]))
    out.add("matmul", "C3_contraction", one_node(lambda: "%r0 = matmul %a, %b {to = f32} : f32[1,1]",
                                                [("a", "f32", [1, 2], [0, 0]), ("b", "f32", [3, 1], [0, 0, 0])], [("f32", [1, 1], None)],
                                                extra=["reject matmul.C3"]))
    conv_case(out, "f32_strided_dilated_padded", "f32", "f32", "f32", (1, 1, 5), (1, 1, 2),
              f([1, 2, 3, 4, 5]), f([1, -1]), 2, 2, 1, 2, 1, 1)
    conv_case(out, "f32_lhs_dilation", "f32", "f32", "f32", (1, 1, 3), (1, 1, 2),
              f([1, 2, 3]), f([1, 10]), 1, 1, 2, 1, 1, 1)
    conv_case(out, "f32_inf_weight_over_padding", "f32", "f32", "f32", (1, 1, 2), (1, 1, 2),
              f([1, 2]), f([INF, 1]), 1, 1, 1, 1, 0, 1)
    conv_case(out, "i32_groups", "i32", "i32", "i32", (1, 4, 2), (2, 2, 1),
              [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, -1], 1, 1, 1, 0, 0, 2)
    out.add("conv", "C5_groups", one_node(
        lambda: "%r0 = conv %x, %w {to = f32, strides = [1], dilations = [1], lhs_dilations = [1], pads_low = [0], pads_high = [0], groups = 3} : f32[1,2,1]",
        [("x", "f32", [1, 2, 1], [0, 0]), ("w", "f32", [2, 2, 1], [0] * 4)], [("f32", [1, 2, 1], None)], extra=["reject conv.C5"]))
