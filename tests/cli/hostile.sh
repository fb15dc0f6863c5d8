#!/usr/bin/env bash
# The hostile-model suite (issue 23): tests/hostile/make_models.py makes each model at test time
# (external data leaving the model's folder or past a file's end, dims of 2^62 and negative,
# element counts that overflow int64, If / Loop / function calls 100,000 deep, cycles, duplicate
# and empty names, raw_data of the wrong size, invalid UTF-8, a 2.5 GiB model, an .npz that claims
# 100 GiB), and each runs under a memory cap (ulimit -v; in an ASan build, whose shadow memory
# needs the address space, ASan's own allocation and RSS limits) and a time cap. Each must end with
# its exit code (2: bad input) and, for an error, exactly one line on stderr that names the file
# and the place (the case's pattern). Skipped (77) without /usr/bin/python3 and its onnx package.
# The cases and the findings they led to: docs/fuzzing.md, "Hostile models".
# Usage: hostile.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$2"
py=/usr/bin/python3
"$py" -c "import onnx, numpy" 2>/dev/null || { echo "SKIP: no python3-onnx"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$py" "$src/tests/hostile/make_models.py" "$tmp" || { echo "FAIL: make_models.py" >&2; exit 1; }
# The fuzzers' ONNX findings (tests/fuzz/regressions/*.onnx) run the same way: converted, or run
# on their inputs where those are beside them.
mkdir -p "$tmp/regressions"
for f in "$src"/tests/fuzz/regressions/*.onnx; do
  [ -e "$f" ] || continue
  b=$(basename "$f" .onnx)
  cp "$f" "$tmp/regressions/$b.onnx"
  cmd="convert regressions/$b.onnx -o regressions/$b.plumb"
  # A finding that converts but must be refused when run has its inputs beside it: B.NAME.npy.
  for npy in "$src"/tests/fuzz/regressions/"$b".*.npy; do
    [ -e "$npy" ] || continue
    input=${npy##*/"$b".}
    cp "$npy" "$tmp/regressions/"
    cmd="run regressions/$b.onnx --max-memory 1073741824 --input ${input%.npy}=regressions/${npy##*/}"
  done
  printf 'fuzz_%s\t2\tregressions/%s.onnx: \t%s\n' "$b" "$b" "$cmd" >>"$tmp/cases.tsv"
done

# Caps: 3 GiB of address space (a tiny model's run needs a few hundred MB; every case that asks for
# more is refused before it allocates, but one: an .npz entry that truly inflates to 4 GiB, refused
# when the allocation fails), 60 s per case (the slowest, function_chain_100000, takes 7.8 s in the
# ASan build). Under ASan an allocation past its limit is a crash report, not std::bad_alloc, so
# that one case runs only in the other builds.
limit_kb=$((3 << 20))
asan_skip=" "
if grep -qa __asan_init "$plumb"; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=3072:hard_rss_limit_mb=3072"
  limit_kb=unlimited
  asan_skip=" npz_bomb_4gib "
fi
failed=0
cd "$tmp" || exit 1
while IFS=$'\t' read -r name want pattern args; do
  [[ $asan_skip == *" $name "* ]] && { echo "skip $name (ASan)"; continue; }
  start=$(date +%s%N)
  # shellcheck disable=SC2086  # args is a space-separated argument list without spaces inside
  (ulimit -v "$limit_kb" && exec timeout -k 5 60 "$plumb" $args) >"$name.out" 2>"$name.err"
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  lines=$(wc -l <"$name.err")
  why=""
  if [ "$rc" -ne "$want" ]; then
    why="exit $rc, want $want"
  elif [ "$want" -ne 0 ] && [ "$lines" -ne 1 ]; then
    why="$lines lines on stderr, want 1"
  elif [ "$want" -ne 0 ] && ! grep -Eq "$pattern" "$name.err"; then
    why="message does not match /$pattern/"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $name ($why): plumb $args" >&2
    head -c 2000 "$name.err" >&2
    failed=$((failed + 1))
  else
    echo "ok   $name (${ms} ms): $(head -c 300 "$name.err")"
  fi
done <cases.tsv
[ "$failed" -eq 0 ] || { echo "FAIL: $failed hostile case(s)" >&2; exit 1; }
echo "PASS: $(wc -l <cases.tsv) hostile cases"
