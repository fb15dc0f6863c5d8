"""Vectors for unary, binary, compare, select (spec/ops/<op>.md)."""
import ctypes
import ctypes.util
import math
from fractions import Fraction

import numpy as np

import formats as F

# f64 pow through the C library's pow (glibc's is correctly rounded), as math.exp/math.log are:
# np.power dispatches to a SIMD implementation on CPUs with AVX-512 that is off by an ulp for some
# inputs (2.5 ** -1 gave 0.39999999999999997), so the vectors depended on the machine that made them.
_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.pow.restype = ctypes.c_double
_libm.pow.argtypes = (ctypes.c_double, ctypes.c_double)
from common import one_node

UNARY_TABLE = {  # spec/ops/unary.md "Dtypes"
    ("neg", "abs"): F.SIGNED + F.ARITH_FLOATS,
    ("sign",): F.INTS + F.ARITH_FLOATS,
    ("not",): ["bool"] + F.INTS,
    ("floor", "ceil", "round", "sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan",
     "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf"): F.ARITH_FLOATS,
}
BINARY_TABLE = {  # spec/ops/binary.md "Dtypes"
    ("add", "sub", "mul", "div", "rem", "pow", "max", "min"): F.INTS + F.ARITH_FLOATS,
    ("and", "or", "xor"): ["bool"] + F.INTS,
    ("shl", "shr"): F.UNSIGNED,
}
COMPARE_TABLE = {  # spec/ops/compare.md "Dtypes"
    ("eq", "ne"): F.ALL,
    ("lt", "le", "gt", "ge"): F.INTS + F.FLOATS,
}


def expand(table):
    for kinds, dts in table.items():
        for k in kinds:
            for dt in dts:
                yield k, dt


# ---- float functions in f64 with C99 Annex F special values -----------------------------------
def annex_f(kind, x):
    nan, inf = float("nan"), float("inf")
    if math.isnan(x):
        return nan
    try:
        if kind == "sqrt":
            return nan if x < 0 else math.sqrt(x)       # sqrt(-0) = -0 (math keeps it)
        if kind == "exp":
            return 0.0 if x == -inf else math.exp(x)
        if kind == "log":
            if x == 0:
                return -inf
            return nan if x < 0 else math.log(x)
        if kind in ("sin", "cos", "tan"):
            return nan if math.isinf(x) else getattr(math, kind)(x)
        if kind in ("asin", "acos"):
            return nan if abs(x) > 1 else getattr(math, kind)(x)
        if kind == "acosh":
            return nan if x < 1 else math.acosh(x)
        if kind == "atanh":
            if abs(x) == 1:
                return math.copysign(inf, x)
            return nan if abs(x) > 1 else math.atanh(x)
        return getattr(math, kind)(x)                   # atan sinh cosh tanh asinh erf
    except OverflowError:
        if kind == "sinh":
            return math.copysign(inf, x)
        return inf                                      # exp, cosh


def unary_float(kind, x):
    """x: python float (exact value of the element); returns python float result (exact for the
    exactly rounded kinds)."""
    if kind == "neg":
        return -x
    if kind == "abs":
        return abs(x)
    if kind == "sign":
        return x if math.isnan(x) else (1.0 if x > 0 else (-1.0 if x < 0 else 0.0))
    if kind in ("floor", "ceil", "round"):
        f = {"floor": np.floor, "ceil": np.ceil, "round": np.rint}[kind]
        return float(f(np.float64(x)))                 # keep -0, inf, NaN; rint: ties to even
    return annex_f(kind, x)


def unary_int(kind, dt, x):
    if dt == "bool":
        return not x
    if kind == "neg":
        return F.wrap(dt, -x)
    if kind == "abs":
        return F.wrap(dt, -x) if x < 0 else x
    if kind == "sign":
        return 1 if x > 0 else (-1 if x < 0 else 0)
    if kind == "not":
        return F.wrap(dt, ~x)
    raise ValueError(kind)


