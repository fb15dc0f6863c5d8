#!/usr/bin/env bash
# The tiny runtime's size table (issue 18): x86-64, MinSizeRel, -fno-exceptions -fno-rtti, no
# unwind tables (-fno-asynchronous-unwind-tables -fno-unwind-tables: without exceptions nothing
# unwinds through plumb, and .eh_frame was an eighth of the .text figure), static libraries
# (function sections) built without -fPIC (PLUMB_PIC=OFF: a static embedded build links them into
# executables only), each variant linked into plumb_embed_example as a position-dependent
# executable (-no-pie) with --gc-sections, by lld with identical code folding (--icf=all: the
# template instantiations that compile to the same bytes are kept once) where lld is installed,
# and stripped (libc and libstdc++ stay shared, so the figures are plumb's own code); the line
# above the table names the link flags used:
#   none  loader + verifier + planner + executor + C API (PLUMB_REF_OPS: no kernel)
#   cnn   plus the kernels of tests/models/cnn only (`plumb convert --op-list`)
#   all   plus every ref kernel
# Each variant's example runs tests/models/cnn: `all` and `cnn` print the same outputs, `none` says
# which kernel it lacks. Prints a markdown table.
# Usage: size_table.sh PATH/TO/plumb (a build with `convert`) BUILD_ROOT
set -euo pipefail
plumb="$1"
root="$2/size"
src="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$root"
"$plumb" convert "$src/tests/models/cnn/model.onnx" -o "$root/cnn.plumb" --op-list "$root/cnn_ops.txt" > /dev/null
echo "# no kernels" > "$root/no_ops.txt"
/usr/bin/python3 "$src/tests/embed/example_io.py" inputs "$src/tests/models/cnn" "$root/cnn_in" > /dev/null
nounwind="-fno-asynchronous-unwind-tables -fno-unwind-tables"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
pic="-DPLUMB_PIC=OFF"
link="-no-pie -Wl,--gc-sections -s"
if command -v ld.lld > /dev/null; then
  link="-fuse-ld=lld -Wl,--icf=all $link"
fi
echo "Compiled -Os -fno-exceptions -fno-rtti $nounwind -ffunction-sections -fdata-sections (no -fPIC), linked $link:"
echo
echo "| variant | example .text | .data | .bss | libraries' .text (sum, before --gc-sections) | cnn arena |"
echo "|---|---|---|---|---|---|"
# One build folder: a new PLUMB_REF_OPS changes only the generated kernel list, so each variant
# after the first recompiles kernels.cpp alone and relinks.
b="$root/build"
for variant in none cnn all; do
  case $variant in
    none) ops="$root/no_ops.txt" ;;
    cnn) ops="$root/cnn_ops.txt" ;;
    all) ops="" ;;
  esac
  cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=MinSizeRel -DPLUMB_TINY=ON -DPLUMB_BUILD_TESTS=OFF \
    -DPLUMB_BUILD_BENCH=OFF -DPLUMB_REF_OPS="$ops" "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS="-fno-exceptions -fno-rtti $nounwind -ffunction-sections -fdata-sections" \
    -DCMAKE_C_FLAGS="$nounwind -ffunction-sections -fdata-sections" -DCMAKE_EXE_LINKER_FLAGS="$link" "$pic" \
    > "$root/$variant.cmake.log" 2>&1 || { tail -5 "$root/$variant.cmake.log"; exit 1; }
  cmake --build "$b" --target plumb_embed_example -j "${JOBS:-2}" > "$root/$variant.build.log" 2>&1 ||
    { grep -m5 -i error "$root/$variant.build.log"; exit 1; }
  exe="$root/plumb_embed_example_$variant"
  cp "$b/bin/plumb_embed_example" "$exe"
  read -r text data bss _ < <(size "$exe" | tail -1)
  libs=$(size -t "$b/api/libplumb_c.a" "$b/runtime/libplumb_runtime.a" "$b/ir/libplumb_ir.a" | awk '/TOTALS/ {s += $1} END {print s}')
  arena="-"
  if "$exe" -v "$root/cnn.plumb" "$root/cnn_in/input_0.npy" > "$root/$variant.out" 2> "$root/$variant.err"; then
    arena=$(sed -n 's/.*arena \([0-9]*\) bytes/\1/p' "$root/$variant.err")
  elif [ $variant != none ]; then
    echo "$variant: the example fails on cnn: $(cat "$root/$variant.err")" >&2
    exit 1
  fi
  awk -v v=$variant -v t="$text" -v d="$data" -v b="$bss" -v l="$libs" -v a="$arena" \
    'BEGIN { printf "| %s | %d (%.1f KiB) | %d | %d | %d (%.1f KiB) | %s |\n", v, t, t / 1024, d, b, l, l / 1024, a }'
done
cmp -s "$root/cnn.out" "$root/all.out" || { echo "the cnn-only build's outputs differ from the full build's" >&2; exit 1; }
grep -q "has no conv kernel\|has no [a-z_]* kernel" "$root/none.err" || { echo "none: $(cat "$root/none.err")" >&2; exit 1; }
