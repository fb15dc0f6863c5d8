#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang-14, ASan+UBSan) and runs one of them, or all,
# for SECONDS each on a seed corpus made from the repository's files and the ONNX node suite.
# build-fuzz/ (PLUMB_TINY) holds the IR targets, build-fuzz-onnx/ the ONNX ones (frontend, lowering
# and runtime instrumented: a long first build).
#   tools/fuzz.sh TARGET|all SECONDS
# Limits: -rss_limit_mb and -malloc_limit_mb make an unbounded allocation a finding; -timeout makes
# a hang one. Crashes are written to build-fuzz/findings/TARGET/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:?usage: tools/fuzz.sh TARGET|all SECONDS}
seconds=${2:?usage: tools/fuzz.sh TARGET|all SECONDS}
all=(fuzz_plumb_load fuzz_text_parse fuzz_npy fuzz_pb_value fuzz_onnx_model fuzz_polygraphy_json
  fuzz_expected_folder)
suite=${NODE_SUITE:-$root/../shared/onnx-backend-node}

build_of() {
  case $1 in
    fuzz_plumb_load | fuzz_text_parse) echo "$root/build-fuzz" ;;
    *) echo "$root/build-fuzz-onnx" ;;
  esac
}

configure() {
  local build=$1 tiny=ON
  [[ -f $build/CMakeCache.txt ]] && return 0
  # PLUMB_TINY: the IR targets need only plumb_ir, so nothing else is built with the fuzzer's flags.
  [[ $build == */build-fuzz-onnx ]] && tiny=OFF
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPLUMB_FUZZ=ON -DPLUMB_TINY=$tiny -DPLUMB_BUILD_TESTS=OFF -DPLUMB_BUILD_BENCH=OFF \
    -DPLUMB_PYTHON=OFF -DPLUMB_WITH_ONEDNN=OFF -DPLUMB_IMAGE_CODECS=OFF >/dev/null
}

targets=("$target")
[[ $target == all ]] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  configure "$(build_of "$t")"
  cmake --build "$(build_of "$t")" -j2 --target "$t"
done

# Seeds (made here, not committed): the text-form vectors of spec/ and tests/; for the loader, those
# assembled into .plumb files by the default build's plumb (PLUMB, default build/bin/plumb); for
# the ONNX model target, the node suite's and tests/models' models under 64 KB; for the .npy/.npz
# target, the .npy files of tests/ and the node suite, and .npz archives of them (stored and
# deflated, written by numpy).
plumb=${PLUMB:-$root/build/bin/plumb}
seed() {
  local dir=$2/corpus/$1
  [[ -d $dir ]] && return 0
  mkdir -p "$dir"
  local files f name
  case $1 in
    fuzz_text_parse | fuzz_plumb_load)
      mapfile -t files < <(find "$root/spec" "$root/tests" -name '*.plumbt' -size -64k | sort) ;;
    fuzz_onnx_model) mapfile -t files < <(find "$suite" "$root/tests/models" -name '*.onnx' -size -64k | sort) ;;
    fuzz_npy) mapfile -t files < <(find "$suite" "$root/tests" -name '*.npy' -size -64k | sort) ;;
    # Test data of every kind: the node suite's tensors, sequences, optionals and maps.
    # (every third file, so that the 2000 taken reach the sequence and optional tests late in the order).
    fuzz_polygraphy_json | fuzz_expected_folder) files=() ;;
    fuzz_pb_value) mapfile -t files < <(find "$suite" "$root/tests" -name '*_[0-9]*.pb' -size -64k | sort | awk 'NR % 3 == 0 || /seq|optional|map/') ;;
  esac
  for f in "${files[@]:0:2000}"; do
    name=$(sha1sum "$f" | cut -c1-16)
    case $1 in
      fuzz_plumb_load) [[ -x $plumb ]] && "$plumb" asm "$f" -o "$dir/$name" 2>/dev/null || true ;;
      *) cp "$f" "$dir/$name" ;;
    esac
  done
  # Polygraphy JSON and framed expected folders are written by numpy (tools/fuzz_seeds.py) from
  # the .npy and .pb files of tests/models.
  case $1 in
    fuzz_polygraphy_json | fuzz_expected_folder)
      /usr/bin/python3 "$root/tools/fuzz_seeds.py" "$1" "$root/tests/models" "$dir" ;;
  esac
  if [[ $1 == fuzz_npy ]]; then
    /usr/bin/python3 - "$dir" <<'PY' || true
import glob, os, sys
import numpy as np
d = sys.argv[1]
arrays = [np.load(f) for f in sorted(glob.glob(os.path.join(d, "*")))[:20]]
np.savez(os.path.join(d, "stored.npz"), *arrays)
np.savez_compressed(os.path.join(d, "deflated.npz"), *arrays)
np.savez_compressed(os.path.join(d, "strings.npz"), s=np.array(["a", "caf\u00e9"]), b=np.array([True]))
PY
  fi
}

for t in "${targets[@]}"; do
  build=$(build_of "$t")
  seed "$t" "$build"
  mkdir -p "$build/findings/$t"
  # TMPDIR: fuzz_expected_folder writes its folder there; memory, not disk.
  [[ -d /dev/shm ]] && export TMPDIR=/dev/shm
  "$build/bin/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$build/findings/$t/" \
    "$build/corpus/$t"
done
