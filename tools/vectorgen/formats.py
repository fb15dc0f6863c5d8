"""Dtypes of spec/dtypes.def and exact rounding into them (spec/numerics.md), written from the spec
text and independent of plumb's C++ code: every narrow float is decoded to an exact Fraction and
rounding works on exact rationals, so no step goes through a binary float that could round twice.
"""
import math
import struct
from fractions import Fraction

BITS = {"bool": 8, "i2": 2, "u2": 2, "i4": 4, "u4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
        "u8": 8, "u16": 16, "u32": 32, "u64": 64, "f4e2m1": 4, "f8e4m3fn": 8, "f8e4m3fnuz": 8,
        "f8e5m2": 8, "f8e5m2fnuz": 8, "f8e8m0": 8, "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
        "string": 0}
ALL = list(BITS)
SIGNED = ["i2", "i4", "i8", "i16", "i32", "i64"]
UNSIGNED = ["u2", "u4", "u8", "u16", "u32", "u64"]
INTS = SIGNED + UNSIGNED
FLOATS = ["f4e2m1", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "f8e8m0", "f16", "bf16",
          "f32", "f64"]
ARITH_FLOATS = [f for f in FLOATS if f != "f8e8m0"]   # "floats except f8e8m0"
NARROW = ["f4e2m1", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "f16", "bf16"]


def is_int(dt): return dt in INTS
def is_float(dt): return dt in FLOATS
def is_signed(dt): return dt in SIGNED


def int_range(dt):
    n = BITS[dt]
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if is_signed(dt) else (0, (1 << n) - 1)


def wrap(dt, v):
    """v modulo 2^N, as two's complement for signed dtypes (spec/numerics.md "Integers")."""
    n = BITS[dt]
    v &= (1 << n) - 1
    if is_signed(dt) and v >= 1 << (n - 1):
        v -= 1 << n
    return v


class Fmt:
    """A binary float format: E exponent bits, M mantissa bits, bias; `ieee` formats have inf and
    NaN at the all-ones exponent; `fn` (e4m3fn) has only NaN at S.1111.111; `fnuz` formats have
    one NaN (0x80), no inf, no -0; f4e2m1 has neither inf nor NaN."""

    def __init__(self, name, e, m, bias, kind):
        self.name, self.e, self.m, self.bias, self.kind = name, e, m, bias, kind
        self.width = 1 + e + m
        self.emin = 1 - bias  # exponent of the smallest normal
        top = (1 << e) - 1
        if kind == "ieee":
            self.maxv = (2 - Fraction(1, 1 << m)) * Fraction(2) ** (top - 1 - bias)
        elif kind == "fn":  # e4m3fn: top exponent usable, mantissa all-ones is NaN
            self.maxv = (2 - Fraction(2, 1 << m)) * Fraction(2) ** (top - bias)
        else:  # fnuz, f4: the top exponent is an ordinary binade
            self.maxv = (2 - Fraction(1, 1 << m)) * Fraction(2) ** (top - bias)

    def sign_bit(self): return 1 << (self.width - 1)

    def nan_bits(self):
        return {"ieee": ((1 << (self.e + 1)) - 1) << (self.m - 1), "fn": 0x7F, "fnuz": 0x80}[self.kind]

    def inf_bits(self): return ((1 << self.e) - 1) << self.m

    def decode(self, bits):
        """bits -> Fraction, or float('nan') / float('inf') / -inf, or the string '-0'."""
        s = bits >> (self.width - 1) & 1
        ex = bits >> self.m & ((1 << self.e) - 1)
        man = bits & ((1 << self.m) - 1)
        top = (1 << self.e) - 1
        if self.kind == "fnuz" and bits == 0x80:
            return float("nan")
        if self.kind == "ieee" and ex == top:
            return float("nan") if man else (float("-inf") if s else float("inf"))
        if self.kind == "fn" and ex == top and man == (1 << self.m) - 1:
            return float("nan")
        if ex == 0:
            v = Fraction(man) * Fraction(2) ** (self.emin - self.m)
        else:
            v = (1 + Fraction(man, 1 << self.m)) * Fraction(2) ** (ex - self.bias)
        if s:
            return "-0" if v == 0 else -v
        return v

    def encode_exact(self, v, neg):
        """bits of |v| (a representable Fraction) with sign neg."""
        if v == 0:
            return self.sign_bit() if neg and self.kind != "fnuz" else 0
        e = floor_log2(v)
        if e < self.emin:
            ex, man = 0, v / Fraction(2) ** (self.emin - self.m)
        else:
            ex, man = e + self.bias, v / Fraction(2) ** (e - self.m) - (1 << self.m)
        assert man.denominator == 1, (self.name, v)
        bits = ex << self.m | int(man)
        if neg and not (self.kind == "fnuz" and bits == 0):
            bits |= self.sign_bit()
        return bits

    def round(self, x, saturate=False, arith=False):
        """spec/numerics.md round_to: x is a Fraction, a python float (nan/inf allowed), or '-0'.
        saturate: overflow gives the largest finite value. arith: the non-saturating arithmetic
        rule (f4e2m1 still saturates; NaN to f4e2m1 is +6)."""
        if x == "-0":
            return self.encode_exact(Fraction(0), True)
        if isinstance(x, float):
            if math.isnan(x):
                if self.kind == "f4":
                    return self.encode_exact(Fraction(6), False)
                return self.nan_bits() | (self.sign_bit() if self.kind == "fn" and math.copysign(1, x) < 0 else 0)
            if math.isinf(x):
                return self.overflow(x < 0, saturate)
            if x == 0:
                return self.encode_exact(Fraction(0), math.copysign(1, x) < 0)
            x = Fraction(x)
        neg = x < 0
        v = abs(x)
        if v == 0:
            return self.encode_exact(v, neg)
        e = max(floor_log2(v), self.emin)
        q = Fraction(2) ** (e - self.m)
        n = round_half_even(v / q)
        r = n * q
        if r > self.maxv:
            return self.overflow(neg, saturate)
        return self.encode_exact(r, neg)

    def overflow(self, neg, saturate):
        if saturate or self.kind == "f4":
            return self.encode_exact(self.maxv, neg)
        if self.kind == "ieee":
            return self.inf_bits() | (self.sign_bit() if neg else 0)
        if self.kind == "fn":
            return 0x7F | (0x80 if neg else 0)
        return 0x80


