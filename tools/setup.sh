#!/usr/bin/env bash
# Installs the Debian 12 packages plumb builds and tests with. Idempotent: does nothing when they
# are all present, so it is safe to run before every build.
set -euo pipefail

PACKAGES=(
  cmake g++ make git pkg-config
  flatbuffers-compiler libflatbuffers-dev
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libgtest-dev libgmock-dev libbenchmark-dev
  libdnnl-dev libre2-dev zlib1g-dev
  libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev  # image_decode's decoders (PLUMB_IMAGE_CODECS)
  python3-numpy  # tests/cli/core_vectors_fresh.sh regenerates spec/vectors (tools/gen_core_vectors.py)
  clang-format-14  # tools/check_format.sh (CI checks the tree is formatted)
  python3-onnx  # tests/cli/check_real_*.sh make their faults and wrong outputs at test time (tests/models/real_cases.py)
  pybind11-dev python3-dev  # the Python package plumb (python/, PLUMB_PYTHON)
  python3-torch python3-torchvision  # tests/python/test_torch.py: plumb.torch on real exports
  chromium  # headless render test of plumb check's HTML report (tests/cli/check_html.sh)
  g++-aarch64-linux-gnu qemu-user  # the C API example built for aarch64 and run under qemu (tests/embed/aarch64_qemu.sh)
  lld  # tools/size_table.sh links the tiny runtime's example with identical code folding (--icf=all)
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm  # the Cortex-M example under qemu (tests/embed/cortexm_qemu.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