EXTRA = [0.25, -0.75, 0.1, 10.0, -10.0, 100.0, 0.9, 1.5, -2.5, 4.5]


def float_inputs(dt, kind=None):
    xs = list(F.specials(dt))
    if dt != "f8e8m0":
        for e in EXTRA:
            b = F.FMT[dt].round(Fraction(e), saturate=True)
            if b not in xs:
                xs.append(b)
    return xs


def fval(dt, bits):
    return F.to_float(F.value(dt, bits))


def unary_cases(out):
    for kind, dt in expand(UNARY_TABLE):
        cell = "unary.%s %s" % (kind, dt)
        out.require(cell)
        if F.is_float(dt):
            xs = float_inputs(dt)
            ys = [F.from_float(dt, unary_float(kind, fval(dt, b))) for b in xs]
        else:
            xs = F.specials(dt)
            ys = [unary_int(kind, dt, x) for x in xs]
        n = len(xs)
        out.add("unary", "%s_%s" % (kind, dt), one_node(
            lambda: "%%r0 = unary %%x {kind = %s} : %s" % (kind, F.ttype(dt, [n])),
            [("x", dt, [n], xs)], [(dt, [n], ys)], cells=[cell]))
    # rank 0 and empty, per kind on one dtype of its table
    for kinds, dts in UNARY_TABLE.items():
        for kind in kinds:
            dt = "f32" if "f32" in dts else "i8"
            x = F.specials(dt)[2]
            y = F.from_float(dt, unary_float(kind, fval(dt, x))) if F.is_float(dt) else unary_int(kind, dt, x)
            out.add("unary", "%s_rank0" % kind, one_node(
                lambda: "%%r0 = unary %%x {kind = %s} : %s[]" % (kind, dt),
                [("x", dt, [], [x])], [(dt, [], [y])]))
            out.add("unary", "%s_empty" % kind, one_node(
                lambda: "%%r0 = unary %%x {kind = %s} : %s[0,3]" % (kind, dt),
                [("x", dt, [0, 3], [])], [(dt, [0, 3], [])]))


# ---- binary ------------------------------------------------------------------------------------
def fmax(a, b):
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if a == b:
        return b if math.copysign(1, a) < 0 else a
    return a if a > b else b


def fmin(a, b):
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if a == b:
        return a if math.copysign(1, a) < 0 else b
    return a if a < b else b


def binary_float(kind, a, b):
    """f64 arithmetic: +,-,*,/ correctly rounded in f64, then rounded again to the dtype; for
    p <= 24 that double rounding equals one rounding of the exact result (53 >= 2p + 2)."""
    with np.errstate(all="ignore"):
        x, y = np.float64(a), np.float64(b)
        if kind == "add":
            return float(x + y)
        if kind == "sub":
            return float(x - y)
        if kind == "mul":
            return float(x * y)
        if kind == "div":
            return float(x / y)
        if kind == "rem":
            return float(np.fmod(x, y))
        if kind == "pow":
            return _libm.pow(float(x), float(y))
    return fmax(a, b) if kind == "max" else fmin(a, b)


def int_pow(dt, a, b):
    if b < 0:
        return 1 if a == 1 else (1 if b % 2 == 0 else -1)
    return F.wrap(dt, pow(a, b, 1 << F.BITS[dt]))


