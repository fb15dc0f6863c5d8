#!/usr/bin/env bash
# docs/check.md's torch recipe, run as written (issue 20): the commands between its recipe:begin
# and recipe:end markers, with `plumb` the binary under test and OUT a temporary folder; then what
# the page says they print. Needs Debian's python3-torch and python3-onnx (skipped, 77, without).
set -uo pipefail
plumb=$1 src=$2
fail() { echo "FAIL: $*"; exit 1; }
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
skip_without_python torch onnx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The indented lines of the recipe block, one command each.
sed -n '/<!-- recipe:begin -->/,/<!-- recipe:end -->/p' "$src/docs/check.md" | sed -n 's/^    //p' >"$tmp/recipe"
[[ $(wc -l <"$tmp/recipe") -ge 4 ]] || fail "no recipe block in docs/check.md"
grep -q '^OUT=' "$tmp/recipe" || fail "the recipe does not set OUT"
n=0
while IFS= read -r line; do
  n=$((n + 1))
  if [[ $line == OUT=* ]]; then
    OUT=$tmp/out  # the page's folder, made private to this run
    continue
  fi
  line=${line//\$OUT/$OUT}
  read -ra words <<<"$line"
  [[ ${words[0]} == plumb ]] && words[0]=$plumb
  (cd "$src" && "${words[@]}") >"$tmp/out.$n" 2>&1
  rc=$?
  [[ $rc -eq 0 ]] || fail "recipe line $n '$line': exit $rc: $(cat "$tmp/out.$n")"
done <"$tmp/recipe"
# What the page says they print.
grep -q ": 1 inputs, 1 outputs, 6 intermediates" "$tmp/out.2" || fail "dump_torch.py: $(cat "$tmp/out.2")"
grep -q "^match: 7 tensors within the auto bound (each node also checked on its expected inputs)" "$tmp/out.3" ||
  fail "the first check: $(cat "$tmp/out.3")"
[[ -s $OUT/report.html ]] || fail "no report.html"
grep -q "^match: 1 tensor within" "$tmp/out.4" || fail "outputs only: $(cat "$tmp/out.4")"
grep -q '"verdict": "match"' "$OUT/report.json" || fail "report.json"
ls "$OUT/data" | tr '\n' ' ' | grep -q "0.npy 1.npy 2.npy 3.npy 4.npy 5.npy input_0.pb names.json output_0.pb" ||
  fail "data/ is not as the page says: $(ls "$OUT/data")"
echo "ok"
