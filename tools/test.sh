#!/usr/bin/env bash
# Sets up, builds and runs ALL tests: the format check, the default build (unit tests, CLI tests,
# conformance suites: warnings are errors in plumb's own code, PLUMB_WERROR) and the ASan+UBSan
# builds of the IR and runtime tests. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
JOBS=${JOBS:-$(nproc)}

tools/check_format.sh

cmake --preset default -DPLUMB_WERROR=ON >/dev/null
cmake --build --preset default -j "$JOBS"
ctest --preset default -j "$JOBS"

# Sanitizers on the embeddable part (IR, verifier, loader, runtime, ref kernels, plumb CLI). The
# sanitized Debug builds do not yet turn warnings into errors: only the default build has been
# checked warning-free (issue 15).
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
