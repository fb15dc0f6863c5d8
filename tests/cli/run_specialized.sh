#!/usr/bin/env bash
# plumb run on an .onnx model whose ReduceSum axes are a graph input (ruling R1 of
# spec/onnx-rulings.md): with the data the lowering is specialized on the given axes, says so in a
# note on stderr, and writes the suite's expected output; plumb convert, which has no input
# values, refuses the node in one line with exit 2; plumb print --data shows the specialized graph
# (the axes as a constant, the reduce with them) and says which input it used; plumb check's report
# says the verdict holds for the given axes. Skipped (77) when the suite is absent or the
# build has no ONNX tools (the tiny configuration).
# Usage: run_specialized.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb="$1"
src="$2"
case_dir="$src/../shared/onnx-backend-node/test_reduce_sum_keepdims_example"
[[ -d "$case_dir" ]] || { echo "suite not found: skipped"; exit 77; }
if [[ "$("$plumb" convert "$case_dir/model.onnx" -o /dev/null 2>&1)" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$plumb" run "$case_dir/model.onnx" --data "$case_dir/test_data_set_0" --out "$tmp/out" 2> "$tmp/err" \
  || fail "run exit $?: $(cat "$tmp/err")"
grep -q "note: lowered for the given value of input 'axes'" "$tmp/err" || fail "no specialization note: $(cat "$tmp/err")"
cmp -s "$tmp/out/output_0.pb" "$case_dir/test_data_set_0/output_0.pb" || {
  # Same values, maybe another encoding: compare through plumb check instead.
  "$plumb" check "$case_dir/model.onnx" --data "$case_dir/test_data_set_0" > "$tmp/check" 2>&1 \
    || fail "check on the suite data: $(cat "$tmp/check")"
}

# plumb check says its verdict holds for the given value (terminal report and JSON).
"$plumb" check "$case_dir/model.onnx" --data "$case_dir/test_data_set_0" --report "$tmp/r.json" > "$tmp/check" 2>&1 \
  || fail "check on the suite data: $(cat "$tmp/check")"
grep -q "note: lowered for the given value of input 'axes' (spec/onnx-rulings.md R1" "$tmp/check" \
  || fail "check: no specialization note: $(cat "$tmp/check")"
grep -q '"specialized_inputs": \["axes"\]' "$tmp/r.json" || fail "check JSON: $(head -8 "$tmp/r.json")"

"$plumb" print "$case_dir/model.onnx" --data "$case_dir/test_data_set_0" > "$tmp/print" 2> "$tmp/err3" \
  || fail "print --data exit $?: $(cat "$tmp/err3")"
head -1 "$tmp/print" | grep -q "^// lowered for the value of input 'axes'" || fail "print --data header: $(head -2 "$tmp/print")"
grep -q "= reduce .*axes = \[1\]" "$tmp/print" || fail "print --data: no reduce over axis 1: $(cat "$tmp/print")"
"$plumb" print "$case_dir/model.onnx" > /dev/null 2> "$tmp/err4" && fail "print without data lowered a computed axes input"

"$plumb" convert "$case_dir/model.onnx" -o "$tmp/m.plumb" 2> "$tmp/err2"
code=$?
[[ $code -eq 2 ]] || fail "convert exit $code, want 2"
[[ $(wc -l < "$tmp/err2") -eq 1 ]] || fail "convert error is not one line: $(cat "$tmp/err2")"
grep -q "computed (non-constant) tensor" "$tmp/err2" || fail "convert error: $(cat "$tmp/err2")"
echo ok