def floor_log2(v):
    """floor(log2(v)) for a positive Fraction, exactly."""
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    elif Fraction(2) ** (e + 1) <= v:
        e += 1
    return e


def round_half_even(q):
    f = math.floor(q)
    d = q - f
    if d > Fraction(1, 2) or (d == Fraction(1, 2) and f % 2 == 1):
        f += 1
    return f


FMT = {
    "f16": Fmt("f16", 5, 10, 15, "ieee"),
    "bf16": Fmt("bf16", 8, 7, 127, "ieee"),
    "f32": Fmt("f32", 8, 23, 127, "ieee"),
    "f64": Fmt("f64", 11, 52, 1023, "ieee"),
    "f8e4m3fn": Fmt("f8e4m3fn", 4, 3, 7, "fn"),
    "f8e4m3fnuz": Fmt("f8e4m3fnuz", 4, 3, 8, "fnuz"),
    "f8e5m2": Fmt("f8e5m2", 5, 2, 15, "ieee"),
    "f8e5m2fnuz": Fmt("f8e5m2fnuz", 5, 2, 16, "fnuz"),
    "f4e2m1": Fmt("f4e2m1", 2, 1, 1, "f4"),
}

# ---- f8e8m0 (spec/numerics.md "f8e8m0") --------------------------------------------------------


def e8m0_decode(bits):
    return float("nan") if bits == 0xFF else Fraction(2) ** (bits - 127)


def e8m0_round(x, saturate, mode):
    """x: Fraction / float / '-0'. mode: nearest_even | up | down."""
    nan = 0xFF
    if x == "-0":
        x = Fraction(0)
    if isinstance(x, float):
        if math.isnan(x):
            return nan
        if math.isinf(x):
            return 0xFE if saturate else nan
        x = Fraction(x)
    v = abs(x)
    if v == 0:
        return 0x00 if saturate else nan
    k = floor_log2(v)
    m = v / Fraction(2) ** k
    if mode == "down":
        e = k
    elif mode == "up":
        e = k if m == 1 else k + 1
    else:
        e = k + 1 if m >= Fraction(3, 2) else k
    if e < -127:
        if mode == "up":
            return 0x00
        return 0x00 if saturate else nan
    if e > 127:
        return 0xFE if saturate else nan
    return e + 127


