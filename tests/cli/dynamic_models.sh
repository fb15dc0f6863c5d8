#!/usr/bin/env bash
# Shapes computed at run time (issue 13), on torch exports made by
# tests/models/make_dynamic_models.py (expected outputs from torch, independently of plumb):
# - lraspp (static input; Resize sizes from Shape -> Slice -> Concat): plumb run writes every
#   output and plumb check matches, from the .onnx with the data (the lowering specializes on the
#   input shapes first); ssdlite has its own test (dynamic_ssdlite.sh: its check takes minutes);
# - fcn (N, H, W), vit (batch), gpt, encoder, lstm_dynamic (batch and sequence), shapes (view by
#   size, topk with a computed k, new_zeros, nonzero, masked_select), all exported with
#   dynamic_axes: plumb convert ONCE, with no input values, then plumb run and plumb check of that
#   one .plumb at every size (batch 1, a sequence of 1, zero-size outputs included) must match.
# A perturbed expected output must make plumb check fail (exit 1), so the checks cannot pass
# vacuously. Exit 77 (skipped) in a build without the ONNX tools (the tiny configuration).
set -uo pipefail
plumb=$1 src=$2
models=$src/tests/models/dynamic
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# run MODEL DATA [CHECK OPTIONS]: plumb run writes one output_<k>.pb per expected output, and
# plumb check matches.
run_and_check() {
  local model=$1 data=$2 out=$tmp/out
  shift 2
  rm -rf "$out"
  local err
  err=$("$plumb" run "$model" --data "$data" --out "$out" 2>&1 >/dev/null)
  local rc=$?
  if [[ $rc -eq 2 && ("$err" == *"not implemented in this build"* || "$err" == *"models are not supported in this build"*) ]]; then
    echo "no ONNX tools in this build: skipped"
    exit 77
  fi
  [[ $rc -eq 0 ]] || fail "$model on $data: plumb run exit $rc: $err"
  local want got
  want=$(ls "$data" | grep -c '^output_.*\.pb$')
  got=$(ls "$out" | grep -c '^output_.*\.pb$')
  [[ $want -eq $got ]] || fail "$model on $data: plumb run wrote $got outputs, want $want"
  local report
  report=$("$plumb" check "$model" --data "$data" "$@" 2>&1)
  rc=$?
  [[ $rc -eq 0 ]] || { echo "$report"; fail "$model on $data: plumb check exit $rc (want 0, match)"; }
}

for name in lraspp; do
  for data in "$models/$name"/data_*; do run_and_check "$models/$name/model.onnx" "$data"; done
done

for name in fcn vit gpt encoder lstm_dynamic shapes; do
  plumb_file=$tmp/$name.plumb
  out=$("$plumb" convert "$models/$name/model.onnx" -o "$plumb_file" 2>&1) || fail "$name: convert: $out"
  sizes=0
  for data in "$models/$name"/data_*; do
    run_and_check "$plumb_file" "$data"
    sizes=$((sizes + 1))
  done
  [[ $sizes -ge 2 ]] || fail "$name: $sizes input sizes, want 2 or more"
done

# The shapes model at batch 1, length 1 has zero-size outputs (topk with k = 0, nonzero and
# masked_select of an all-false mask): each is compared (0 of 0 elements) and matches.
report=$("$plumb" check "$tmp/shapes.plumb" --data "$models/shapes/data_n1l1" 2>&1)
empty=$(grep -cE '^ok .* 0/0 .* (top|idx|nz|picked) ' <<< "$report")
[[ $empty -eq 4 ]] || { echo "$report"; fail "shapes n1l1: $empty of 4 zero-size outputs compared and matching"; }

# Perturbed expected data: the last f32 of fcn's output_0.pb (raw_data is serialized last) set to
# 1000.0 must give a mismatch, from the converted .plumb.
cp -r "$models/fcn/data_1x3x9x13" "$tmp/bad"
f=$tmp/bad/output_0.pb
printf '\x00\x00\x7a\x44' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 4)) conv=notrunc status=none
"$plumb" check "$tmp/fcn.plumb" --data "$tmp/bad" > "$tmp/bad.txt" 2>&1
rc=$?
[[ $rc -eq 1 ]] || { cat "$tmp/bad.txt"; fail "a perturbed expected output must give exit 1, got $rc"; }
echo ok
