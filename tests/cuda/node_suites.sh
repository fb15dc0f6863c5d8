#!/usr/bin/env bash
# Both ONNX backend node suites on the cuda backend, against ref's known-failures lists: no
# failure beyond those ref has (tests/conformance/known_failures_*.txt), and none of ref's known
# failures "passes" on cuda either (the runner treats that as a failure: the lists stay ref's).
# Usage: node_suites.sh PLUMB SRC SHARED [JOBS]
set -uo pipefail
plumb=$1 src=$2 shared=$3 jobs=${4:-2}
source "$src/tests/cuda/lib.sh"
cuda_or_skip "$plumb" "$src"
fail=0 ran=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for entry in "onnx_backend_node|$shared/onnx-backend-node|known_failures_backend_node.txt" \
             "libonnx_1_12|/usr/share/libonnx-testdata/data/node|known_failures_libonnx_1_12.txt"; do
  IFS='|' read -r name dir known <<< "$entry"
  if [[ ! -d $dir ]]; then
    echo "$name: suite $dir not found: not run"
    continue
  fi
  ran=$((ran + 1))
  if "$plumb" conformance "$dir" --backend cuda --known-failures "$src/tests/conformance/$known" -j "$jobs" \
      --timeout 300 > "$log" 2>&1; then
    echo "$name on cuda: $(tail -n 1 "$log")"
  else
    echo "$name on cuda fails:"; grep -E "FAIL|now passes" "$log" | head -20
    tail -n 2 "$log"
    fail=1
  fi
done
[[ $ran -gt 0 ]] || { echo "no node suite on this machine: skipped"; exit 77; }
exit $fail
