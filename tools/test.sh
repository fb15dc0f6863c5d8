#!/usr/bin/env bash
# Sets up, builds and runs ALL tests: the default build (unit tests, CLI tests, conformance
# suites) and the ASan+UBSan build of the IR and runtime tests. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
JOBS=${JOBS:-$(nproc)}

cmake --preset default >/dev/null
cmake --build --preset default -j "$JOBS"
ctest --preset default -j "$JOBS"

# Sanitizers on the embeddable part (IR, verifier, loader, runtime, ref kernels, plumb CLI).
cmake --preset asan -DPLUMB_TINY=ON >/dev/null
cmake --build --preset asan -j "$JOBS"
ctest --preset asan -j "$JOBS"
