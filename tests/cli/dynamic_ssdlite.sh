#!/usr/bin/env bash
# torchvision ssdlite320_mobilenet_v3_large (tests/models/dynamic/ssdlite, made by
# tests/models/make_dynamic_models.py; expected outputs from torch): anchors by Tile of computed
# repeats, TopK with k computed from a NonZero count, NonMaxSuppression and TopK inside If.
# plumb run writes boxes, scores and labels, and plumb check matches them from the .onnx with the
# data (rtol/atol 1e-3 and --no-isolate: the auto bound's stochastic runs over its 4740 core
# nodes take many minutes; run and check take about 3 s and 40 s of CPU). A perturbed expected
# output must give exit 1. Exit 77 (skipped) without the ONNX tools (the tiny configuration).
set -uo pipefail
plumb=$1 src=$2
d=$src/tests/models/dynamic/ssdlite
data=$d/data_3x96x128
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
err=$("$plumb" run "$d/model.onnx" --data "$data" --out "$tmp/out" 2>&1 >/dev/null)
rc=$?
if [[ $rc -eq 2 && ("$err" == *"not implemented in this build"* || "$err" == *"models are not supported in this build"*) ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
[[ $rc -eq 0 ]] || fail "plumb run exit $rc: $err"
for k in 0 1 2; do [[ -f $tmp/out/output_$k.pb ]] || fail "plumb run wrote no output_$k.pb"; done
opts=(--rtol 1e-3 --atol 1e-3 --no-isolate)
report=$("$plumb" check "$d/model.onnx" --data "$data" "${opts[@]}" 2>&1)
rc=$?
[[ $rc -eq 0 ]] || { echo "$report"; fail "plumb check exit $rc, want 0 (match)"; }
cp -r "$data" "$tmp/bad"
f=$tmp/bad/output_1.pb  # scores: its last f32 (raw_data is serialized last) set to 1000.0
printf '\x00\x00\x7a\x44' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 4)) conv=notrunc status=none
"$plumb" check "$d/model.onnx" --data "$tmp/bad" "${opts[@]}" > "$tmp/bad.txt" 2>&1
rc=$?
[[ $rc -eq 1 ]] || { cat "$tmp/bad.txt"; fail "a perturbed expected output must give exit 1, got $rc"; }
echo ok
