#!/usr/bin/env bash
# The HTML report of plumb check renders in headless Chromium (Debian's chromium, tools/setup.sh):
# a screenshot is taken, and the rendered DOM has the error plot with its points and the
# divergence marker. Exit 77 (skipped) when chromium is absent or the build has no ONNX tools.
set -uo pipefail
plumb=$1 src=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "chromium not installed: skipped"
  exit 77
fi
ex=$src/examples/mlp_torch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$ex/data" --report "$tmp/r.html" 2>&1)
rc=$?
if [[ $rc -eq 2 && "$out" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
[[ $rc -eq 1 && -s "$tmp/r.html" ]] || { echo "FAIL: plumb check exit $rc, no report: $out"; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --disable-dev-shm-usage
       --user-data-dir="$tmp/profile" --window-size=1100,1000)
timeout 120 "$browser" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$tmp/r.html" >"$tmp/shot.log" 2>&1
if [[ ! -s "$tmp/shot.png" ]]; then
  echo "FAIL: no screenshot"; cat "$tmp/shot.log"; exit 1
fi
# A PNG of real content: the signature, and more than a blank page's few hundred bytes.
[[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] || { echo "FAIL: not a PNG"; exit 1; }
size=$(stat -c %s "$tmp/shot.png")
[[ $size -gt 5000 ]] || { echo "FAIL: screenshot of $size bytes looks blank"; exit 1; }
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/r.html" >"$tmp/dom.html" 2>"$tmp/dom.log"
grep -q '<svg id="error-plot"' "$tmp/dom.html" || { echo "FAIL: the rendered page has no plot"; cat "$tmp/dom.log"; exit 1; }
grep -q 'id="divergence"' "$tmp/dom.html" || { echo "FAIL: the rendered plot has no divergence marker"; exit 1; }
points=$(grep -o '<circle' "$tmp/dom.html" | wc -l)
[[ $points -ge 4 ]] || { echo "FAIL: the plot has $points points"; exit 1; }
echo "ok: screenshot $size bytes, $points plot points"
