#!/usr/bin/env bash
# The core conformance vectors (spec/vectors) on the cuda backend: every case passes within its
# op's tolerance class (spec/numerics.md), and the cuda backend really ran some of them (the
# dispatch print of the matmul and elementwise cases shows cuda spans).
# Usage: core_conformance.sh PLUMB SRC
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cuda/lib.sh"
cuda_or_skip "$plumb" "$src"
out=$("$plumb" conformance --core "$src/spec/vectors" --backend cuda -j 2)
rc=$?
echo "$out" | tail -n 3
if [[ $rc -ne 0 ]] || ! tail -n 1 <<<"$out" | grep -Eq '^[0-9]+ passed, 0 failed, 0 skipped$'; then
  echo "$out" | grep -v ": ok" | head -n 40
  echo "FAIL: core conformance on cuda (exit $rc)"
  exit 1
fi
spans=$(PLUMB_VERBOSE=dispatch "$plumb" conformance --core "$src/spec/vectors" --backend cuda -j 1 \
  --filter '^(matmul|binary|unary|reduce)/' 2>&1 | grep -c "cuda span")
echo "cuda spans in the matmul, binary, unary and reduce cases: $spans"
[[ $spans -gt 0 ]] || { echo "FAIL: no case ran on the cuda backend"; exit 1; }
