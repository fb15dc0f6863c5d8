#!/usr/bin/env bash
# The tests' backend ("test", tests/test_backend/) against ref, byte for byte: every core
# conformance vector, both ONNX node suites (each must also pass against its known-failures list)
# and the whole-model tests (tests/models/*, native and precise mode: output files, or the error of a
# model that does not run) must give the same output digests (tools/value_digest.h) on
# plumb_testbackend --backend test as on plumb --backend ref. The dispatch print of a whole model
# must show claimed spans and copies, so the comparison cannot pass with nothing offloaded.
# Usage: same_as_ref.sh PLUMB PLUMB_TESTBACKEND SRC SHARED_DIR [JOBS]
set -uo pipefail
plumb=$1 testbackend=$2 src=$3 shared=$4 jobs=${5:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

compare() {  # NAME: the two digest files must be equal
  if ! cmp -s "$tmp/$1.ref" "$tmp/$1.test"; then
    echo "$1: outputs differ between ref and test:"
    diff "$tmp/$1.ref" "$tmp/$1.test" | head -20
    fail=1
  else
    echo "$1: $(wc -l < "$tmp/$1.ref") digests identical"
  fi
}

"$plumb" conformance --core "$src/spec/vectors" -j "$jobs" --digest "$tmp/core.ref" > "$tmp/core.ref.log" || {
  echo "core vectors fail on ref"; tail -5 "$tmp/core.ref.log"; fail=1; }
"$testbackend" conformance --core "$src/spec/vectors" --backend test -j "$jobs" --digest "$tmp/core.test" \
  > "$tmp/core.test.log" || { echo "core vectors fail on test"; tail -5 "$tmp/core.test.log"; fail=1; }
compare core

for entry in "onnx_backend_node|$shared/onnx-backend-node|known_failures_backend_node.txt" \
             "libonnx_1_12|/usr/share/libonnx-testdata/data/node|known_failures_libonnx_1_12.txt"; do
  IFS='|' read -r name dir known <<< "$entry"
  if [[ ! -d $dir ]]; then
    echo "$name: suite $dir not found: not compared"
    continue
  fi
  known=$src/tests/conformance/$known
  "$plumb" conformance "$dir" --known-failures "$known" -j "$jobs" --timeout 300 --digest "$tmp/$name.ref" \
    > "$tmp/$name.ref.log" || { echo "$name fails on ref:"; grep FAIL "$tmp/$name.ref.log" | head; fail=1; }
  "$testbackend" conformance "$dir" --backend test --known-failures "$known" -j "$jobs" --timeout 300 \
    --digest "$tmp/$name.test" > "$tmp/$name.test.log" || {
    echo "$name fails on test:"; grep FAIL "$tmp/$name.test.log" | head; fail=1; }
  compare "$name"
done

: > "$tmp/models.ref"
: > "$tmp/models.test"
for model in "$src"/tests/models/*/model*.onnx; do
  d=$(dirname "$model")
  for mode in native precise; do
    flags=()
    [[ $mode == precise ]] && flags=(--precise)
    for b in ref test; do
      exe=$plumb
      [[ $b == test ]] && exe=$testbackend
      rm -rf "$tmp/out" && mkdir "$tmp/out"
      # A model that does not run must fail the same way on both (the message is compared).
      if ! "$exe" run "$model" --data "$d/data" --out "$tmp/out" --backend $b "${flags[@]}" > /dev/null 2> "$tmp/run.err"; then
        echo "${model#$src/} $mode run failed: $(head -1 "$tmp/run.err")" >> "$tmp/models.$b"
      fi
      (cd "$tmp/out" && sha256sum output_*.pb 2> /dev/null | sed "s|^|${model#$src/} $mode |") >> "$tmp/models.$b"
    done
  done
done
compare models

# Something must have been offloaded, with copies at the span borders.
PLUMB_VERBOSE=dispatch "$testbackend" run "$src/tests/models/cnn/model.onnx" --data "$src/tests/models/cnn/data" \
  --backend test > /dev/null 2> "$tmp/dispatch.txt"
spans=$(grep -c "test span nodes" "$tmp/dispatch.txt")
copies=$(grep -c "] copy %" "$tmp/dispatch.txt")
fallbacks=$(grep -c "] ref .*test declined" "$tmp/dispatch.txt")
echo "cnn on test: $spans spans, $copies copies, $fallbacks nodes on ref with a reason"
if [[ $spans -eq 0 || $copies -eq 0 || $fallbacks -eq 0 ]]; then
  echo "the dispatch print shows no span, copy or fallback:"; head -20 "$tmp/dispatch.txt"; fail=1
fi
exit $fail
