#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang-14, ASan+UBSan, build-fuzz/) and runs one of
# them, or all, for SECONDS each on a seed corpus made from the repository's files.
#   tools/fuzz.sh TARGET|all SECONDS
# Limits: -rss_limit_mb and -malloc_limit_mb make an unbounded allocation a finding; -timeout makes
# a hang one. Crashes are written to build-fuzz/findings/TARGET/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:?usage: tools/fuzz.sh TARGET|all SECONDS}
seconds=${2:?usage: tools/fuzz.sh TARGET|all SECONDS}
build=$root/build-fuzz
all=(fuzz_plumb_load fuzz_text_parse)

if [[ ! -f $build/CMakeCache.txt ]]; then
  # PLUMB_TINY: the targets need only plumb_ir, so nothing else is built with the fuzzer's flags.
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPLUMB_FUZZ=ON -DPLUMB_TINY=ON -DPLUMB_BUILD_TESTS=OFF -DPLUMB_BUILD_BENCH=OFF \
    -DPLUMB_PYTHON=OFF >/dev/null
fi
targets=("$target")
[[ $target == all ]] && targets=("${all[@]}")
cmake --build "$build" -j2 --target "${targets[@]}"

# Seeds (made here, not committed): the text-form vectors of spec/ and tests/; for the loader, those
# assembled into .plumb files by the default build's plumb (PLUMB, default build/bin/plumb).
plumb=${PLUMB:-$root/build/bin/plumb}
seed() {
  local dir=$build/corpus/$1
  [[ -d $dir ]] && return 0
  mkdir -p "$dir"
  local files f name
  mapfile -t files < <(find "$root/spec" "$root/tests" -name '*.plumbt' -size -64k | sort)
  for f in "${files[@]:0:600}"; do
    name=$(sha1sum "$f" | cut -c1-16)
    case $1 in
      fuzz_text_parse) cp "$f" "$dir/$name" ;;
      fuzz_plumb_load) [[ -x $plumb ]] && "$plumb" asm "$f" -o "$dir/$name" 2>/dev/null || true ;;
    esac
  done
}

for t in "${targets[@]}"; do
  seed "$t"
  mkdir -p "$build/findings/$t"
  "$build/bin/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$build/findings/$t/" \
    "$build/corpus/$t"
done
