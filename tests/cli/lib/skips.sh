# Sourced by tests/cli/*.sh (this folder is not a test): the skips (exit 77) a CLI test shares.

# Exits 77 when plumb ($1) was built without the ONNX tools (the tiny configuration); the
# bundled example under source tree $2 is what it tries.
skip_without_onnx() {
  local out
  out=$("$1" check "$2/examples/mlp_torch/model.onnx" --data "$2/examples/mlp_torch/data" 2>&1)
  if [[ $? -eq 2 && "$out" == *"not implemented in this build"* ]]; then
    echo "no ONNX tools in this build: skipped"
    exit 77
  fi
}

# Exits 77 unless Debian's python3 imports every module named.
skip_without_python() {
  local m
  for m in "$@"; do
    if ! /usr/bin/python3 -c "import $m" 2>/dev/null; then
      echo "no python3 $m: skipped"
      exit 77
    fi
  done
}
