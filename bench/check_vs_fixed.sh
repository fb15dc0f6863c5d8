#!/usr/bin/env bash
# The auto bound against a plain fixed tolerance (issue 12): on the real models of tests/models
# (make_real_models.py), every wrong-output variant, injected fault and subtle fault of
# tests/models/real_cases.py is checked twice, with the auto bound and with --rtol 1e-3 --atol 1e-4.
# Prints one line per case where they disagree and the counts: "fixed rejects, auto accepts" must
# be 0 (the auto bound never accepts what the simple rule rejects); "auto rejects, fixed accepts"
# is what the auto bound adds. Inconclusive (exit 3) counts as not accepting.
#
#   bench/check_vs_fixed.sh PLUMB [SRC]
set -uo pipefail
plumb=$1 src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
dir=$src/tests/models
cases=$dir/real_cases.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
both=0 fixed_only=0 auto_only=0 neither=0 n=0
judge() {  # label model args...
  local label=$1 model=$2 a f
  shift 2
  "$plumb" check "$model" "$@" >/dev/null 2>&1
  a=$?
  "$plumb" check "$model" "$@" --rtol 1e-3 --atol 1e-4 >/dev/null 2>&1
  f=$?
  n=$((n + 1))
  if [[ $a -ne 0 && $f -ne 0 ]]; then both=$((both + 1))
  elif [[ $a -eq 0 && $f -ne 0 ]]; then fixed_only=$((fixed_only + 1)); echo "fixed rejects, auto accepts: $label"
  elif [[ $a -ne 0 && $f -eq 0 ]]; then auto_only=$((auto_only + 1)); echo "auto rejects, fixed accepts: $label (exit $a)"
  else neither=$((neither + 1)); fi
}
for d in "$dir"/*/faults.txt; do
  d=$(dirname "$d")
  m=$(basename "$d")
  /usr/bin/python3 "$cases" full "$d" "$tmp/$m.full" >/dev/null
  for v in $(/usr/bin/python3 "$cases" wrong "$d" "$tmp/$m.wrong"); do
    judge "$m wrong/$v" "$d/model.onnx" --data "$d/data" --expected "$tmp/$m.wrong/$v"
  done
  while read -r id _ exit_outputs _; do
    [[ $id == N* ]] && continue  # below noise: both should accept
    judge "$m $id/full" "$tmp/$m/$id.onnx" --data "$d/data" --expected "$tmp/$m.full"
    judge "$m $id/outputs" "$tmp/$m/$id.onnx" --data "$d/data"
  done < <(/usr/bin/python3 "$cases" faults "$d" "$tmp/$m")
  if /usr/bin/python3 "$cases" subtle "$d" "$plumb" "$tmp/$m.S1.onnx" >/dev/null; then
    judge "$m S1/outputs" "$tmp/$m.S1.onnx" --data "$d/data"
  fi
done
echo "$n faulty cases: both reject $both, auto only $auto_only, fixed only $fixed_only, neither $neither"
[[ $fixed_only -eq 0 ]]
