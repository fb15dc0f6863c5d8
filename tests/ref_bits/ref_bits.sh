#!/usr/bin/env bash
# ref at 1, 2 and 3 threads against the kernels it had before issue 17, byte for byte: the
# "baseline" backend of plumb_testbackend (tests/ref_baseline/) runs every top-level matmul, conv
# and binary node on the old kernels, and must give the same output digests (tools/value_digest.h) as
# plumb --backend ref --threads N on every core conformance vector, on the ONNX node-suite tests
# whose models hold a matmul or conv, and on every whole-model test (tests/models/*: output files,
# or the error of a model that does not run), in native and precise mode. The dispatch print must
# show baseline spans, so the comparison cannot pass with nothing claimed.
# Usage: ref_bits.sh PLUMB PLUMB_TESTBACKEND SRC SHARED_DIR [JOBS]
set -uo pipefail
plumb=$1 testbackend=$2 src=$3 shared=$4 jobs=${5:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

compare() {  # NAME THREADS: $tmp/NAME.base and $tmp/NAME.THREADS must be equal
  if ! cmp -s "$tmp/$1.base" "$tmp/$1.$2"; then
    echo "$1: outputs differ between the baseline (ref at 1 thread for precise) and ref at $2 threads:"
    diff "$tmp/$1.base" "$tmp/$1.$2" | head -20
    fail=1
  else
    echo "$1: $(wc -l < "$tmp/$1.base") digests identical at $2 threads"
  fi
}

"$testbackend" conformance --core "$src/spec/vectors" --backend baseline -j "$jobs" --digest "$tmp/core.base" \
  > "$tmp/core.base.log" || { echo "core vectors fail on the baseline"; tail -5 "$tmp/core.base.log"; fail=1; }
for t in 1 2 3; do
  "$plumb" conformance --core "$src/spec/vectors" --threads $t -j "$jobs" --digest "$tmp/core.$t" \
    > "$tmp/core.$t.log" || { echo "core vectors fail on ref at $t threads"; tail -5 "$tmp/core.$t.log"; fail=1; }
  compare core $t
done

# The node-suite tests with a contraction (the others do not reach the kernels that changed).
filter='conv|mat_?mul|gemm|einsum|attention|lstm|gru|rnn'
for entry in "onnx_backend_node|$shared/onnx-backend-node" "libonnx_1_12|/usr/share/libonnx-testdata/data/node"; do
  IFS='|' read -r name dir <<< "$entry"
  if [[ ! -d $dir ]]; then
    echo "$name: suite $dir not found: not compared"
    continue
  fi
  "$testbackend" conformance "$dir" --backend baseline --filter "$filter" -j "$jobs" --timeout 300 \
    --digest "$tmp/$name.base" > "$tmp/$name.base.log"
  for t in 1 2 3; do
    "$plumb" conformance "$dir" --filter "$filter" --threads $t -j "$jobs" --timeout 300 \
      --digest "$tmp/$name.$t" > "$tmp/$name.$t.log"
    compare "$name" $t
  done
done

digest_models() {  # OUT MODE EXE ARGS...: every whole-model test in MODE (native or precise)
  local out=$1 mode=$2 exe=$3
  shift 3
  : > "$out"
  for model in "$src"/tests/models/*/model*.onnx; do
    d=$(dirname "$model")
    rm -rf "$tmp/out" && mkdir "$tmp/out"
    local flags=()
    [[ $mode == precise ]] && flags=(--precise)
    if ! "$exe" run "$model" --data "$d/data" --out "$tmp/out" "${flags[@]}" "$@" > /dev/null 2> "$tmp/run.err"; then
      echo "${model#$src/} $mode run failed: $(head -1 "$tmp/run.err")" >> "$out"
    fi
    (cd "$tmp/out" && sha256sum output_*.pb 2> /dev/null | sed "s|^|${model#$src/} $mode |") >> "$out"
  done
}
# Native and precise mode: against the baseline (in precise mode it runs the f64 kernels of the
# old code on the widened graph).
digest_models "$tmp/models.base" native "$testbackend" --backend baseline --threads 1
digest_models "$tmp/precise.base" precise "$testbackend" --backend baseline --threads 1
for t in 1 2 3; do
  digest_models "$tmp/models.$t" native "$plumb" --backend ref --threads $t
  compare models $t
  digest_models "$tmp/precise.$t" precise "$plumb" --backend ref --threads $t
  compare precise $t
done

# The baseline must have run the contractions: a whole model's dispatch print shows its spans.
PLUMB_VERBOSE=dispatch "$testbackend" run "$src/tests/models/cnn/model.onnx" --data "$src/tests/models/cnn/data" \
  --backend baseline > /dev/null 2> "$tmp/dispatch.txt"
spans=$(grep -c "baseline span" "$tmp/dispatch.txt")
echo "cnn on the baseline: $spans spans"
if [[ $spans -eq 0 ]]; then
  echo "the dispatch print shows no baseline span:"; head -20 "$tmp/dispatch.txt"; fail=1
fi
exit $fail
