#!/usr/bin/env bash
# Builds plumb_threads_tests and plumb_api_tests under ThreadSanitizer (the tsan preset:
# RelWithDebInfo, -fsanitize=thread, no oneDNN, no Python; build-tsan/) and runs them: for every
# whole-model test of tests/models, 8 sessions at once over one shared loaded graph (tests/threads/);
# and the C API's tests, among them CApi.OneModelPerThread (4 threads, a plumb_model each, loaded in
# place from one shared .plumb buffer, re-planned 20 times). Any data race TSan sees in them
# fails the run (halt_on_error=1, exit 66). Not part of CI (tools/test.sh): the cold TSan build and
# the run take too long for CI's 2 cores (docs/fuzzing.md gives the times measured).
#   tools/tsan.sh [GTEST_FILTER]      e.g. tools/tsan.sh '*resnet*'
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
filter=${1:-*}
start=$SECONDS
cmake --preset tsan -DPLUMB_WERROR=ON >/dev/null
cmake --build --preset tsan -j "$JOBS" --target plumb_threads_tests plumb_api_tests
echo "[tsan.sh] build: $((SECONDS - start)) s"
start=$SECONDS
# second_deadlock_stack: both stacks of a lock-order report. The test binary is run directly (not
# through ctest) so that one process runs every model and TSan's report goes to the terminal.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  build-tsan/bin/plumb_threads_tests --gtest_filter="$filter"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  build-tsan/bin/plumb_api_tests --gtest_filter="$filter"
echo "[tsan.sh] run: $((SECONDS - start)) s, no data race reported"
