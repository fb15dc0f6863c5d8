#!/usr/bin/env bash
# --max-memory BYTES (issue 23): what plumb run and plumb check may hold at once. For each model
# the exact peak comes from the program (PLUMB_VERBOSE=memory); a run with exactly that budget
# succeeds with the default run's output, one byte less is refused: exit 2, one line naming the
# model file, the node, and the bytes asked against those left of the budget.
# - resnet_small (static: the planner refuses the arena before allocating it);
# - tests/models/dynamic/shapes (nonzero, masked_select, topk with a computed k: values allocated
#   while running, a result sized by its kernel) and lstm_dynamic (two while loops: region values),
#   converted once with dynamic axes, at two input sizes each;
# - plumb check of resnet_small at its peak and one byte below, and with a budget one byte below
#   the f64 run's own need (plumb run --precise's peak): refused in the precise run.
# Exit 77 (skipped) in a build without the ONNX tools (the tiny configuration).
set -uo pipefail
plumb=$1 src=$2
models=$src/tests/models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# peak CMD...: the peak PLUMB_VERBOSE=memory prints for CMD (which must succeed).
peak() {
  local err rc
  err=$(PLUMB_VERBOSE=memory "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -eq 2 && ("$err" == *"not implemented in this build"* || "$err" == *"models are not supported in this build"*) ]]; then
    echo "no ONNX tools in this build: skipped" >&2
    exit 77
  fi
  [[ $rc -eq 0 ]] || fail "$*: exit $rc: $err"
  local p
  p=$(sed -n 's/^plumb: memory: peak \([0-9][0-9]*\) bytes of the budget of [0-9][0-9]*$/\1/p' <<<"$err")
  [[ -n "$p" && $p -gt 0 ]] || fail "$*: no peak printed: $err"
  echo "$p"
}

# refused WANT_RC MODEL PATTERN CMD...: CMD exits WANT_RC with exactly one line on stderr, which
# names MODEL and a node and matches PATTERN; prints that line.
refused() {
  local want=$1 model=$2 pattern=$3
  shift 3
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  [[ $rc -eq $want ]] || fail "$*: exit $rc, want $want: $err"
  [[ $(wc -l <<<"$err") -eq 1 ]] || fail "$*: more than one line on stderr: $err"
  [[ "$err" == "plumb: $model: node #"* ]] || fail "$*: the error does not name $model and a node: $err"
  grep -Eq -- "$pattern" <<<"$err" || fail "$*: the error does not match '$pattern': $err"
  echo "$err"
}

# at_peak MODEL ARGS...: plumb run at its exact peak gives the default run's output; one byte
# less is refused naming the node and the bytes.
at_peak() {
  local model=$1
  shift
  local p want got line
  p=$(peak "$plumb" run "$model" "$@") || exit $?
  want=$("$plumb" run "$model" "$@" 2>/dev/null) || fail "$model $*: the default run fails"
  got=$("$plumb" run "$model" "$@" --max-memory "$p") || fail "$model $*: exit $? at its peak of $p bytes"
  [[ "$got" == "$want" ]] || fail "$model $*: the output at --max-memory $p differs from the default run's"
  line=$(refused 2 "$model" " needs [0-9]+ bytes?, [0-9]+ of the memory budget of $((p - 1)) bytes are left$" \
    "$plumb" run "$model" "$@" --max-memory $((p - 1))) || exit 1
  echo "$model $*: peak $p bytes; at $((p - 1)): ${line#plumb: }"
}

resnet=$models/resnet_small
line=$(at_peak "$resnet/model.onnx" --data "$resnet/data") || { echo "$line"; exit 1; }
echo "$line"
[[ "$line" == *"the plan's arena needs"* ]] || fail "resnet_small: not refused by the planner: $line"

for name in shapes lstm_dynamic; do
  plumb_file=$tmp/$name.plumb
  out=$("$plumb" convert "$models/dynamic/$name/model.onnx" -o "$plumb_file" 2>&1) || fail "$name: convert: $out"
  sizes=0
  for data in "$models/dynamic/$name"/data_*; do
    [[ $sizes -lt 2 ]] || break
    line=$(at_peak "$plumb_file" --data "$data") || { echo "$line"; exit 1; }
    echo "$line"
    sizes=$((sizes + 1))
  done
done

# plumb check: one budget for all its runs and the outputs it keeps.
p=$(peak "$plumb" check "$resnet/model.onnx" --data "$resnet/data") || exit $?
want=$("$plumb" check "$resnet/model.onnx" --data "$resnet/data" 2>/dev/null)
got=$("$plumb" check "$resnet/model.onnx" --data "$resnet/data" --max-memory "$p") ||
  fail "check at its peak of $p bytes: exit $?"
[[ "$got" == "$want" ]] || fail "check at --max-memory $p: the report differs from the default one"
line=$(refused 2 "$resnet/model.onnx" "of the memory budget of $((p - 1)) bytes are left$" \
  "$plumb" check "$resnet/model.onnx" --data "$resnet/data" --max-memory $((p - 1))) || { echo "$line"; exit 1; }
echo "check: peak $p bytes; at $((p - 1)): ${line#plumb: }"
# Below what the f64 run needs on its own: the native run fits, the precise one is refused.
p64=$(peak "$plumb" run "$resnet/model.onnx" --data "$resnet/data" --precise) || exit $?
native=$(peak "$plumb" run "$resnet/model.onnx" --data "$resnet/data") || exit $?
[[ $native -lt $((p64 - 1)) ]] || fail "resnet_small: the native run ($native bytes) must fit below the f64 run ($p64)"
line=$(refused 2 "$resnet/model.onnx" "precise \(f64\) run: the plan's arena needs $p64 bytes" \
  "$plumb" check "$resnet/model.onnx" --data "$resnet/data" --max-memory $((p64 - 1))) || { echo "$line"; exit 1; }
echo "check at $((p64 - 1)) (f64 run: $p64): ${line#plumb: }"

# The value: bytes with an optional K, M, G or T; anything else is a usage error naming it.
"$plumb" run "$resnet/model.onnx" --data "$resnet/data" --max-memory 1M >/dev/null || fail "--max-memory 1M: exit $?"
for bad in abc -5 12Q 1.5G ""; do
  err=$("$plumb" run "$resnet/model.onnx" --data "$resnet/data" --max-memory "$bad" 2>&1 >/dev/null)
  rc=$?
  [[ $rc -eq 2 && "$err" == *"--max-memory needs a number of bytes"*"'$bad'"* ]] ||
    fail "--max-memory '$bad': exit $rc: $err"
  err=$("$plumb" check "$resnet/model.onnx" --data "$resnet/data" --max-memory "$bad" 2>&1 >/dev/null)
  rc=$?
  [[ $rc -eq 2 && "$err" == *"--max-memory needs a number of bytes"* ]] || fail "check --max-memory '$bad': exit $rc: $err"
done
for c in run check bench; do
  "$plumb" help $c | grep -q -- "--max-memory BYTES" || fail "plumb help $c does not describe --max-memory"
done
"$plumb" help run | grep -q "half the machine's" || fail "plumb help run does not give --max-memory's default"
echo ok