# ---- generic value handling --------------------------------------------------------------------
# A float element is held as its bit pattern (an int); `value(dt, bits)` gives its exact value.


def value(dt, bits):
    if dt == "f8e8m0":
        return e8m0_decode(bits)
    return FMT[dt].decode(bits)


def to_float(v):
    """exact value -> python float (for numpy math). '-0' -> -0.0"""
    if v == "-0":
        return -0.0
    return float(v)


def from_float(dt, x, saturate=False):
    """bits of python float x rounded into dt (arithmetic rule unless saturate)."""
    if dt == "f8e8m0":
        return e8m0_round(x, saturate, "nearest_even")
    if isinstance(x, float) and x == 0:
        return FMT[dt].round("-0" if math.copysign(1, x) < 0 else Fraction(0))
    return FMT[dt].round(x, saturate)


def f64_bits(x): return struct.unpack("<Q", struct.pack("<d", x))[0]
def f32_bits(x): return struct.unpack("<I", struct.pack("<f", x))[0]


def fmt_float(dt, bits):
    """text-form element for a float element given by bits: the exact value as a decimal that
    reads back to the same bits, or a word, or 0x bits (NaN payloads, f8e8m0)."""
    if dt == "f8e8m0":
        return "0x%02x" % bits
    v = value(dt, bits)
    if isinstance(v, float):
        if math.isnan(v):
            canonical = {"f16": 0x7E00, "bf16": 0x7FC0, "f32": 0x7FC00000, "f64": 0x7FF8000000000000,
                         "f8e4m3fn": 0x7F, "f8e5m2": 0x7E, "f8e4m3fnuz": 0x80, "f8e5m2fnuz": 0x80}
            return "nan" if canonical.get(dt) == bits else "0x%x" % bits
        return "inf" if v > 0 else "-inf"
    if v == "-0":
        return "-0.0"
    # every value of these formats is an f64 value, so repr() is exact and reads back exactly
    f = float(v)
    assert Fraction(f) == v
    return repr(f)


def fmt_elem(dt, x):
    if dt == "bool":
        return "true" if x else "false"
    if dt == "string":
        out = '"'
        for b in x if isinstance(x, bytes) else x.encode():
            c = chr(b)
            if c in '"\\':
                out += "\\" + c
            elif b < 0x20 or b >= 0x7F:
                out += "\\x%02x" % b
            else:
                out += c
        return out + '"'
    if is_int(dt):
        return str(x)
    return fmt_float(dt, x)


def shape_str(shape): return "[" + ",".join(str(d) for d in shape) + "]"
def ttype(dt, shape): return dt + shape_str(shape)


def dense(dt, shape, elems):
    n = 1
    for d in shape:
        n *= d
    assert n == len(elems), (dt, shape, len(elems))
    return "dense<%s>[%s]" % (ttype(dt, shape), ", ".join(fmt_elem(dt, e) for e in elems))


# Interesting elements per dtype (bits for floats): zeros, ones, extremes, denormals, inf, NaN.
def specials(dt):
    if dt == "bool":
        return [False, True]
    if dt == "string":
        return ["", "a", "plumb", "\u00e9t\u00e9", "a\"b\\c"]
    if is_int(dt):
        lo, hi = int_range(dt)
        vals = [0, 1, hi, lo, hi - 1, lo + 1] + ([-1, 2, -2, 3] if is_signed(dt) else [2, 3])
        out = []
        for v in vals:
            if lo <= v <= hi and v not in out:
                out.append(v)
        return out
    if dt == "f8e8m0":
        return [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]
    f = FMT[dt]
    cands = [Fraction(0), "-0", Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-3, 2), Fraction(3),
             Fraction(5, 2), Fraction(-7, 2), f.maxv, -f.maxv,
             Fraction(2) ** f.emin, Fraction(2) ** (f.emin - f.m), -Fraction(2) ** (f.emin - f.m),
             float("inf"), float("-inf"), float("nan")]
    out = []
    for c in cands:
        if isinstance(c, float) and f.kind != "ieee" and (math.isinf(c) or (math.isnan(c) and f.kind == "f4")):
            continue
        b = f.round(c, saturate=not isinstance(c, float))
        if c == "-0" and f.kind == "fnuz":
            continue
        if b not in out:
            out.append(b)
    return out
