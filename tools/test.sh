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

# The image codecs (libjpeg, libpng, libtiff, libwebp, OpenJPEG) under ASan + UBSan: the tiny build
# above leaves them out, so the ref kernel tests (which feed every format truncated and corrupted
# files) run once more in a sanitized build that has them.
cmake -S . -B build-asan-codecs -DCMAKE_BUILD_TYPE=Debug -DPLUMB_SANITIZE=ON -DPLUMB_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan-codecs --target plumb_ref_tests -j "$JOBS"
build-asan-codecs/bin/plumb_ref_tests --gtest_brief=1

# The tiny runtime's size table (MinSizeRel, -fno-exceptions -fno-rtti, --gc-sections): loader +
# verifier + executor, one CNN's kernels, all kernels (tools/size_table.sh, README "Embed plumb").
tools/size_table.sh build/bin/plumb build
