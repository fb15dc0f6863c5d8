#!/usr/bin/env bash
# plumb asm / verify / print end to end: exit codes 0 and 2, the one-line error format
# `plumb: <file>: <place>: <reason> (<label>)`, and that print | asm reproduces the model.
# Usage: verify_print_asm.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$tmp/m.txt" <<'TXT'
plumb 1
func @main(%x: f32[3], %y: f32[3]) -> (f32[3]) {
  %c = constant {value = dense<f32[3]>[1, -2.5, inf]} : f32[3]
  %s = binary %x, %y {kind = add} : f32[3] loc("Add_0", Add, 14)
  %z = binary %s, %c {kind = mul} : f32[3]
  return %z
}
TXT

"$plumb" asm "$tmp/m.txt" -o "$tmp/m.plumb" || fail "asm exit $?"
out="$("$plumb" verify "$tmp/m.plumb")" || fail "verify exit $?"
[ "$out" = "ok: 3 nodes, core version 1" ] || fail "verify printed '$out'"
"$plumb" print "$tmp/m.plumb" > "$tmp/p.txt" || fail "print exit $?"
cmp -s "$tmp/m.txt" "$tmp/p.txt" || { diff "$tmp/m.txt" "$tmp/p.txt"; fail "print differs from the source text"; }
"$plumb" asm "$tmp/p.txt" -o "$tmp/m2.plumb" || fail "asm of printed text"
cmp -s "$tmp/m.plumb" "$tmp/m2.plumb" || fail "asm(print(m)) differs from m"

# A corrupt file: one error line, exit 2.
head -c 40 "$tmp/m.plumb" > "$tmp/bad.plumb"
"$plumb" verify "$tmp/bad.plumb" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "verify of a corrupt file exited $rc"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "expected one error line, got: $(cat "$tmp/err")"
grep -Eq "^plumb: $tmp/bad.plumb: [^:]+: .+ \(file\.F[0-9]\)$" "$tmp/err" || fail "error line format: $(cat "$tmp/err")"

# A text error: line:col in the place.
printf 'plumb 1\nfunc @main() -> () {\n  %%a = nope\n  return\n}\n' > "$tmp/e.txt"
"$plumb" asm "$tmp/e.txt" -o "$tmp/e.plumb" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "asm of bad text exited $rc"
[ "$(cat "$tmp/err")" = "plumb: $tmp/e.txt: 3:8: unknown op 'nope'" ] || fail "asm error: $(cat "$tmp/err")"

# A verifier error: the node and the label.
printf 'plumb 1\nfunc @main(%%x: f32[3]) -> (f32[4]) {\n  %%y = unary %%x {kind = neg} : f32[4]\n  return %%y\n}\n' > "$tmp/v.txt"
"$plumb" asm "$tmp/v.txt" -o "$tmp/v.plumb" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "asm of unverifiable text exited $rc"
grep -Eq "^plumb: $tmp/v.txt: node #0 unary.*\(.+\)$" "$tmp/err" || fail "verifier error: $(cat "$tmp/err")"

# Missing file, usage errors, .onnx print, unknown command.
"$plumb" verify "$tmp/none.plumb" 2> "$tmp/err"; [ $? -eq 2 ] || fail "missing file"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "missing file: $(cat "$tmp/err")"
"$plumb" verify 2> /dev/null; [ $? -eq 2 ] || fail "verify with no file"
"$plumb" asm "$tmp/m.txt" 2> /dev/null; [ $? -eq 2 ] || fail "asm without -o"
"$plumb" frobnicate 2> /dev/null; [ $? -eq 2 ] || fail "unknown command"
"$plumb" 2> /dev/null; [ $? -eq 2 ] || fail "no command"
"$plumb" --help > /dev/null || fail "--help"
echo "ok"
