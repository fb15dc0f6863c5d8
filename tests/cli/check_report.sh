#!/usr/bin/env bash
# plumb check's reports and options: --report FILE.json (first_divergence.node, per-tensor carried
# and local statistics), --report FILE.html (self-contained: the error plot, no network reference),
# exit codes 0/1/2, the minimum tolerance line, --rtol/--atol still deciding when given, no
# progress line when stderr is not a terminal.
set -uo pipefail
plumb=$1 src=$2
ex=$src/examples/mlp_torch
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" --report "$tmp/ok.json" --report "$tmp/ok.html" 2>"$tmp/err")
rc=$?
if [[ $rc -eq 2 && "$(cat "$tmp/err")" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
[[ $rc -eq 0 ]] || fail "faithful model: exit $rc: $out $(cat "$tmp/err")"
[[ ! -s "$tmp/err" ]] || fail "stderr not empty without a terminal (progress line?): $(cat "$tmp/err")"
grep -q '"verdict": "match"' "$tmp/ok.json" || fail "ok.json verdict"
grep -q '"first_divergence": null' "$tmp/ok.json" || fail "ok.json first_divergence"
grep -q 'id="error-plot"' "$tmp/ok.html" || fail "ok.html has no plot"

out=$("$plumb" check "$ex/model_wrong_axis.onnx" --data "$ex/data" --report "$tmp/bad.json" --report "$tmp/bad.html" 2>&1)
rc=$?
[[ $rc -eq 1 ]] || fail "wrong axis: exit $rc: $out"
grep -q '"first_divergence": {"node": "/softmax/Softmax", "op_type": "Softmax", "opset": 13, "tensor": "probs", "kind": "local", "localized": true' \
  "$tmp/bad.json" || fail "bad.json first_divergence: $(grep first_divergence "$tmp/bad.json")"
grep -q '"local": {"match": false, "category": "semantic"' "$tmp/bad.json" || fail "bad.json local stats"
grep -q "minimum tolerance that would pass: atol" <<<"$out" || fail "no minimum tolerance line: $out"
grep -q 'id="divergence"' "$tmp/bad.html" || fail "bad.html: the divergence is not marked"
grep -qiE '(src|href)="(https?:)?//' "$tmp/bad.html" && fail "bad.html references the network"
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["first_divergence"]["node"]=="/softmax/Softmax"' \
    "$tmp/bad.json" || fail "bad.json is not valid JSON"
fi

# Fixed tolerances still decide when given (a huge atol passes the broken model; a zero one fails
# the faithful model, whose matmul sums differ from torch's in the last bits).
"$plumb" check "$ex/model_wrong_axis.onnx" --data "$ex/data" --rtol 0 --atol 10 >/dev/null 2>&1
[[ $? -eq 0 ]] || fail "--atol 10 should pass"
"$plumb" check "$ex/model.onnx" --data "$ex/data" --rtol 0 --atol 0 >"$tmp/zero" 2>&1
rc=$?
[[ $rc -eq 1 ]] || fail "--rtol 0 --atol 0: exit $rc: $(cat "$tmp/zero")"
grep -q "noise" "$tmp/zero" || fail "--atol 0: the differences are not classified as noise: $(cat "$tmp/zero")"
# Errors: one line, exit 2.
for args in "--tolerance auto --rtol 1" "--tolerance exact" "--report out.txt" "--bogus"; do
  out=$("$plumb" check "$ex/model.onnx" --data "$ex/data" $args 2>&1)
  rc=$?
  [[ $rc -eq 2 && $(wc -l <<<"$out") -eq 1 && "$out" == plumb:* ]] || fail "'$args': exit $rc: $out"
done
echo "ok"
