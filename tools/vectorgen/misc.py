"""Vectors for rng, if, while, sequence, optional, map, string, image_decode (spec/ops/<op>.md)."""
import formats as F
from common import case_text, expect_dir, input_dir, one_node
from layout import const_line, fill, with_consts

M32 = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    """Salmon et al., SC11 (Random123 philox4x32, R = 10), written from the published algorithm."""
    c = list(ctr)
    k0, k1 = key
    for rnd in range(10):
        if rnd > 0:
            k0 = (k0 + 0x9E3779B9) & M32
            k1 = (k1 + 0xBB67AE85) & M32
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k1) & M32, p0 & M32]
    return c


# Random123 kat_vectors (the spec quotes them): the generator checks itself before writing.
assert philox4x32_10((0, 0, 0, 0), (0, 0)) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
assert philox4x32_10((M32,) * 4, (M32, M32)) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
assert philox4x32_10((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0)) == \
    [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def rng_values(seed, stream, n):
    s, t = seed & ((1 << 64) - 1), stream & ((1 << 64) - 1)
    key = (s & M32, s >> 32)
    out = []
    for k in range(n):
        b = k // 4
        out.append(philox4x32_10((b & M32, b >> 32, t & M32, t >> 32), key)[k % 4])
    return out


def rng_cases(out):
    out.require("rng u32")
    for seed, stream, shape in ((0, 0, [4]), (42, 7, [2, 5]), (-1, -2, [3, 3]), (0x123456789ABCDEF, 1 << 40, [9])):
        n = 1
        for d in shape:
            n *= d
        out.add("rng", "seed%d_stream%d_%s" % (seed & 0xFFFF, stream & 0xFFFF, "x".join(map(str, shape))), with_consts(
            [("s", "i64", [len(shape)], shape)],
            "%%r0 = rng %%s {algorithm = philox4x32_10, seed = %d, stream = %d} : %s" % (seed, stream, F.ttype("u32", shape)),
            [], [("u32", shape, rng_values(seed, stream, n))], cells=["rng u32"]))
    out.add("rng", "rank0", with_consts([("s", "i64", [0], [])], "%r0 = rng %s {algorithm = philox4x32_10, seed = 5, stream = 0} : u32[]",
                                        [], [("u32", [], rng_values(5, 0, 1))]))
    out.add("rng", "empty", with_consts([("s", "i64", [2], [3, 0])], "%r0 = rng %s {algorithm = philox4x32_10, seed = 5, stream = 0} : u32[3,0]",
                                        [], [("u32", [3, 0], [])]))
    out.add("rng", "R1_negative", one_node(lambda: "%r0 = rng %s {algorithm = philox4x32_10, seed = 5, stream = 0} : u32[?]",
                                           [("s", "i64", [1], [-3])], [], extra=["expect-error rng.R1"])
            .replace("-> ()", "-> (u32[?])").replace("  return\n", "  return %r0\n"))


def control_cases(out):
    for dt in F.ALL:
        xs = fill(dt, 4)
        ys = fill(dt, 4, 2)
        for cond in (True, False):
            cell = "if %s" % dt
            if cond:
                out.require(cell)
            text = case_text(
                [("p", "bool[]"), ("x", F.ttype(dt, [4])), ("y", F.ttype(dt, [4]))],
                ["%r0 = if %p {", "  then () {", "    yield %x", "  }", "  else () {", "    yield %y", "  }",
                 "} : " + F.ttype(dt, [4])],
                [("r0", F.ttype(dt, [4]))],
                (["cell " + cell] if cond else []) +
                ["input %p = dense<bool[]>[" + ("true" if cond else "false") + "]", input_dir("x", dt, [4], xs),
                 input_dir("y", dt, [4], ys), expect_dir(0, dt, [4], xs if cond else ys)])
            out.add("if", "%s_%s" % (dt, "then" if cond else "else"), text)
        # while: rotate a carried tensor of dt three times (a counter is carried alongside)
        cell = "while %s" % dt
        out.require(cell)
        t = F.ttype(dt, [4])
        text = case_text(
            [("x", t)],
            [const_line("zero", "i64", [], [0]), const_line("one", "i64", [], [1]), const_line("three", "i64", [], [3]),
             const_line("a", "i64", [1], [1]), const_line("n", "i64", [1], [3]), const_line("st", "i64", [1], [1]),
             const_line("a0", "i64", [1], [0]), const_line("n0", "i64", [1], [1]),
             "%r0, %r1 = while %x, %zero {",
             "  cond (%%cx: %s, %%ci: i64[]) {" % t,
             "    %c = compare %ci, %three {kind = lt} : bool[]",
             "    yield %c",
             "  }",
             "  body (%%bx: %s, %%bi: i64[]) {" % t,
             "    %%tail = slice %%bx, %%a, %%n, %%st : %s" % F.ttype(dt, [3]),
             "    %%head = slice %%bx, %%a0, %%n0, %%st : %s" % F.ttype(dt, [1]),
             "    %%rot = concat %%tail, %%head {axis = 0} : %s" % t,
             "    %ni = binary %bi, %one {kind = add} : i64[]",
             "    yield %rot, %ni",
             "  }",
             "} : %s, i64[]" % t],
            [("r0", t), ("r1", "i64[]")],
            ["cell " + cell, input_dir("x", dt, [4], xs), expect_dir(0, dt, [4], xs[3:] + xs[:3]),
             "expect 1 = dense<i64[]>[3]"])
        out.add("while", dt, text)
    # the branch not taken is not evaluated: its runtime error never happens
    out.add("if", "untaken_branch_error_not_raised", case_text(
        [("p", "bool[]"), ("a", "i32[1]"), ("b", "i32[1]")],
        ["%r0 = if %p {", "  then () {", "    %q = binary %a, %b {kind = div} : i32[1]", "    yield %q", "  }",
         "  else () {", "    yield %a", "  }", "} : i32[1]"],
        [("r0", "i32[1]")],
        ["input %p = dense<bool[]>[false]", "input %a = dense<i32[1]>[7]", "input %b = dense<i32[1]>[0]",
         "expect 0 = dense<i32[1]>[7]"]))
    out.add("if", "taken_branch_error_raised", case_text(
        [("p", "bool[]"), ("a", "i32[1]"), ("b", "i32[1]")],
        ["%r0 = if %p {", "  then () {", "    %q = binary %a, %b {kind = div} : i32[1]", "    yield %q", "  }",
         "  else () {", "    yield %a", "  }", "} : i32[1]"],
        [("r0", "i32[1]")],
        ["input %p = dense<bool[]>[true]", "input %a = dense<i32[1]>[7]", "input %b = dense<i32[1]>[0]",
         "expect-error binary.R1"]))
    out.add("if", "C1_cond_not_scalar", case_text(
        [("p", "bool[1]"), ("a", "i32[1]")],
        ["%r0 = if %p {", "  then () {", "    yield %a", "  }", "  else () {", "    yield %a", "  }", "} : i32[1]"],
        [("r0", "i32[1]")], ["reject if.C1"]))
    out.add("while", "zero_iterations", case_text(
        [("x", "f32[2]")],
        ["%r0 = while %x {", "  cond (%c: f32[2]) {", "    %f = constant {value = dense<bool[]>[false]} : bool[]",
         "    yield %f", "  }", "  body (%b: f32[2]) {", "    %n = unary %b {kind = neg} : f32[2]", "    yield %n", "  }",
         "} : f32[2]"],
        [("r0", "f32[2]")],
        ["input %x = dense<f32[2]>[1.0, -0.0]", "expect 0 = dense<f32[2]>[1.0, -0.0]"]))
    out.add("while", "swap_reads_all_yields_first", case_text(
        [("x", "i8[]"), ("y", "i8[]")],
        [const_line("k0", "i64", [], [0]), const_line("one", "i64", [], [1]), const_line("lim", "i64", [], [1]),
         "%r0, %r1, %r2 = while %x, %y, %k0 {",
         "  cond (%a: i8[], %b: i8[], %k: i64[]) {", "    %c = compare %k, %lim {kind = lt} : bool[]", "    yield %c", "  }",
         "  body (%a#1: i8[], %b#1: i8[], %k#1: i64[]) {", "    %k2 = binary %k#1, %one {kind = add} : i64[]",
         "    yield %b#1, %a#1, %k2", "  }",
         "} : i8[], i8[], i64[]"],
        [("r0", "i8[]"), ("r1", "i8[]")],
        ["input %x = dense<i8[]>[1]", "input %y = dense<i8[]>[2]", "expect 0 = dense<i8[]>[2]", "expect 1 = dense<i8[]>[1]"]))
    out.add("while", "C3_cond_not_bool", case_text(
        [("x", "f32[2]")],
        ["%r0 = while %x {", "  cond (%c: f32[2]) {", "    yield %c", "  }", "  body (%b: f32[2]) {", "    yield %b", "  }",
         "} : f32[2]"],
        [("r0", "f32[2]")], ["reject while.C3"]))


def container_cases(out):
    for dt in F.ALL:
        a, b = fill(dt, 2), fill(dt, 3, 2)
        cell = "sequence %s" % dt
        out.require(cell)
        e = F.ttype(dt, ["?"]).replace("[?]", "[?]")
        out.add("sequence", dt, case_text(
            [("a", F.ttype(dt, [2])), ("b", F.ttype(dt, [3]))],
            [const_line("p1", "i64", [], [1]), const_line("p0", "i64", [], [0]),
             "%%s = sequence %%a, %%b {kind = construct, axis = 0, elem = %s} : seq<%s>" % (e, e),
             "%%s2 = sequence %%s, %%b, %%p0 {kind = insert, axis = 0, elem = %s} : seq<%s>" % (e, e),
             "%%s3 = sequence %%s2, %%p1 {kind = erase, axis = 0, elem = %s} : seq<%s>" % (e, e),
             "%%r0 = sequence %%s3, %%p1 {kind = at, axis = 0, elem = %s} : %s" % (e, e),
             "%%r1 = sequence %%s3 {kind = length, axis = 0, elem = %s} : i64[]" % e,
             "%%r2 = sequence %%s3 {kind = concat, axis = 0, elem = %s} : %s" % (e, e)],
            [("r0", e), ("r1", "i64[]"), ("r2", e)],
            ["cell " + cell, input_dir("a", dt, [2], a), input_dir("b", dt, [3], b),
             expect_dir(0, dt, [3], b), expect_dir(1, "i64", [], [2]), expect_dir(2, dt, [6], b + b)]))
        cell = "optional %s" % dt
        out.require(cell)
        t = F.ttype(dt, [2])
        out.add("optional", dt, case_text(
            [("a", t)],
            ["%%o = optional %%a {kind = wrap, elem = %s} : opt<%s>" % (t, t),
             "%%n = optional {kind = none, elem = %s} : opt<%s>" % (t, t),
             "%%r0 = optional %%o {kind = has, elem = %s} : bool[]" % t,
             "%%r1 = optional %%n {kind = has, elem = %s} : bool[]" % t,
             "%%r2 = optional %%o {kind = get, elem = %s} : %s" % (t, t)],
            [("r0", "bool[]"), ("r1", "bool[]"), ("r2", t)],
            ["cell " + cell, input_dir("a", dt, [2], a), "expect 0 = dense<bool[]>[true]",
             "expect 1 = dense<bool[]>[false]", expect_dir(2, dt, [2], a)]))
        for kt, keys in (("i64", [7, -3, 0]), ("string", ["k", "", "K"])):
            cell = "map %s,%s" % (kt, dt)
            out.require(cell)
            vs = fill(dt, 3, 1)
            out.add("map", "%s_%s" % (kt, dt), case_text(
                [("k", F.ttype(kt, [3])), ("v", F.ttype(dt, [3]))],
                ["%%m = map %%k, %%v {kind = construct} : map<%s,%s>" % (kt, F.ttype(dt, [])),
                 "%%r0 = map %%m {kind = keys} : %s" % F.ttype(kt, ["?"]),
                 "%%r1 = map %%m {kind = values} : %s" % F.ttype(dt, ["?"])],
                [("r0", F.ttype(kt, ["?"])), ("r1", F.ttype(dt, ["?"]))],
                ["cell " + cell, input_dir("k", kt, [3], keys), input_dir("v", dt, [3], vs),
                 expect_dir(0, kt, [3], keys), expect_dir(1, dt, [3], vs)]))
    e = "f32[?]"
    seq_err = [("R1_insert_position", ["%%s = sequence %%a {kind = construct, axis = 0, elem = %s} : seq<%s>" % (e, e),
                                       "%%r0 = sequence %%s, %%a, %%p {kind = insert, axis = 0, elem = %s} : seq<%s>" % (e, e)], "seq<f32[?]>", 2, "sequence.R1"),
               ("R2_at_position", ["%%s = sequence %%a {kind = construct, axis = 0, elem = %s} : seq<%s>" % (e, e),
                                   "%%r0 = sequence %%s, %%p {kind = at, axis = 0, elem = %s} : %s" % (e, e)], e, 1, "sequence.R2"),
               ("R3_concat_empty", ["%%s = sequence {kind = empty, axis = 0, elem = %s} : seq<%s>" % (e, e),
                                    "%%r0 = sequence %%s {kind = concat, axis = 0, elem = %s} : %s" % (e, e)], e, 0, "sequence.R3")]
    for name, nodes, rt, pos, label in seq_err:
        out.add("sequence", name, case_text([("a", "f32[2]"), ("p", "i64[]")], nodes, [("r0", rt)],
                                            ["input %a = dense<f32[2]>[1.0, 2.0]", "input %%p = dense<i64[]>[%d]" % pos,
                                             "expect-error " + label]))
    out.add("sequence", "split", case_text(
        [("a", "i4[5]"), ("z", "i64[3]")],
        ["%s = sequence %a, %z {kind = split, axis = 0, elem = i4[?]} : seq<i4[?]>",
         "%n = sequence %s {kind = length, axis = 0, elem = i4[?]} : i64[]",
         "%p = constant {value = dense<i64[]>[2]} : i64[]",
         "%r0 = sequence %s, %p {kind = at, axis = 0, elem = i4[?]} : i4[?]",
         "%r1 = sequence %s {kind = stack, axis = 0, elem = i4[?]} : i4[?,?]"],
        [("n", "i64[]"), ("r0", "i4[?]")],
        ["input %a = dense<i4[5]>[-8, 7, 1, 2, 3]", "input %z = dense<i64[3]>[2, 0, 3]",
         "expect 0 = dense<i64[]>[3]", "expect 1 = dense<i4[3]>[1, 2, 3]"]).replace(
        '  %r1 = sequence %s {kind = stack, axis = 0, elem = i4[?]} : i4[?,?]\n', ''))
    out.add("sequence", "R5_split_sizes", case_text(
        [("a", "f32[3]"), ("z", "i64[2]")],
        ["%r0 = sequence %a, %z {kind = split, axis = 0, elem = f32[?]} : seq<f32[?]>"], [("r0", "seq<f32[?]>")],
        ["input %a = dense<f32[3]>[1.0, 2.0, 3.0]", "input %z = dense<i64[2]>[1, 1]", "expect-error sequence.R5"]))
    out.add("optional", "R1_get_none", case_text(
        [], ["%n = optional {kind = none, elem = f32[2]} : opt<f32[2]>",
             "%r0 = optional %n {kind = get, elem = f32[2]} : f32[2]"], [("r0", "f32[2]")], ["expect-error optional.R1"]))
    out.add("map", "R1_repeated_key", case_text(
        [("k", "i64[2]"), ("v", "f32[2]")], ["%m = map %k, %v {kind = construct} : map<i64,f32[]>",
                                             "%r0 = map %m {kind = values} : f32[?]"], [("r0", "f32[?]")],
        ["input %k = dense<i64[2]>[3, 3]", "input %v = dense<f32[2]>[1.0, 2.0]", "expect-error map.R1"]))
    out.add("map", "C2_key_dtype", case_text(
        [("k", "f32[2]"), ("v", "f32[2]")], ["%m = map %k, %v {kind = construct} : map<f32,f32[]>",
                                             "%r0 = map %m {kind = values} : f32[?]"], [("r0", "f32[?]")], ["reject map.C2"]))


def string_op(kind, a, b=None, pattern="", maxsplit=-1):
    if kind == "concat":
        return [x + y for x, y in zip(a, b)]
    if kind in ("lower", "upper"):
        def cm(ch):
            c = ord(ch)
            up = kind == "upper"
            ranges = [(0x41, 0x5A, 0x20), (0xC0, 0xDE, 0x20), (0x391, 0x3A9, 0x20), (0x410, 0x42F, 0x20), (0x400, 0x40F, 0x50)]
            for lo, hi, d in ranges:
                if not up and lo <= c <= hi and c not in (0xD7, 0x3A2):
                    return chr(c + d)
                if up and lo + d <= c <= hi + d and c - d not in (0xD7, 0x3A2):
                    return chr(c - d)
            return ch
        return ["".join(cm(ch) for ch in s) for s in a]
    raise ValueError(kind)


def string_cases(out):
    a = ["ab", "\u00ff\u00e9", "", "Hello, W\u00d6RLD \u00d7\u00f7", "\u0391\u03c9\u0416\u0451\u0130"]
    b = ["c", "x", "", "!", "\u00df"]
    for kind in ("concat", "lower", "upper"):
        cell = "string.%s string" % kind
        out.require(cell)
        ys = string_op(kind, a, b)
        ins = [("a", "string", [5], a)] + ([("b", "string", [5], b)] if kind == "concat" else [])
        out.add("string", kind, one_node(
            lambda: "%%r0 = string %%a%s {kind = %s, pattern = \"\", maxsplit = -1} : string[5]" % (", %b" if kind == "concat" else "", kind),
            ins, [("string", [5], ys)], cells=[cell]))
    cell = "string.regex_full_match string"
    out.require(cell)
    out.add("string", "regex_full_match", one_node(
        lambda: "%r0 = string %a {kind = regex_full_match, pattern = \"[a-z]+\\\\d?\", maxsplit = -1} : bool[4]",
        [("a", "string", [4], ["abc", "abc1", "abc12", "Abc"])], [("bool", [4], [True, True, False, False])], cells=[cell]))
    cell = "string.split string"
    out.require(cell)
    out.add("string", "split_whitespace", one_node(
        lambda: "%r0, %r1 = string %a {kind = split, pattern = \"\", maxsplit = -1} : string[2,?], i64[2]",
        [("a", "string", [2], ["  a b\tc ", ""])], [("string", [2, 3], ["a", "b", "c", "", "", ""]), ("i64", [2], [3, 0])],
        cells=[cell]).replace("-> (string[2,3], i64[2])", "-> (string[2,?], i64[2])"))
    out.add("string", "split_delimiter_maxsplit", one_node(
        lambda: "%r0, %r1 = string %a {kind = split, pattern = \",\", maxsplit = 1} : string[2,?], i64[2]",
        [("a", "string", [2], ["a,,b,c", "x"])], [("string", [2, 2], ["a", ",b,c", "x", ""]), ("i64", [2], [2, 1])])
        .replace("-> (string[2,2], i64[2])", "-> (string[2,?], i64[2])"))
    out.add("string", "R1_lower_invalid_utf8", one_node(
        lambda: "%r0 = string %a {kind = lower, pattern = \"\", maxsplit = -1} : string[1]",
        [("a", "string", [1], [b"\xff\xfe"])], [("string", [1], None)], extra=["expect-error string.R1"]))
    out.add("string", "C2_not_string", one_node(
        lambda: "%r0 = string %a {kind = upper, pattern = \"\", maxsplit = -1} : string[1]",
        [("a", "u8", [1], [1])], [("string", [1], None)], extra=["reject string.C2"]))


def image_cases(out):
    out.require("image_decode u8")
    # binary PPM (P6), 2 x 1, maxval 255: red-ish and blue-ish pixels
    px = [200, 10, 20, 5, 100, 250]
    ppm = list(b"P6\n2 1\n255\n") + px
    n = len(ppm)
    for fmt, ys, shape in (("rgb", px, [1, 2, 3]), ("bgr", [20, 10, 200, 250, 100, 5], [1, 2, 3]),
                           ("grayscale", [(19595 * r + 38470 * g + 7471 * b + 32768) >> 16 for r, g, b in (px[:3], px[3:])], [1, 2, 1])):
        out.add("image_decode", "ppm_%s" % fmt, one_node(
            lambda: "%%r0 = image_decode %%b {format = %s} : u8[?,?,%d]" % (fmt, shape[2]),
            [("b", "u8", [n], ppm)], [("u8", shape, ys)], cells=["image_decode u8"] if fmt == "rgb" else [])
            .replace("-> (u8[1,2,%d])" % shape[2], "-> (u8[?,?,%d])" % shape[2]))
    # binary PGM (P5) with maxval 15: samples rescaled to 0..255 rounding half up
    pgm = list(b"P5\n3 1\n15\n") + [0, 7, 15]
    out.add("image_decode", "pgm_maxval15_rgb", one_node(
        lambda: "%r0 = image_decode %b {format = rgb} : u8[?,?,3]",
        [("b", "u8", [len(pgm)], pgm)], [("u8", [1, 3, 3], [v for s in (0, 7, 15) for v in [(s * 255 * 2 + 15) // 30] * 3])])
        .replace("-> (u8[1,3,3])", "-> (u8[?,?,3])"))
    out.add("image_decode", "R1_truncated", one_node(
        lambda: "%r0 = image_decode %b {format = rgb} : u8[?,?,3]",
        [("b", "u8", [n - 2], ppm[:-2])], [("u8", [1, 2, 3], None)], extra=["expect-error image_decode.R1"])
        .replace("-> (u8[1,2,3])", "-> (u8[?,?,3])"))


def generate(out):
    rng_cases(out)
    control_cases(out)
    container_cases(out)
    string_cases(out)
    image_cases(out)
    edge_shape_cases(out)
    container_control_cases(out)


def edge_shape_cases(out):
    """rank 0 and empty tensors for the ops whose families do not already have them."""
    f = lambda vs: [F.f32_bits(v) for v in vs]
    out.add("bitcast", "rank0", one_node(lambda: "%r0 = bitcast %x {to = u16} : u16[]",
                                         [("x", "f16", [], [F.from_float("f16", -0.0)])], [("u16", [], [0x8000])]))
    out.add("bitcast", "empty", one_node(lambda: "%r0 = bitcast %x {to = i4} : i4[0,2]",
                                         [("x", "f4e2m1", [0, 2], [])], [("i4", [0, 2], [])]))
    out.add("shape_of", "rank0", one_node(lambda: "%r0 = shape_of %x : i64[0]", [("x", "string", [], ["s"])], [("i64", [0], [])]))
    out.add("pool", "rank0", one_node(
        lambda: "%r0, %r1 = pool %x {kind = max, window = [], strides = [], dilations = [], pads_low = [], pads_high = []} : f32[], i64[]",
        [("x", "f32", [], f([-2.5]))], [("f32", [], f([-2.5])), ("i64", [], [0])]))
    out.add("pool", "empty_batch", one_node(
        lambda: "%r0 = pool %x {kind = sum, window = [1, 2], strides = [1, 1], dilations = [1, 1], pads_low = [0, 0], pads_high = [0, 0]} : i32[0,2]",
        [("x", "i32", [0, 3], [])], [("i32", [0, 2], [])]))
    out.add("conv", "empty_batch", one_node(
        lambda: "%r0 = conv %x, %w {to = f32, strides = [1], dilations = [1], lhs_dilations = [1], pads_low = [0], pads_high = [0], groups = 1} : f32[0,1,2]",
        [("x", "f32", [0, 1, 3], []), ("w", "f32", [1, 1, 2], f([1, 1]))], [("f32", [0, 1, 2], [])]))
    out.add("conv", "empty_spatial_from_padding", one_node(
        lambda: "%r0 = conv %x, %w {to = f32, strides = [1], dilations = [1], lhs_dilations = [1], pads_low = [1], pads_high = [1], groups = 1} : f32[1,1,1]",
        [("x", "f32", [1, 1, 0], []), ("w", "f32", [1, 1, 2], f([float("nan"), 1]))], [("f32", [1, 1, 1], f([0.0]))]))
    out.add("string", "rank0_upper", one_node(
        lambda: "%r0 = string %a {kind = upper, pattern = \"\", maxsplit = -1} : string[]",
        [("a", "string", [], ["\u0430\u0431z"])], [("string", [], ["\u0410\u0411Z"])]))
    out.add("string", "empty_concat", one_node(
        lambda: "%r0 = string %a, %b {kind = concat, pattern = \"\", maxsplit = -1} : string[0,3]",
        [("a", "string", [0, 3], []), ("b", "string", [0, 3], [])], [("string", [0, 3], [])]))
    out.add("string", "split_empty_input", one_node(
        lambda: "%r0, %r1 = string %a {kind = split, pattern = \"\", maxsplit = -1} : string[0,?], i64[0]",
        [("a", "string", [0], [])], [("string", [0, 0], []), ("i64", [0], [])]).replace("-> (string[0,0], i64[0])", "-> (string[0,?], i64[0])"))
    out.add("sort", "descending_keeps_tie_order", one_node(
        lambda: "%r0, %r1 = sort %x {axis = 0, descending = true} : f32[5], i64[5]",
        [("x", "f32", [5], f([0.0, -0.0, float("nan"), 1.0, float("nan")]))],
        [("f32", [5], f([float("nan"), float("nan"), 1.0, 0.0, -0.0])), ("i64", [5], [2, 4, 3, 0, 1])]))
    out.add("pool", "max_minus_zero_then_plus_zero", one_node(
        lambda: "%r0, %r1 = pool %x {kind = max, window = [2], strides = [1], dilations = [1], pads_low = [0], pads_high = [0]} : f32[2], i64[2]",
        [("x", "f32", [3], f([-0.0, 0.0, -0.0]))], [("f32", [2], f([0.0, 0.0])), ("i64", [2], [1, 1])]))


def container_control_cases(out):
    """if and while carry every type of the IR: sequences, optionals and maps too."""
    out.add("if", "yields_sequence_and_optional", case_text(
        [("p", "bool[]"), ("a", "f16[2]"), ("b", "f16[3]")],
        ["%r0, %r1 = if %p {",
         "  then () {",
         "    %s = sequence %a, %b {kind = construct, axis = 0, elem = f16[?]} : seq<f16[?]>",
         "    %o = optional %a {kind = wrap, elem = f16[2]} : opt<f16[2]>",
         "    yield %s, %o",
         "  }",
         "  else () {",
         "    %s#1 = sequence %b {kind = construct, axis = 0, elem = f16[?]} : seq<f16[?]>",
         "    %o#1 = optional {kind = none, elem = f16[2]} : opt<f16[2]>",
         "    yield %s#1, %o#1",
         "  }",
         "} : seq<f16[?]>, opt<f16[2]>",
         "%n = sequence %r0 {kind = length, axis = 0, elem = f16[?]} : i64[]",
         "%h = optional %r1 {kind = has, elem = f16[2]} : bool[]"],
        [("n", "i64[]"), ("h", "bool[]")],
        ["input %p = dense<bool[]>[false]", "input %a = dense<f16[2]>[1.0, 2.0]", "input %b = dense<f16[3]>[3.0, 4.0, 5.0]",
         "expect 0 = dense<i64[]>[1]", "expect 1 = dense<bool[]>[false]"]))
    out.add("while", "carries_sequence", case_text(
        [("a", "i8[1]")],
        [const_line("k0", "i64", [], [0]), const_line("one", "i64", [], [1]), const_line("lim", "i64", [], [3]),
         "%s0 = sequence {kind = empty, axis = 0, elem = i8[1]} : seq<i8[1]>",
         "%r0, %r1 = while %s0, %k0 {",
         "  cond (%s: seq<i8[1]>, %k: i64[]) {", "    %c = compare %k, %lim {kind = lt} : bool[]", "    yield %c", "  }",
         "  body (%s#1: seq<i8[1]>, %k#1: i64[]) {",
         "    %s2 = sequence %s#1, %a, %k#1 {kind = insert, axis = 0, elem = i8[1]} : seq<i8[1]>",
         "    %k2 = binary %k#1, %one {kind = add} : i64[]",
         "    yield %s2, %k2", "  }",
         "} : seq<i8[1]>, i64[]",
         "%c = sequence %r0 {kind = concat, axis = 0, elem = i8[1]} : i8[?]"],
        [("c", "i8[?]")],
        ["input %a = dense<i8[1]>[-7]", "expect 0 = dense<i8[3]>[-7, -7, -7]"]))
