#!/usr/bin/env bash
# The core conformance vectors (spec/conformance.md) on ref: every case of spec/vectors passes and
# every op x dtype cell of the spec's Dtypes tables (spec/vectors/cells.txt) is claimed by a
# passing vector. Also checks that the runner can fail: a case with a wrong expected value, a
# wrong error label and an unclaimed cell each make it exit 1.
# Usage: core_conformance.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

vectors="$src/spec/vectors"
cells="$src/spec/vectors/cells.txt"
# A runtime built without RE2 (the tiny configuration) raises string.R2 for every regex_full_match,
# as spec/ops/string.md says: there that one positive vector and its cell are left out.
probe="$("$plumb" conformance --core "$vectors" --backend ref --filter 'regex_full_match' 2>&1)"
if grep -q "does not have" <<<"$probe"; then
  echo "runtime without RE2: string.regex_full_match's positive vector left out"
  mkdir -p "$tmp/all"
  cp -r "$vectors/." "$tmp/all/"
  rm "$tmp/all/string/regex_full_match.plumbt"
  grep -v '^string\.regex_full_match ' "$cells" > "$tmp/cells.txt"
  vectors="$tmp/all" cells="$tmp/cells.txt"
fi
out="$("$plumb" conformance --core "$vectors" --backend ref -j 2 --cells "$cells")"
rc=$?
echo "$out" | tail -n 3
[ $rc -eq 0 ] || { echo "$out" | grep -v '^cells:' | head -n 40; fail "core conformance exit $rc"; }
echo "$out" | tail -n 1 | grep -Eq '^[0-9]+ passed, 0 failed, 0 skipped$' || fail "summary line"

# The runner must notice a wrong value, a wrong label, and a missing cell.
mkdir -p "$tmp/v/binary"
cat > "$tmp/v/binary/wrong.plumbt" <<'TXT'
plumb 1
func @main(%a: f32[2], %b: f32[2]) -> (f32[2]) {
  %r = binary %a, %b {kind = add} : f32[2]
  return %r
}
// cell binary.add f32
// input %a = dense<f32[2]>[1.0, -0.0]
// input %b = dense<f32[2]>[2.0, -0.0]
// expect 0 = dense<f32[2]>[3.0, 0.0]
TXT
cat > "$tmp/v/binary/label.plumbt" <<'TXT'
plumb 1
func @main(%a: i32[1], %b: i32[1]) -> (i32[1]) {
  %r = binary %a, %b {kind = div} : i32[1]
  return %r
}
// input %a = dense<i32[1]>[1]
// input %b = dense<i32[1]>[0]
// expect-error binary.R2
TXT
# Ulp4 (unary exp): e = 0x402df854 in f32; 3 ulps away passes, 5 ulps away fails.
mkdir -p "$tmp/v/unary"
for k in 7 9; do
cat > "$tmp/v/unary/exp_$k.plumbt" <<TXT
plumb 1
func @main(%x: f32[1]) -> (f32[1]) {
  %r = unary %x {kind = exp} : f32[1]
  return %r
}
// input %x = dense<f32[1]>[1.0]
// expect 0 = dense<f32[1]>[0x402df85$k]
TXT
done
printf 'binary.add f32\n' > "$tmp/cells.txt"
out="$("$plumb" conformance --core "$tmp/v" --cells "$tmp/cells.txt")"
[ $? -eq 1 ] || fail "a failing vector set did not exit 1"
echo "$out" | grep -q '^binary/wrong: output 0' || fail "wrong value not reported: $out"
echo "$out" | grep -q '^binary/label: failed with' || fail "wrong label not reported: $out"
echo "$out" | grep -q '^missing cell: binary.add f32$' || fail "missing cell not reported: $out"
echo "$out" | grep -q '^unary/exp_9: output 0 (ulp4): .*5 ulp away' || fail "5 ulps not reported: $out"
echo "$out" | grep -q '^unary/exp_7' && fail "3 ulps reported as a failure: $out"
echo "$out" | tail -n 1 | grep -q '^1 passed, 3 failed, 0 skipped$' || fail "summary: $out"
exit 0
