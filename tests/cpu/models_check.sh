#!/usr/bin/env bash
# The whole-model tests (tests/models/*) on the cpu backend (tests/backends/models_like_ref.sh):
# check gives ref's verdicts, at the auto and at a fixed tolerance, and two runs give byte-identical
# outputs (deterministic at a fixed thread count); and --threads 1 and 3 (oneDNN's thread count)
# keep resnet_small within the fixed tolerance.
# Usage: models_check.sh PLUMB SRC
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cpu/lib.sh"
source "$src/tests/backends/models_like_ref.sh"
cpu_or_skip "$plumb" "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
models_like_ref "$plumb" "$src" cpu "$tmp"
fail=$?
# --threads reaches oneDNN (omp_threads.h): at 1 and 3 threads the cpu's outputs still lie within
# the fixed tolerance, and two runs at one count are byte-identical.
d=$src/tests/models/resnet_small
for t in 1 3; do
  "$plumb" check "$d/model.onnx" --data "$d/data" --backend cpu --threads $t --rtol 1e-4 --atol 1e-6 --no-isolate \
    > "$tmp/t.txt" 2>&1 || { echo "FAIL: resnet_small: check --backend cpu --threads $t: $(head -3 "$tmp/t.txt")"; fail=1; }
  for k in 1 2; do
    rm -rf "$tmp/t$k" && mkdir "$tmp/t$k"
    "$plumb" run "$d/model.onnx" --data "$d/data" --out "$tmp/t$k" --backend cpu --threads $t > /dev/null 2>&1
  done
  diff -r "$tmp/t1" "$tmp/t2" > /dev/null || { echo "FAIL: resnet_small: two runs at --threads $t differ"; fail=1; }
done
exit $fail
