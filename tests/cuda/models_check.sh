#!/usr/bin/env bash
# The whole-model tests (tests/models/*) on the cuda backend (tests/backends/models_like_ref.sh):
# check gives ref's verdicts, at the auto and at a fixed tolerance, and two runs give byte-identical
# outputs (no atomics, fixed cuBLAS algorithms).
# Usage: models_check.sh PLUMB SRC
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cuda/lib.sh"
source "$src/tests/backends/models_like_ref.sh"
cuda_or_skip "$plumb" "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
models_like_ref "$plumb" "$src" cuda "$tmp"
