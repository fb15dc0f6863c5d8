#!/usr/bin/env bash
# plumb run on a .plumb file end to end: --input NAME=FILE.npy, --data DIR, --out DIR (writes
# output_<k>.npy), the stdout summary, --precise, and the one-line error with exit 2 for a bad input.
# Usage: run_plumb.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$tmp/m.txt" <<'TXT'
plumb 1
func @main(%x: f32[3], %y: f32[3]) -> (f32[3]) {
  %c = constant {value = dense<f32[3]>[1, -2.5, 4]} : f32[3]
  %s = binary %x, %y {kind = add} : f32[3]
  %z = binary %s, %c {kind = mul} : f32[3]
  return %z
}
TXT
"$plumb" asm "$tmp/m.txt" -o "$tmp/m.plumb" || fail "asm exit $?"

# npy writer/reader without numpy: header dict padded to 64 bytes, little-endian data.
cat > "$tmp/npy.py" <<'PY'
import struct, sys
def write(path, fmt, descr, shape, vals):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    while (10 + len(h) + 1) % 64: h += " "
    h += "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<%d%s" % (len(vals), fmt), *vals))
def read(path):
    b = open(path, "rb").read()
    assert b[:6] == b"\x93NUMPY", "magic"
    n = struct.unpack("<H", b[8:10])[0]
    h = b[10:10 + n].decode()
    d = eval(h)
    fmt = {"<f4": "f", "<f8": "d", "<i8": "q"}[d["descr"]]
    cnt = 1
    for s in d["shape"]: cnt *= s
    vals = struct.unpack("<%d%s" % (cnt, fmt), b[10 + n:10 + n + cnt * struct.calcsize(fmt)])
    print(d["descr"], list(d["shape"]), " ".join(repr(v) for v in vals))
if sys.argv[1] == "write":
    kind = sys.argv[3]
    vals = [float(v) for v in sys.argv[4].split(",")]
    write(sys.argv[2], {"f4": "f", "f8": "d"}[kind], "<" + kind, [len(vals)], vals)
else:
    read(sys.argv[2])
PY
py() { python3 "$tmp/npy.py" "$@"; }
py write "$tmp/x.npy" f4 1,2,3 || fail "writing x.npy"
py write "$tmp/y.npy" f4 0.5,-4,1 || fail "writing y.npy"

# (x + y) * c = [1.5, 5, 16]
# --out writes output_<k>.npy, or output_<k>.pb (TensorProto) when the build has the ONNX tools.
"$plumb" run "$tmp/m.plumb" --input x="$tmp/x.npy" --input y="$tmp/y.npy" --out "$tmp/out" || fail "run exit $?"
if [ -f "$tmp/out/output_0.pb" ]; then ext=pb; else ext=npy; fi
[ -s "$tmp/out/output_0.$ext" ] || fail "no output_0.$ext"
if [ $ext = npy ]; then
  [ "$(py read "$tmp/out/output_0.npy")" = "<f4 [3] 1.5 5.0 16.0" ] || fail "output_0.npy: $(py read "$tmp/out/output_0.npy")"
fi

out="$("$plumb" run "$tmp/m.plumb" --input x="$tmp/x.npy" --input y="$tmp/y.npy")" || fail "run (stdout) exit $?"
echo "$out" | grep -q "^output 0 .*: f32\[3\] = \[1.5, 5, 16\]$" || fail "summary: $out"

# --data DIR with input_<k>.npy in graph input order
mkdir "$tmp/data"; cp "$tmp/x.npy" "$tmp/data/input_0.npy"; cp "$tmp/y.npy" "$tmp/data/input_1.npy"
"$plumb" run "$tmp/m.plumb" --data "$tmp/data" --out "$tmp/out2" || fail "run --data exit $?"
cmp -s "$tmp/out/output_0.$ext" "$tmp/out2/output_0.$ext" || fail "--data result differs"

# --precise: f64 results
out="$("$plumb" run "$tmp/m.plumb" --precise --input x="$tmp/x.npy" --input y="$tmp/y.npy")" || fail "precise exit $?"
echo "$out" | grep -q "^output 0 .*: f64\[3\] = \[1.5, 5, 16\]$" || fail "precise summary: $out"
"$plumb" run "$tmp/m.plumb" --precise --input x="$tmp/x.npy" --input y="$tmp/y.npy" --out "$tmp/out3" || fail "precise exit $?"
if [ $ext = npy ]; then
  [ "$(py read "$tmp/out3/output_0.npy")" = "<f8 [3] 1.5 5.0 16.0" ] || fail "precise output: $(py read "$tmp/out3/output_0.npy")"
fi

# a wrong input dtype: one error line naming the input, exit 2
py write "$tmp/xd.npy" f8 1,2,3
"$plumb" run "$tmp/m.plumb" --input x="$tmp/xd.npy" --input y="$tmp/y.npy" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "bad dtype exited $rc"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "expected one error line: $(cat "$tmp/err")"
grep -q "^plumb: $tmp/m.plumb: input 'x': expected f32\[3\], got f64\[3\]" "$tmp/err" || fail "error line: $(cat "$tmp/err")"

# a missing input, an unknown input name, a corrupt npy
"$plumb" run "$tmp/m.plumb" --input x="$tmp/x.npy" 2> "$tmp/err"; [ $? -eq 2 ] || fail "missing input"
grep -q "input 'y' is not set" "$tmp/err" || fail "missing input: $(cat "$tmp/err")"
"$plumb" run "$tmp/m.plumb" --input nope="$tmp/x.npy" 2> "$tmp/err"; [ $? -eq 2 ] || fail "unknown input"
head -c 20 "$tmp/x.npy" > "$tmp/bad.npy"
"$plumb" run "$tmp/m.plumb" --input x="$tmp/bad.npy" --input y="$tmp/y.npy" 2> "$tmp/err"; [ $? -eq 2 ] || fail "corrupt npy"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "corrupt npy: $(cat "$tmp/err")"
echo "run_plumb: ok"
