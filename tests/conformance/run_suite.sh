#!/usr/bin/env bash
# Runs one ONNX backend suite through `plumb conformance` against its known-failures list.
# Usage: run_suite.sh PLUMB SUITE_DIR KNOWN_FAILURES [JOBS]. Exit 77 (ctest: skipped) when the
# suite folder is missing on this machine.
set -uo pipefail
plumb=$1 suite=$2 known=$3 jobs=${4:-2}
if [[ ! -d "$suite" ]]; then
  echo "suite $suite not found: skipped"
  exit 77
fi
exec "$plumb" conformance "$suite" --known-failures "$known" -j "$jobs" --timeout 120
