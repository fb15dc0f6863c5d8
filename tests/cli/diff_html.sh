#!/usr/bin/env bash
# The HTML report of plumb diff (issue 24) renders in headless Chromium (Debian's chromium,
# tools/setup.sh), as check's does (tests/cli/check_html.sh): self-contained and script-free; a
# screenshot at 1400 px; and the rendered page, measured by a script added to a copy of it: the
# findings table, the two models' ONNX nodes side by side with the rows of a finding linked to it,
# the changes-only toggle (CSS only) hiding the rows that compute the same, with --data each B
# node's verdict and check's plot, nothing wider than 1400 px. Pages: resnet_small with a
# BatchNormalization folded into its first Conv (fused, equivalent on the data), and the encoder
# against torch's opset-16 export (its two LayerNormalizations split). Exit 77 (skipped) when
# chromium is absent or the build has no ONNX tools.
set -uo pipefail
plumb=$1 src=$2
models=$src/tests/models
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/cli/lib/chromium.sh"
skip_without_chromium
if [[ "$("$plumb" diff 2>&1)" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
/usr/bin/python3 "$models/diff_variants.py" "$src" "$tmp" unfolded encoder_opset16 || fail "diff_variants.py"

out=$("$plumb" diff "$tmp/unfolded.onnx" "$models/resnet_small/model.onnx" --data "$models/resnet_small/data" \
  --report "$tmp/fused.html" 2>&1)
[[ $? -eq 0 && -s "$tmp/fused.html" ]] || fail "plumb diff: no report: $out"
grep -qiE '(src|href)="https?:|<script' "$tmp/fused.html" && fail "the report is not self-contained and script-free"
screenshot "$tmp/fused.html"

# measure PAGE.html: side-by-side rows shown, then with changes only; findings, rows linked to
# one, points of the data's plot.
measure() {
  rendered "$1" 'const t=document.getElementById("side-by-side");const shown=()=>[...t.rows].filter(r=>r.offsetParent!==null).length;const rows=shown();document.getElementById("changes-only").click();const changes=shown();document.body.setAttribute("data-measure",'"$wide_measure"'+"rows="+rows+" changes="+changes+" findings="+document.querySelectorAll("#findings tr[id]").length+" linked="+document.querySelectorAll("#side-by-side a[href^=\"#finding-\"]").length+" plot="+document.querySelectorAll("#error-plot circle").length);'
}
m=$(measure "$tmp/fused.html")
[[ -n "$m" ]] || fail "the page did not render: $(cat "$tmp/dom.log")"
fits "$m" || fail "resnet_small page wider than 1400 px: $m"
# One finding (fused); its two rows (the Conv, and the BatchNormalization only in A) link to it and
# are all that the toggle leaves (with the header); every other row is a node of both models.
rows=$(grep -c '^<tr class="[a-z]*"><td>[0-9]*</td><td class="node">' "$tmp/fused.html")
[[ "$m" == *" rows=$((rows + 1)) changes=3 findings=1 linked=2 "* ]] || fail "resnet_small page: $m ($rows rows)"
plot=${m##*plot=}
[[ $plot -ge 20 ]] || fail "resnet_small page: the data's plot has $plot points"
grep -q '<tr id="finding-0" class="k-fused"><td>0</td><td class="kind">fused</td><td><code>/conv1/Conv</code></td>' \
  "$tmp/fused.html" || fail "the fused finding is not the first row of the findings"
grep -q '<td class="node"><span class="op">BatchNormalization</span> <code>/conv1/Conv/bn</code></td><td class="node">-</td><td><a href="#finding-0">0: fused</a></td>' \
  "$tmp/fused.html" || fail "the BatchNormalization is not shown only in A, linked to the fusion"
grep -q '<p id="verdict" class="ok">equivalent on the data</p>' "$tmp/fused.html" || fail "no verdict"

enc=$models/encoder
"$plumb" diff "$enc/model.onnx" "$tmp/encoder_opset16.onnx" --report "$tmp/split.html" >/dev/null 2>&1
[[ -s "$tmp/split.html" ]] || fail "encoder: no report"
m=$(measure "$tmp/split.html")
fits "$m" || fail "encoder page wider than 1400 px: $m"
# Two splits: each LayerNormalization's row and 8 more of its expansion's nodes link to one.
[[ "$m" == *" changes=19 findings=2 linked=18 plot=0" ]] || fail "encoder page: $m"
echo "ok: screenshot $shot_size bytes; $m"
