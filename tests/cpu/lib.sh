# Sourced by tests/cpu/*.sh: exits 77 (ctest: skipped, visibly) when this plumb has no cpu
# backend (built without oneDNN, or the tiny runtime).
cpu_or_skip() {  # PLUMB SRC
  local probe
  probe=$("$1" conformance --core "$2/spec/vectors" --backend cpu --filter '^$' 2>&1)
  if [[ $probe == *"not built into this runtime"* ]]; then
    echo "this plumb has no cpu backend (oneDNN not found at build time): skipped"
    exit 77
  fi
}
