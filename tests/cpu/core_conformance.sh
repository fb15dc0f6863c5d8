#!/usr/bin/env bash
# The core conformance vectors (spec/vectors) on the cpu backend: every case passes within its
# op's tolerance class (spec/numerics.md), and the cpu backend really ran some of them (the
# dispatch print of a matmul case shows a cpu span).
# Usage: core_conformance.sh PLUMB SRC
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cpu/lib.sh"
cpu_or_skip "$plumb" "$src"
out=$("$plumb" conformance --core "$src/spec/vectors" --backend cpu -j 2)
rc=$?
echo "$out" | tail -n 3
if [[ $rc -ne 0 ]] || ! tail -n 1 <<<"$out" | grep -Eq '^[0-9]+ passed, 0 failed, 0 skipped$'; then
  echo "$out" | head -n 40
  echo "FAIL: core conformance on cpu (exit $rc)"
  exit 1
fi
spans=$(PLUMB_VERBOSE=dispatch "$plumb" conformance --core "$src/spec/vectors" --backend cpu -j 1 \
  --filter '^(matmul|conv)/' 2>&1 | grep -c "cpu span")
echo "cpu spans in the matmul and conv cases: $spans"
[[ $spans -gt 0 ]] || { echo "FAIL: no matmul or conv case ran on the cpu backend"; exit 1; }
