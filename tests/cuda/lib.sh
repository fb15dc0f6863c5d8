# shellcheck shell=bash
# Sourced by tests/cuda/*.sh: exits 77 (ctest: skipped, visibly, with the reason printed) when
# this plumb has no cuda backend, or this machine has no CUDA device.
cuda_or_skip() {  # PLUMB SRC
  local probe
  probe=$("$1" conformance --core "$2/spec/vectors" --backend cuda --filter '^$' 2>&1)
  if [[ $probe == *"not built into this runtime"* ]]; then
    echo "this plumb has no cuda backend (no CUDA toolkit at build time): skipped"
    exit 77
  fi
  if [[ $probe == *"cuda: no CUDA device:"* ]]; then
    echo "skipped: ${probe#plumb: }"
    exit 77
  fi
}
