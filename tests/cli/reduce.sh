#!/usr/bin/env bash
# plumb reduce (issue 22) on real torch exports (tests/models) with single-node faults injected at
# test time (tests/models/real_cases.py faults), the expected values being the correct model's:
# torch's outputs and onnxruntime's every node output (real_cases.py full). --until check-fails
# must give a repro of at most 5 nodes holding the faulty node, which `plumb check` on its own
# folder still fails (exit 1) and onnx.checker (full check) accepts. A --predicate command reduces
# to the node it asks for and shrinks the input; --until backends-differ ref,cpu on a model the two
# agree on is no failure (exit 2, "does not hold"). Usage errors: exit 2, one line.
# bench/reduce_faults.sh runs the same on every real model. Exit 77 in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
skip_without_python onnx
models=$src/tests/models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# model fault: the fault of faults.txt by id, reduced with --until check-fails.
for entry in resnet_small:F3 op_loss_bce:F2 lstm_head:F5; do
  m=${entry%%:*} id=${entry#*:}
  /usr/bin/python3 "$models/real_cases.py" faults "$models/$m" "$tmp/$m" > "$tmp/$m.faults" || { fail "$m: real_cases.py faults"; continue; }
  /usr/bin/python3 "$models/real_cases.py" full "$models/$m" "$tmp/$m/full" || { fail "$m: real_cases.py full"; continue; }
  node=$(awk -v id="$id" '$1 == id {print $4}' "$tmp/$m.faults")
  out=$("$plumb" reduce "$tmp/$m/$id.onnx" --data "$models/$m/data" --expected "$tmp/$m/full" --until check-fails \
        -o "$tmp/$m/out" 2>&1)
  rc=$?
  after=$(sed -n 's/^reduced: [0-9]* -> \([0-9]*\) nodes.*/\1/p' <<<"$out")
  if [[ $rc -ne 0 || -z $after ]]; then fail "$m $id: exit $rc: $out"; continue; fi
  [[ $after -le 5 ]] || fail "$m $id: $after nodes"
  grep -qF "'$node' (" <<<"$out" || fail "$m $id: the repro does not hold the faulty node '$node': $out"
  "$plumb" check "$tmp/$m/out/model.onnx" --data "$tmp/$m/out/test_data_set_0" > "$tmp/check.log" 2>&1
  crc=$?
  [[ $crc -eq 1 ]] || fail "$m $id: plumb check on the repro exits $crc: $(tail -3 "$tmp/check.log")"
  /usr/bin/python3 -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)" \
    "$tmp/$m/out/model.onnx" || fail "$m $id: onnx.checker refuses the repro"
  echo "ok: $m $id: $out"
done

# A command predicate: the model still holds a GlobalAveragePool node.
out=$("$plumb" reduce "$models/resnet_small/model.onnx" --data "$models/resnet_small/data" \
      --predicate 'grep -q GlobalAveragePool {model} && test -f {data}/output_0.pb' -o "$tmp/cmd" 2>&1)
rc=$?
if [[ $rc -ne 0 ]]; then
  fail "predicate: exit $rc: $out"
else
  grep -q "^reduced: 29 -> 1 nodes ('/avgpool/GlobalAveragePool' (GlobalAveragePool)); .*[1-9][0-9]* dim sizes shrunk" <<<"$out" ||
    fail "predicate: $out"
  echo "ok: predicate: $out"
fi

# ref and cpu agree on resnet_small: nothing to reduce.
if "$plumb" --version | grep -q '^backends: .*cpu'; then
  out=$("$plumb" reduce "$models/resnet_small/model.onnx" --data "$models/resnet_small/data" \
        --until backends-differ ref,cpu -o "$tmp/bd" 2>&1)
  rc=$?
  [[ $rc -eq 2 && $out == *"does not hold on the model as given"* && $(wc -l <<<"$out") -eq 1 ]] ||
    fail "backends-differ ref,cpu: exit $rc: $out"
fi

# Usage errors: exit 2, one line.
for args in "" "--until check-fails" "$models/cnn/model.onnx --data $models/cnn/data --until nothing -o $tmp/x" \
            "$models/cnn/model.onnx --data $models/cnn/data --until backends-differ ref -o $tmp/x" \
            "$models/cnn/model.onnx --data $models/cnn/data --until check-fails --predicate true -o $tmp/x"; do
  # shellcheck disable=SC2086
  out=$("$plumb" reduce $args 2>&1)
  rc=$?
  [[ $rc -eq 2 && $(wc -l <<<"$out") -eq 1 && $out == plumb:* ]] || fail "usage '$args': exit $rc: $out"
done

[[ $failures -eq 0 ]] && echo "reduce: all cases passed"
[[ $failures -eq 0 ]]
