"""Vectors for cast and bitcast (spec/ops/cast.md, spec/ops/bitcast.md)."""
import math
from fractions import Fraction

import formats as F
from common import one_node


def floor_log2_of(v):
    return F.floor_log2(v)


def exact(dt, bits):
    """exact value of a float element: Fraction, '-0', or float nan/inf."""
    return F.value(dt, bits)


def round_into(to, v, saturate, mode="nearest_even"):
    saturate = saturate and to.startswith("f8")   # read only for float8 results (cast.md)
    if to == "f8e8m0":
        return F.e8m0_round(v, saturate, mode)
    return F.FMT[to].round(v, saturate)


def is_zero(v):
    return v == "-0" or (not isinstance(v, float) and v == 0)


def shortest_decimal(dt, bits):
    """The shortest digit string d (and its decimal exponent) whose value rounds back to `bits`
    in dt (round_to, ties to even)."""
    v = exact(dt, bits)
    x = abs(Fraction(v))
    for p in range(1, 40):
        # exact decimal rounding of the rational x to p significant digits, ties to even
        e = len(str(x.numerator // x.denominator)) - 1 if x >= 1 else -len(str(x.denominator // x.numerator))
        while Fraction(10) ** e > x:
            e -= 1
        while Fraction(10) ** (e + 1) <= x:
            e += 1
        q = Fraction(10) ** (e - p + 1)
        lo = math.floor(x / q)
        # the nearest p-digit decimal first, then the other neighbour (near a power of two the
        # round-trip interval is lopsided, numpy's dragon4 then takes the far side)
        near = F.round_half_even(x / q)
        for n in (near, lo if near != lo else lo + 1):
            if round_into(dt, n * q, False) == bits & ~(F.FMT[dt].sign_bit() if dt != "f8e8m0" else 0):
                ee = e
                if n == 10 ** p:
                    n //= 10
                    ee += 1
                digits = str(n).rstrip("0") or "0"
                return digits, ee
    raise AssertionError((dt, bits))


def float_to_string(dt, bits):
    """spec/ops/cast.md "Strings": numpy str() of the source dtype's value."""
    v = exact(dt, bits)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if v == "-0":
        return "-0.0"
    if v == 0:
        return "0.0"
    sign = "-" if v < 0 else ""
    digits, e = shortest_decimal(dt, bits)
    a = abs(v)
    if Fraction(1, 10000) <= a < Fraction(10) ** 16:
        if e >= 0:
            ip = (digits + "0" * (e + 1))[: e + 1]
            fp = digits[e + 1:] or "0"
            return sign + ip + "." + fp
        return sign + "0." + "0" * (-e - 1) + digits
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return sign + mant + "e" + ("-" if e < 0 else "+") + "%02d" % abs(e)


def number_value(dt, x):
    """an element as an exact number (Fraction / '-0' / float special), bool as 0/1."""
    if dt == "bool":
        return Fraction(int(x))
    if F.is_int(dt):
        return Fraction(x)
    return exact(dt, x)


def parse_number_string(s):
    """strtod-style literal -> python float, or None when it is not one (cast.R2)."""
    t = s.lower()
    if t in ("inf", "+inf", "infinity", "+infinity"):
        return float("inf")
    if t in ("-inf", "-infinity"):
        return float("-inf")
    if t in ("nan", "+nan", "-nan"):
        return float("nan")
    import re
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s):
        return None
    return float(s)


def cast_elem(src, to, x, saturate, mode="nearest_even"):
    """result element, or None when the element must raise cast.R1/R2."""
    if src == to:
        return x
    if to == "string":
        if src == "bool":
            return "True" if x else "False"
        if F.is_int(src):
            return str(x)
        return float_to_string(src, x)
    if src == "string":
        if to == "bool" and x.lower() in ("true", "false"):
            return x.lower() == "true"
        if F.is_int(to) and __import__("re").fullmatch(r"[+-]?\d+", x):
            v = int(x)
            lo, hi = F.int_range(to)
            return v if lo <= v <= hi else None
        f = parse_number_string(x)
        if f is None:
            return None
        return cast_elem("f64", to, F.f64_bits(f) if not math.isnan(f) else 0x7FF8000000000000, saturate, mode)
    v = number_value(src, x)
    if to == "bool":
        return not is_zero(v)
    if F.is_int(to):
        if isinstance(v, float):
            return None                       # NaN, inf: cast.R1
        if v == "-0":
            v = Fraction(0)
        t = math.trunc(v)
        lo, hi = F.int_range(to)
        if F.is_int(src):
            return F.wrap(to, int(v))
        return t if lo <= t <= hi else None
    return round_into(to, v, saturate, mode)


def values_for(src, to):
    if src == "string":
        if to == "bool":
            return ["true", "FALSE", "0", "2.5", "-0", "nan"]
        if F.is_int(to):
            lo, hi = F.int_range(to)
            return ["0", "1", str(hi), "+%d" % hi, str(lo), "1e0", "%d.75" % hi if hi < 1 << 53 else "1.5"]
        if to == "string":
            return F.specials("string")
        return ["3.14", "-1e-5", "1E8", "+2", "inf", "-INF", "NaN", "Infinity", "0", "-0", "1e400"]
    xs = list(F.specials(src))
    if F.is_float(src) and src != "f8e8m0":
        for e in (2.75, -2.75, 100.5, 0.1, 1e9, -1e9, 65520.0, 300.0, 1e-30):
            b = F.FMT[src].round(Fraction(e), saturate=True)
            if b not in xs:
                xs.append(b)
    if src == "f8e8m0":
        xs = list(range(256)) if to == "string" else xs + [0x7E, 0x81, 0x8A]
    elif to == "string" and F.is_float(src) and F.BITS[src] <= 8:
        xs = list(range(1 << F.BITS[src]))            # every value of the 8- and 4-bit formats
    elif to == "string" and src in ("f16", "bf16", "f32", "f64"):
        # powers of two: there the shortest round-trip decimal may lie on the far side
        f = F.FMT[src]
        step = 1 if src != "f64" else 7
        for k in range(f.emin - f.m, int(F.floor_log2(f.maxv)) + 1, step):
            xs.append(f.round(Fraction(2) ** k))
    return xs


def cast_line(to, n, saturate, mode="nearest_even"):
    return "%%r0 = cast %%x {to = %s, saturate = %s, round = %s} : %s[%d]" % (
        to, "true" if saturate else "false", mode, to, n)


def cast_case(out, name, src, to, xs, saturate, cell=None, mode="nearest_even"):
    ys = [cast_elem(src, to, x, saturate, mode) for x in xs]
    keep = [(x, y) for x, y in zip(xs, ys) if y is not None]
    xs, ys = [k[0] for k in keep], [k[1] for k in keep]
    n = len(xs)
    out.add("cast", name, one_node(lambda: cast_line(to, n, saturate, mode), [("x", src, [n], xs)],
                                   [(to, [n], ys)], cells=[cell] if cell else []))


def cast_cases(out):
    for src in F.ALL:
        for to in F.ALL:
            cell = "cast %s,%s" % (src, to)
            out.require(cell)
            cast_case(out, "%s_to_%s" % (src, to), src, to, values_for(src, to), False, cell)
    for src in ("f32", "f64", "f16", "bf16", "i32"):
        for to in ("f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "f8e8m0", "f4e2m1"):
            cast_case(out, "%s_to_%s_saturate" % (src, to), src, to, values_for(src, to), True)
    for mode in ("up", "down", "nearest_even"):
        for sat in (False, True):
            xs = values_for("f32", "f8e8m0") + [F.f32_bits(x) for x in (1.5, 1.25, 3.0, 0.75, 1.4999999, 1e-39, 2.0 ** -127, 2.0 ** 127 * 1.5)]
            cast_case(out, "f32_to_f8e8m0_%s%s" % (mode, "_saturate" if sat else ""), "f32", "f8e8m0",
                      xs, sat, mode=mode)
    # rounding boundaries of each float target: ties at the largest value and at the smallest
    # subnormal, just below and above them (f64 sources hold these values exactly)
    for to in ("f4e2m1", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "f16", "bf16", "f32"):
        f = F.FMT[to]
        ulp_max = Fraction(2) ** (floor_log2_of(f.maxv) - f.m)
        sub = Fraction(2) ** (f.emin - f.m)
        vals = []
        for v in (f.maxv + ulp_max / 2, f.maxv + ulp_max / 2 - ulp_max / 64, f.maxv + ulp_max / 2 + ulp_max / 64,
                  f.maxv + ulp_max, sub / 2, sub / 2 + sub / 64, sub * 3 / 2, sub * 5 / 2, sub / 4):
            for sign in (1, -1):
                b = F.FMT["f64"].round(sign * v)
                if b not in vals:
                    vals.append(b)
        for sat in (False, True):
            cast_case(out, "f64_to_%s_boundaries%s" % (to, "_saturate" if sat else ""), "f64", to, vals, sat)
    # integer -> float is one rounding of the exact integer: going through f64 first would round
    # these twice (to a tie, then to even) and land one step lower
    big = [2 ** 62 + 2 ** 54 + 1, 2 ** 62 + 2 ** 38 + 1, -(2 ** 62 + 2 ** 54 + 1), 2 ** 53 + 1, 2 ** 62 + 2 ** 51 + 1]
    for src in ("i64", "u64"):
        xs = [x for x in big if F.int_range(src)[0] <= x <= F.int_range(src)[1]]
        if src == "u64":
            xs.append(2 ** 64 - 1)
        for to in ("bf16", "f32", "f64", "f16", "f8e5m2"):
            cast_case(out, "%s_to_%s_single_rounding" % (src, to), src, to, xs, False)
    out.add("cast", "rank0", one_node(lambda: "%r0 = cast %x {to = i8, saturate = false, round = nearest_even} : i8[]",
                                      [("x", "f32", [], [F.f32_bits(-7.9)])], [("i8", [], [-7])]))
    out.add("cast", "empty", one_node(lambda: "%r0 = cast %x {to = string, saturate = false, round = nearest_even} : string[0]",
                                      [("x", "f16", [0], [])], [("string", [0], [])]))
    # runtime errors
    bad = [("f32", "i8", F.f32_bits(128.0)), ("f32", "i32", F.f32_bits(float("nan"))),
           ("f16", "u8", F.from_float("f16", -1.0)), ("f64", "i64", F.f64_bits(float("inf"))),
           ("bf16", "i4", F.from_float("bf16", 8.0)), ("string", "i8", "300"), ("string", "u4", "nan")]
    for src, to, x in bad:
        out.add("cast", "R1_%s_to_%s" % (src, to), one_node(
            lambda: cast_line(to, 2, False), [("x", src, [2], [values_for(src, to)[1] if src == "string" else F.specials(src)[0], x])],
            [(to, [2], None)], extra=["expect-error cast.R1"]))
    for to, s in (("f32", "1,5"), ("i32", "0x10"), ("bool", "yes"), ("f16", " 1")):
        out.add("cast", "R2_string_to_%s" % to, one_node(
            lambda: cast_line(to, 1, False), [("x", "string", [1], [s])], [(to, [1], None)],
            extra=["expect-error cast.R2"]))
    out.add("cast", "C2_round_up_to_f32", one_node(
        lambda: "%r0 = cast %x {to = f32, saturate = false, round = up} : f32[1]",
        [("x", "f16", [1], [0])], [("f32", [1], None)], extra=["reject cast.C2"]))


BITCAST_GROUPS = [["i2", "u2"], ["i4", "u4", "f4e2m1"],
                  ["bool", "i8", "u8", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "f8e8m0"],
                  ["i16", "u16", "f16", "bf16"], ["i32", "u32", "f32"], ["i64", "u64", "f64"]]


def to_bits(dt, x):
    if dt == "bool":
        return int(x)
    if F.is_int(dt):
        return x & ((1 << F.BITS[dt]) - 1)
    return x


def from_bits(dt, b):
    if dt == "bool":
        return bool(b)
    if F.is_int(dt):
        return F.wrap(dt, b)
    return b


def bitcast_cases(out):
    for group in BITCAST_GROUPS:
        for src in group:
            for to in group:
                cell = "bitcast %s,%s" % (src, to)
                out.require(cell)
                w = F.BITS[src]
                pats = sorted(set([0, 1, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 0x5A5A5A5A5A5A5A5A & ((1 << w) - 1)]))
                if to == "bool" or src == "bool":
                    pats = [0, 1]
                xs = [from_bits(src, b) for b in pats]
                ys = [from_bits(to, b) for b in pats]
                n = len(xs)
                out.add("bitcast", "%s_to_%s" % (src, to), one_node(
                    lambda: "%%r0 = bitcast %%x {to = %s} : %s[%d]" % (to, to, n),
                    [("x", src, [n], xs)], [(to, [n], ys)], cells=[cell]))
    out.add("bitcast", "R1_u8_to_bool", one_node(
        lambda: "%r0 = bitcast %x {to = bool} : bool[2]", [("x", "u8", [2], [1, 2])], [("bool", [2], None)],
        extra=["expect-error bitcast.R1"]))
    out.add("bitcast", "C3_width_mismatch", one_node(
        lambda: "%r0 = bitcast %x {to = i16} : i16[2]", [("x", "u8", [2], [1, 2])], [("i16", [2], None)],
        extra=["reject bitcast.C3"]))
    out.add("bitcast", "C2_string", one_node(
        lambda: "%r0 = bitcast %x {to = u8} : u8[1]", [("x", "string", [1], ["a"])], [("u8", [1], None)],
        extra=["reject bitcast.C2"]))


def generate(out):
    cast_cases(out)
    bitcast_cases(out)
