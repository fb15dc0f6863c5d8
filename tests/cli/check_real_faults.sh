#!/usr/bin/env bash
# plumb check on single-node faults injected into the real models of tests/models (faults.txt,
# chosen and measured on onnxruntime by make_real_models.py; applied by tests/models/mutate.py at
# test time): the expected values stay those of the correct model. With every node output as
# expected values, each fault F<k> must exit 1 naming the mutated node ("first divergence: node
# '<name>'"), in the default and --no-isolate modes; with outputs only it must exit 1 where the
# fault moves the outputs by at least 1e-3 of their largest magnitude (faults.txt's third column;
# '-': not tested). The below-noise fault N1 (slice 0 of a weight scaled by 1 + 2^-22) must match
# (exit 0) in all three; where N1 scales a Constant (models without weights), only outputs only,
# and only where onnxruntime finds its effect at most |onnxruntime - torch| (a Constant's own
# output, compared exactly, does differ). Cases "<model> <id>/{full,full-noiso,outputs}"; known failures:
# tests/models/real_known_failures.txt. Ends with "N passed, N failed". Exit 77 (skipped) in a
# build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/models/real_harness.sh"
for m in $(real_models); do
  d=$real_models_dir/$m
  full=$(real_full "$m")
  while read -r id exit_full exit_outputs node; do
    f=$real_tmp/$m/$id.onnx
    want=$exit_full
    [[ $want == 1 ]] && want="1:$node"
    if [[ $exit_full != - ]]; then
      real_check "$m" "$id/full" "$want" "$f" --data "$d/data" --expected "$full"
      real_check "$m" "$id/full-noiso" "$want" "$f" --data "$d/data" --expected "$full" --no-isolate
    fi
    if [[ $exit_outputs != - ]]; then
      real_check "$m" "$id/outputs" "$exit_outputs" "$f" --data "$d/data"
    fi
  done < <(/usr/bin/python3 "$real_models_dir/real_cases.py" faults "$d" "$real_tmp/$m")
done
real_summary
