#!/usr/bin/env bash
# --threads N (issue 17) on run, bench, check and both conformance forms: accepted from 1 to 1024, the
# outputs the same bytes at 1, 2 and 3 threads (a matmul big enough to be split), and a bad count
# a one-line error naming the option, exit 2.
# Usage: threads_option.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb="$1" src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$tmp/m.txt" <<'TXT'
plumb 1
func @main(%x: f32[300,400], %w: f32[400,300]) -> (f32[300,300]) {
  %y = matmul %x, %w {to = f32} : f32[300,300]
  return %y
}
TXT
"$plumb" asm "$tmp/m.txt" -o "$tmp/m.plumb" || fail "asm exit $?"
/usr/bin/python3 - "$tmp" <<'PY' || fail "writing the inputs"
import sys, numpy as np
np.save(sys.argv[1] + "/x.npy", (np.arange(300 * 400, dtype=np.float32).reshape(300, 400) % 97 - 48) / 7)
np.save(sys.argv[1] + "/w.npy", (np.arange(400 * 300, dtype=np.float32).reshape(400, 300) % 89 - 44) / 3)
PY
for t in 1 2 3; do
  mkdir "$tmp/out$t"
  "$plumb" run "$tmp/m.plumb" --input x="$tmp/x.npy" --input w="$tmp/w.npy" --out "$tmp/out$t" --threads $t || fail "run --threads $t exit $?"
  "$plumb" run "$tmp/m.plumb" --input x="$tmp/x.npy" --input w="$tmp/w.npy" --out "$tmp/out$t/p" --precise --threads $t ||
    fail "run --precise --threads $t exit $?"
done
ls "$tmp"/out1/output_0.* > /dev/null 2>&1 || fail "run --out wrote no output_0"
for t in 2 3; do  # output_0.pb, or output_0.npy in a build without the ONNX tools
  cmp -s <(cat "$tmp"/out1/output_0.*) <(cat "$tmp"/out$t/output_0.*) || fail "the output at $t threads differs"
  cmp -s <(cat "$tmp"/out1/p/output_0.*) <(cat "$tmp"/out$t/p/output_0.*) || fail "the precise output at $t threads differs"
done

for bad in 0 -1 1025 two ""; do
  "$plumb" run "$tmp/m.plumb" --input x="$tmp/x.npy" --input w="$tmp/w.npy" --threads "$bad" > "$tmp/o" 2> "$tmp/e"
  rc=$?
  [[ $rc -eq 2 ]] || fail "--threads '$bad': exit $rc, expected 2"
  [[ $(wc -l < "$tmp/e") -eq 1 ]] && grep -q -- "--threads needs an integer from 1 to 1024" "$tmp/e" ||
    fail "--threads '$bad': $(cat "$tmp/e")"
done
"$plumb" conformance --core "$src/spec/vectors" --filter '^matmul/' --threads 2 > "$tmp/c" 2>&1 ||
  fail "conformance --core --threads 2: $(tail -3 "$tmp/c")"
"$plumb" conformance --core "$src/spec/vectors" --threads 0 > "$tmp/c" 2>&1
[[ $? -eq 2 ]] || fail "conformance --core --threads 0 should exit 2"
"$plumb" help run | grep -q -- "--threads N" || fail "plumb help run does not list --threads"
# plumb bench takes the same session options as run (tools/session_options.h).
"$plumb" bench "$tmp/m.plumb" --input x="$tmp/x.npy" --input w="$tmp/w.npy" --threads 3 --precise --runs 2 --json \
  > "$tmp/b" 2>&1 || fail "bench --threads 3 --precise: $(cat "$tmp/b")"
grep -q '"runs": 2' "$tmp/b" || fail "bench --json: $(cat "$tmp/b")"
"$plumb" bench "$tmp/m.plumb" --input x="$tmp/x.npy" --input w="$tmp/w.npy" --threads 0 > /dev/null 2> "$tmp/e"
[[ $? -eq 2 ]] && grep -q -- "--threads needs an integer" "$tmp/e" || fail "bench --threads 0: $(cat "$tmp/e")"
"$plumb" help bench | grep -q -- "--threads N" || fail "plumb help bench does not list --threads"

ex=$src/examples/mlp_torch
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --threads 3 2>&1)
rc=$?
if [[ $rc -eq 2 && "$out" == *"not implemented in this build"* ]]; then
  echo "threads_option: check skipped (no ONNX tools in this build)"
else
  [[ $rc -eq 0 ]] || fail "check --threads 3: exit $rc: $out"
  "$plumb" check "$ex/model.onnx" --data "$ex/data" --threads 0 > /dev/null 2>&1
  [[ $? -eq 2 ]] || fail "check --threads 0 should exit 2"
fi
echo "threads_option: ok"
