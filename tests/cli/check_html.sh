#!/usr/bin/env bash
# The HTML report of plumb check renders in headless Chromium (Debian's chromium, tools/setup.sh):
# a screenshot is taken at 1400 px, and the rendered page is measured by a script added to a copy
# of it (the report itself has none): the error plot has its points, the bound line at 1.0, the
# divergence marker and a name label per tensor; the graph view has every ONNX node with the
# divergent span highlighted; the failures-only toggle hides the passing rows; nothing is wider
# than 1400 px (a 159-node transformer, every node output compared, and the mis-converted MLP).
# Exit 77 (skipped) when chromium is absent or the build has no ONNX tools.
set -uo pipefail
plumb=$1 src=$2
ex=$src/examples/mlp_torch
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/cli/lib/chromium.sh"
skip_without_chromium
out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$ex/data" --report "$tmp/r.html" 2>&1)
rc=$?
if [[ $rc -eq 2 && "$out" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
[[ $rc -eq 1 && -s "$tmp/r.html" ]] || fail "plumb check exit $rc, no report: $out"
grep -qiE '(src|href)="https?:|<script' "$tmp/r.html" && fail "the report is not self-contained and script-free"
screenshot "$tmp/r.html"

# measure PAGE.html: rows shown, then with failures only; axis labels, graph nodes, span nodes.
measure() {
  rendered "$1" 'const t=document.getElementById("tensors");const shown=()=>[...t.rows].filter(r=>r.offsetParent!==null).length;const rows=shown();document.getElementById("failures-only").click();const failing=shown();document.body.setAttribute("data-measure",'"$wide_measure"'+"rows="+rows+" failing="+failing+" labels="+document.querySelectorAll("#error-plot .xlabel").length+" nodes="+document.querySelectorAll("#graph-view .node").length+" span="+document.querySelectorAll("#graph-view .span").length);'
}
m=$(measure "$tmp/r.html")
[[ -n "$m" ]] || fail "the page did not render: $(cat "$tmp/dom.log")"
grep -q '<svg id="error-plot"' "$tmp/dom.html" || fail "the rendered page has no plot"
grep -q 'id="divergence"' "$tmp/dom.html" || fail "the rendered plot has no divergence marker"
grep -q 'id="bound-line"' "$tmp/dom.html" || fail "the plot has no bound line"
points=$(grep -o '<circle' "$tmp/dom.html" | wc -l)
[[ $points -ge 4 ]] || fail "the plot has $points points"
# 4 tensors, the Softmax's output failing: header + 4 rows + its reason row; failures only: header,
# the failing row and its reason. One label per tensor; 4 nodes, the Softmax the divergent span.
[[ "$m" == "page="*" wide=0 rows=6 failing=3 labels=4 nodes=4 span=1" ]] || fail "mlp page: $m"
fits "$m" || fail "mlp page wider than 1400 px: $m"
grep -q '<span class="node cmp-diff span first" title="node &#39;/softmax/Softmax&#39;\|<span class="node cmp-diff span first" title="node '"'"'/softmax/Softmax' \
  "$tmp/dom.html" || fail "the Softmax is not the highlighted node"
# The terminal's columns, in its order.
grep -q '<th>#</th><th></th><th>local</th><th>carried</th><th>max abs</th><th>max rel</th><th>max ulp</th><th>mismatch</th><th>nan/inf</th><th>local abs</th><th>x bound</th><th>noise</th><th>tensor</th>' \
  "$tmp/r.html" || fail "the table's columns are not the terminal's"

# A larger page: every node output of a 159-node transformer encoder, matching.
tm=$src/tests/models/transformer_encoder
if [[ -d $tm/nodes ]]; then
  out=$("$plumb" check "$tm/model.onnx" --data "$tm/data" --expected "$tm/nodes" --samples 2 --report "$tmp/t.html" 2>&1)
  [[ -s "$tmp/t.html" ]] || fail "transformer: no report: $out"
  all=$(grep -c '^<tr class=' "$tmp/t.html")
  bad=$(grep -cE '^<tr class="(diff|undecided)' "$tmp/t.html")
  n=$(grep -c '^<tr class="[a-z]*"><td>' "$tmp/t.html")  # tensor rows (not the reason rows)
  m=$(measure "$tmp/t.html")
  fits "$m" || fail "transformer page wider than 1400 px: $m"
  [[ "$m" == *" rows=$((all + 1)) failing=$((bad + 1)) "* ]] || fail "transformer: failures-only toggle: $m ($all rows, $bad failing)"
  labels=${m#*labels=}; labels=${labels%% *}
  [[ $n -gt 100 && $labels -ge $((n / 2)) ]] || fail "transformer: $labels axis labels for $n tensors"
fi
echo "ok: screenshot $shot_size bytes, $points plot points; $m"
