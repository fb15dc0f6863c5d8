#!/usr/bin/env bash
# plumb check on the real models of tests/models (make_real_models.py: torch exports, torch's f32
# outputs, onnxruntime's f32 node outputs): each correct export must match (exit 0) at the default
# tolerance, with every node output as expected values and with outputs only, in the default and
# the --no-isolate modes (no false alarm). Cases "<model> match/{full,full-noiso,outputs,
# outputs-noiso}"; known failures: tests/models/real_known_failures.txt. Ends with
# "N passed, N failed". Exit 77 (skipped) in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/models/real_harness.sh"
for m in $(real_models); do
  d=$real_models_dir/$m
  full=$(real_full "$m")
  real_check "$m" match/full 0 "$d/model.onnx" --data "$d/data" --expected "$full"
  real_check "$m" match/full-noiso 0 "$d/model.onnx" --data "$d/data" --expected "$full" --no-isolate
  real_check "$m" match/outputs 0 "$d/model.onnx" --data "$d/data"
  real_check "$m" match/outputs-noiso 0 "$d/model.onnx" --data "$d/data" --no-isolate
done
real_summary
