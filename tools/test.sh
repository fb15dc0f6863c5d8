#!/usr/bin/env bash
# Sets up, builds and runs ALL tests: the format check, the default build (unit tests, CLI tests,
# conformance suites), the ASan+UBSan build of the whole CLI and its tests (warnings are errors in
# plumb's own code in both, PLUMB_WERROR), and the tiny runtime's size table. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time is printed as it ends and again at the end, so that a CI log shows where the time
# went (CI has 2 cores and 90 minutes; the target is under 60).
PHASES=""
phase_start=$SECONDS
phase_done() {
  PHASES+="[test.sh] $1: $((SECONDS - phase_start)) s"$'\n'
  echo "[test.sh] $1 took $((SECONDS - phase_start)) s (total $SECONDS s)"
  phase_start=$SECONDS
}
trap 'printf "%s[test.sh] total: %s s\n" "$PHASES" "$SECONDS"' EXIT

tools/setup.sh
JOBS=${JOBS:-$(nproc)}
phase_done setup

tools/check_format.sh
phase_done format

# The default preset is RelWithDebInfo (-O2 -g); here without -g: the same code, and debug
# information costs about 40% of this build's compile time on CI's 2 cores (measured: the clean
# default build took 1217 s with -g). The ASan build below keeps -g for its reports' line numbers.
cmake --preset default -DPLUMB_WERROR=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" >/dev/null
cmake --build --preset default -j "$JOBS"
phase_done "default build"
ctest --preset default -j "$JOBS"
phase_done "default ctest"

# The whole CLI under ASan + UBSan (Debug, warnings are errors here too): every unit test (IR,
# verifier, loaders, runtime, ref kernels with the image codecs fed truncated and corrupted files,
# ONNX frontend, lowering, check, C API) and the CLI tests, among them plumb check on every model
# of tests/models with every intermediate (PLUMB_REAL_CASES: the match/full case of each; the
# fault cases ran in the default build above) and the dynamic-shape models at several sizes. Left
# out here, as they ran above and take many times longer in a Debug ASan build: the two ONNX node
# suites, backends.same_as_ref, ref_bits.same_as_baseline (serial, 3 minutes here),
# cli.check_export_models (outputs-only checks of cnn, encoder and lstm: the same paths as
# check_real_match's 28 models with every intermediate, at several minutes for its unrolled LSTM;
# cli.dynamic_models runs a dynamic LSTM here), the fault cases of the real models, ssdlite (its 4740
# core nodes take over 20 minutes of CPU per check in this build; run once by hand), the Python tests
# and the aarch64 and Cortex-M examples under qemu, and cli.reduce (real-model reductions:
# plumb_hunt_tests runs the same code on small models here). The oneDNN cpu backend is left out of this build: oneDNN's
# JIT code under ASan has not been tried yet (its tests run in the default build). The tiny
# configuration is built by the size table below.
cmake --preset asan -DPLUMB_PYTHON=OFF -DPLUMB_WITH_ONEDNN=OFF -DPLUMB_WERROR=ON >/dev/null
cmake --build --preset asan -j "$JOBS"
phase_done "asan build"
PLUMB_REAL_CASES='^match/full$' PLUMB_REAL_TIMEOUT=1800 ctest --preset asan -j "$JOBS" --timeout 3600 \
  -E '^(conformance\.|backends\.same_as_ref|ref_bits\.same_as_baseline|cli\.check_export_models|python\.|package\.|embed\.(aarch64|cortexm)_qemu|cli\.dynamic_ssdlite|cli\.check_real_(faults|subtle|wrong_outputs)|cli\.reduce)'
phase_done "asan ctest"

# The tiny runtime's size table (MinSizeRel, -fno-exceptions -fno-rtti, --gc-sections): loader +
# verifier + executor, one CNN's kernels, all kernels (tools/size_table.sh, README "Embed plumb").
tools/size_table.sh build/bin/plumb build
phase_done "size table"