def binary_int(kind, dt, a, b):
    n = F.BITS[dt]
    if dt == "bool":
        return {"and": a and b, "or": a or b, "xor": a != b}[kind]
    if kind == "add": return F.wrap(dt, a + b)
    if kind == "sub": return F.wrap(dt, a - b)
    if kind == "mul": return F.wrap(dt, a * b)
    if kind == "div":
        q = abs(a) // abs(b)
        return F.wrap(dt, q if (a < 0) == (b < 0) else -q)
    if kind == "rem":
        q = abs(a) // abs(b)
        q = q if (a < 0) == (b < 0) else -q
        return F.wrap(dt, a - b * q)
    if kind == "pow": return int_pow(dt, a, b)
    if kind == "max": return a if a >= b else b
    if kind == "min": return a if a <= b else b
    if kind == "and": return F.wrap(dt, a & b)
    if kind == "or": return F.wrap(dt, a | b)
    if kind == "xor": return F.wrap(dt, a ^ b)
    if kind == "shl": return 0 if b >= n else F.wrap(dt, a << b)
    if kind == "shr": return 0 if b >= n else a >> b
    raise ValueError(kind)


def pairs(xs):
    return [a for a in xs for _ in xs], [b for _ in xs for b in xs]


def binary_inputs(kind, dt):
    if F.is_float(dt):
        xs = F.specials(dt)[:15]
        extra = [F.FMT[dt].round(Fraction(e), saturate=True) for e in (0.1, -0.75, 4.5)]
        xs = xs + [e for e in extra if e not in xs]
        return pairs(xs)
    xs = F.specials(dt)
    a, b = pairs(xs)
    if dt == "bool":
        return a, b
    keep = lambda x, y: True
    if kind in ("div", "rem"):
        keep = lambda x, y: y != 0
    elif kind == "pow":
        lo, hi = F.int_range(dt)
        exps = [e for e in (0, 1, 2, 3, 5, F.BITS[dt] - 1, F.BITS[dt], hi) if e <= hi]
        a = [x for x in xs for _ in exps] + ([-1, -1] if F.is_signed(dt) else [])
        b = [e for _ in xs for e in exps] + ([lo, -1] if F.is_signed(dt) else [])
        return a, b
    elif kind in ("shl", "shr"):
        n = F.BITS[dt]
        exps = sorted(set(e for e in (0, 1, n - 1, n, n + 1, F.int_range(dt)[1]) if e <= F.int_range(dt)[1]))
        return [x for x in xs for _ in exps], [e for _ in xs for e in exps]
    sel = [(x, y) for x, y in zip(a, b) if keep(x, y)]
    return [p[0] for p in sel], [p[1] for p in sel]


def binary_cases(out):
    for kind, dt in expand(BINARY_TABLE):
        cell = "binary.%s %s" % (kind, dt)
        out.require(cell)
        a, b = binary_inputs(kind, dt)
        if F.is_float(dt):
            ys = [F.from_float(dt, binary_float(kind, fval(dt, x), fval(dt, y))) for x, y in zip(a, b)]
        else:
            ys = [binary_int(kind, dt, x, y) for x, y in zip(a, b)]
        n = len(a)
        out.add("binary", "%s_%s" % (kind, dt), one_node(
            lambda: "%%r0 = binary %%a, %%b {kind = %s} : %s" % (kind, F.ttype(dt, [n])),
            [("a", dt, [n], a), ("b", dt, [n], b)], [(dt, [n], ys)], cells=[cell]))
    for kinds, dts in BINARY_TABLE.items():
        for kind in kinds:
            dt = "f32" if "f32" in dts else "u8"
            a, b = F.specials(dt)[2], F.specials(dt)[3]   # f32: 1, -1; u8: 255, 254
            y = (F.from_float(dt, binary_float(kind, fval(dt, a), fval(dt, b))) if F.is_float(dt)
                 else binary_int(kind, dt, a, b))
            out.add("binary", "%s_rank0" % kind, one_node(
                lambda: "%%r0 = binary %%a, %%b {kind = %s} : %s[]" % (kind, dt),
                [("a", dt, [], [a]), ("b", dt, [], [b])], [(dt, [], [y])]))
            out.add("binary", "%s_empty" % kind, one_node(
                lambda: "%%r0 = binary %%a, %%b {kind = %s} : %s[2,0]" % (kind, dt),
                [("a", dt, [2, 0], []), ("b", dt, [2, 0], [])], [(dt, [2, 0], [])]))
    # runtime errors: integer division by zero (binary.R1), negative integer pow (binary.R2)
    for dt in ("i32", "u8", "i4"):
        for kind in ("div", "rem"):
            out.add("binary", "%s_%s_by_zero" % (kind, dt), one_node(
                lambda: "%%r0 = binary %%a, %%b {kind = %s} : %s[3]" % (kind, dt),
                [("a", dt, [3], [1, 2, 3]), ("b", dt, [3], [1, 0, 1])], [(dt, [3], None)],
                extra=["expect-error binary.R1"]))
    out.add("binary", "pow_i32_negative_exponent", one_node(
        lambda: "%r0 = binary %a, %b {kind = pow} : i32[2]",
        [("a", "i32", [2], [1, 2]), ("b", "i32", [2], [-3, -1])], [("i32", [2], None)],
        extra=["expect-error binary.R2"]))


