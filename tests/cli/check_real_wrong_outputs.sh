#!/usr/bin/env bash
# plumb check on the real models of tests/models with wrong expected outputs (outputs only, what
# most users have): torch's outputs zeroed, shuffled, scaled by 1.01, or with one element moved by
# 1% of the output's largest magnitude (tests/models/real_cases.py wrong) must each give exit 1,
# never "match". Cases "<model> wrong/{zeros,shuffled,scaled,moved}" (a variant equal to the
# original, e.g. shuffling a scalar, is left out); known failures:
# tests/models/real_known_failures.txt. Ends with "N passed, N failed". Exit 77 (skipped) in a
# build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/models/real_harness.sh"
for m in $(real_models); do
  d=$real_models_dir/$m
  for v in $(/usr/bin/python3 "$real_models_dir/real_cases.py" wrong "$d" "$real_tmp/$m"); do
    real_check "$m" "wrong/$v" 1 "$d/model.onnx" --data "$d/data" --expected "$real_tmp/$m/$v"
  done
done
real_summary
