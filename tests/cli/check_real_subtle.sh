#!/usr/bin/env bash
# Subtle faults, outputs only, on the real models of tests/models: slice 0 of one weight (or float
# Constant) scaled by 1 + delta, delta the smallest whose effect on the outputs is 100x the
# difference between plumb's native run (plumb run) and torch (tests/models/real_cases.py subtle,
# from faults.txt's S1 line), must give exit 1. Cases "<model> S1/outputs"; models without a
# weight or Constant have no such case. Known failures: tests/models/real_known_failures.txt. Ends
# with "N passed, N failed". Exit 77 (skipped) in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/models/real_harness.sh"
for m in $(real_models); do
  d=$real_models_dir/$m
  how=$(/usr/bin/python3 "$real_models_dir/real_cases.py" subtle "$d" "$plumb" "$real_tmp/$m.S1.onnx")
  rc=$?
  [[ $rc -eq 3 ]] && continue  # no weight: no subtle case
  echo "$m: $how"
  if [[ $rc -ne 0 ]]; then
    real_result "$m" S1/outputs 1 "could not make the fault: $how"
    continue
  fi
  real_check "$m" S1/outputs 1 "$real_tmp/$m.S1.onnx" --data "$d/data"
done
real_summary