# ---- compare, select ---------------------------------------------------------------------------
def cmp(kind, a, b):
    return {"eq": a == b, "ne": not (a == b), "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[kind]


def compare_cases(out):
    for kind, dt in expand(COMPARE_TABLE):
        cell = "compare.%s %s" % (kind, dt)
        out.require(cell)
        xs = F.specials(dt)
        a, b = pairs(xs)
        if F.is_float(dt):
            key = lambda v: fval(dt, v)
        elif dt == "string":
            key = lambda v: v.encode()
        else:
            key = lambda v: v
        ys = [cmp(kind, key(x), key(y)) for x, y in zip(a, b)]
        n = len(a)
        out.add("compare", "%s_%s" % (kind, dt), one_node(
            lambda: "%%r0 = compare %%a, %%b {kind = %s} : bool[%d]" % (kind, n),
            [("a", dt, [n], a), ("b", dt, [n], b)], [("bool", [n], ys)], cells=[cell]))
    for kind in ("eq", "lt"):
        out.add("compare", "%s_rank0" % kind, one_node(
            lambda: "%%r0 = compare %%a, %%b {kind = %s} : bool[]" % kind,
            [("a", "i64", [], [3]), ("b", "i64", [], [3])], [("bool", [], [kind == "eq"])]))
        out.add("compare", "%s_empty" % kind, one_node(
            lambda: "%%r0 = compare %%a, %%b {kind = %s} : bool[0]" % kind,
            [("a", "f16", [0], []), ("b", "f16", [0], [])], [("bool", [0], [])]))


def select_cases(out):
    for dt in F.ALL:
        cell = "select %s" % dt
        out.require(cell)
        xs = F.specials(dt)
        ys = list(reversed(xs))
        pred = [k % 3 != 1 for k in range(len(xs))]
        r = [x if p else y for p, x, y in zip(pred, xs, ys)]
        n = len(xs)
        out.add("select", dt, one_node(
            lambda: "%%r0 = select %%p, %%t, %%f : %s" % F.ttype(dt, [n]),
            [("p", "bool", [n], pred), ("t", dt, [n], xs), ("f", dt, [n], ys)], [(dt, [n], r)],
            cells=[cell]))
    out.add("select", "rank0", one_node(
        lambda: "%r0 = select %p, %t, %f : f32[]",
        [("p", "bool", [], [False]), ("t", "f32", [], [F.f32_bits(1.0)]), ("f", "f32", [], [F.f32_bits(-0.0)])],
        [("f32", [], [F.f32_bits(-0.0)])]))
    out.add("select", "empty", one_node(
        lambda: "%r0 = select %p, %t, %f : string[0,2]",
        [("p", "bool", [0, 2], []), ("t", "string", [0, 2], []), ("f", "string", [0, 2], [])],
        [("string", [0, 2], [])]))


def generate(out):
    unary_cases(out)
    binary_cases(out)
    compare_cases(out)
    select_cases(out)
