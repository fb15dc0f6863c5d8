#!/usr/bin/env bash
# plumb_embed_example (examples/embed_c, the C API) on the whole-model tests: each tests/models
# folder converted with `plumb convert`, its inputs as .npy, the example's printed outputs compared
# bit for bit with `plumb run` on the same .plumb file; plus the example's errors (a bad model
# file, a wrong input count, a wrong input dtype): one line on stderr, exit 2.
# Usage: embed_example.sh PATH/TO/plumb PATH/TO/plumb_embed_example SOURCE_DIR
set -u
plumb="$1"
example="$2"
src="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
io() { /usr/bin/python3 "$src/tests/embed/example_io.py" "$@"; }

n=0
for dir in "$src"/tests/models/*/; do
  name=$(basename "$dir")
  [ -f "$dir/model.onnx" ] && [ -f "$dir/data/input_0.pb" ] || continue
  [ "$name" = undefined_mean ] && continue  # its run is an error by design (tests/cli/check_undefined.sh)
  w="$tmp/$name"
  mkdir -p "$w"
  "$plumb" convert "$dir/model.onnx" -o "$w/model.plumb" > /dev/null || fail "$name: convert exit $?"
  count=$(io inputs "$dir" "$w") || fail "$name: reading its inputs"
  args=()
  files=()
  for ((k = 0; k < count; k++)); do
    args+=(--input "#$k=$w/input_$k.npy")
    files+=("$w/input_$k.npy")
  done
  "$plumb" run "$w/model.plumb" "${args[@]}" --out "$w/out" || fail "$name: plumb run exit $?"
  "$example" "$w/model.plumb" "${files[@]}" > "$w/example.txt" 2> "$w/err" || fail "$name: example exit $?: $(cat "$w/err")"
  io compare "$w/example.txt" "$w/out" || fail "$name: the example's outputs differ from plumb run's"
  n=$((n + 1))
done
[ $n -ge 30 ] || fail "only $n models ran"

# Errors: one line naming the file, exit 2.
w="$tmp/cnn"
head -c 100 "$w/model.plumb" > "$tmp/cut.plumb"
"$example" "$tmp/cut.plumb" "$w/input_0.npy" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "truncated model exited $rc"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "truncated model: $(cat "$tmp/err")"
grep -q "^plumb_embed_example: $tmp/cut.plumb: .*(file.F" "$tmp/err" || fail "truncated model: $(cat "$tmp/err")"
"$example" "$w/model.plumb" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "no inputs exited $rc"
grep -q "the model has 1 inputs, 0 files were given" "$tmp/err" || fail "no inputs: $(cat "$tmp/err")"
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/x64.npy', np.zeros((2, 3, 16, 16)))"
"$example" "$w/model.plumb" "$tmp/x64.npy" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "f64 input exited $rc"
grep -q "is f32, the file holds f64" "$tmp/err" || fail "f64 input: $(cat "$tmp/err")"
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/x.npy', np.zeros((2, 3, 8, 16), np.float32))"
"$example" "$w/model.plumb" "$tmp/x.npy" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "wrong shape exited $rc"
grep -q "expected f32\[2,3,16,16\], got f32\[2,3,8,16\]" "$tmp/err" || fail "wrong shape: $(cat "$tmp/err")"
echo "embed_example: ok ($n models byte-identical to plumb run)"
