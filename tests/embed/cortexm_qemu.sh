#!/usr/bin/env bash
# The C API on a bare-metal Cortex-M3 (issue 18): examples/embed_cortexm cross-built with Debian's
# gcc-arm-none-eabi + newlib (tools/toolchains/arm-none-eabi.cmake, MinSizeRel, only the kernels
# of the model: `plumb convert --op-list`), the keyword-spotting CNN of
# examples/embed_cortexm/model (.plumb and input embedded in the flash) run under
# `qemu-system-arm -M mps2-an385` with semihosting. Its printed outputs must be byte-identical to
# the x86-64 build of plumb_embed_example on the same .plumb and input, and equal to `plumb run`'s.
# The model's Softmax takes exp (in f64) from the C library: newlib's on the Cortex-M, glibc's on
# x86-64. They differ by 1 ulp of f64 on about 10% of arguments (1928 of 20000 in [-30, 0]), far
# below f32's precision: the f32 outputs agree to the bit, and any difference fails this test.
# Also checked: plumb_model_load_file is refused on bare metal (PLUMB_UNSUPPORTED, its message).
# Prints the figures: .text/.data/.bss of the linked example, the arena, the heap, and the
# instructions of one inference (qemu -icount shift=0: 1 ns of virtual time per instruction,
# read from the board's 25 MHz timer, so to 40 instructions).
# Skips (exit 77) when the cross compiler or qemu-system-arm is missing.
# Usage: cortexm_qemu.sh PATH/TO/plumb PATH/TO/plumb_embed_example SOURCE_DIR BUILD_DIR
set -u
plumb="$1"
example="$2"
src="$3"
build="$4/cortexm"
for tool in arm-none-eabi-gcc arm-none-eabi-g++ arm-none-eabi-size qemu-system-arm; do
  command -v $tool > /dev/null || { echo "SKIP: $tool is not installed (gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib, qemu-system-arm)"; exit 77; }
done
fail() { echo "FAIL: $*" >&2; exit 1; }
io() { /usr/bin/python3 "$src/tests/embed/example_io.py" "$@"; }
mkdir -p "$build"
w="$build/data"
rm -rf "$w"
mkdir -p "$w"

model_dir="$src/examples/embed_cortexm/model"
"$plumb" convert "$model_dir/model.onnx" -o "$w/model.plumb" --op-list "$w/ops.txt" > /dev/null || fail "convert exit $?"
[ "$(io inputs "$model_dir" "$w")" = 1 ] || fail "reading the model's input"
/usr/bin/python3 -c "import numpy as np, sys; np.load(sys.argv[1]).tofile(sys.argv[2])" "$w/input_0.npy" "$w/input_0.bin" ||
  fail "writing the input's bytes"

# The flags go into the MinSizeRel set: CMAKE_CXX_FLAGS on the command line would replace the
# toolchain's core flags (-mcpu=cortex-m3 -mthumb).
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src" -B "$build/build" --toolchain "$src/tools/toolchains/arm-none-eabi.cmake" -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DPLUMB_TINY=ON -DPLUMB_BUILD_TESTS=OFF -DPLUMB_BUILD_BENCH=OFF -DPLUMB_WERROR=ON -DPLUMB_REF_OPS="$w/ops.txt" \
  -DPLUMB_CORTEXM_MODEL="$w/model.plumb" -DPLUMB_CORTEXM_INPUT="$w/input_0.bin" \
  -DCMAKE_CXX_FLAGS_MINSIZEREL="-Os -DNDEBUG -fno-exceptions -fno-rtti -ffunction-sections -fdata-sections" \
  -DCMAKE_C_FLAGS_MINSIZEREL="-Os -DNDEBUG -ffunction-sections -fdata-sections" "${launcher[@]}" > "$build/cmake.log" 2>&1 ||
  fail "configuring the Cortex-M build: $(tail -5 "$build/cmake.log")"
cmake --build "$build/build" --target plumb_cortexm_example -j "${JOBS:-2}" > "$build/build.log" 2>&1 ||
  fail "building the Cortex-M example: $(grep -m5 -i error "$build/build.log")"
elf="$build/build/bin/plumb_cortexm_example.elf"
# ELF e_machine (bytes 18-19, little-endian) is 40 (0x28) for 32-bit Arm
[ "$(od -An -tx1 -j18 -N2 "$elf" | tr -d ' ')" = 2800 ] || fail "$elf is not a 32-bit Arm program"

timeout 300 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none -semihosting -icount shift=0 \
  -kernel "$elf" > "$w/cortexm.log" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the Cortex-M example exited $rc under qemu: $(tail -3 "$w/cortexm.log")"
grep -q "^# load_file: status 3: model.plumb: this build reads no files (PLUMB_POSIX_FILES=OFF" "$w/cortexm.log" ||
  fail "load_file on bare metal: $(grep -m1 load_file "$w/cortexm.log")"
grep '^output ' "$w/cortexm.log" > "$w/cortexm.txt"
[ -s "$w/cortexm.txt" ] || fail "the Cortex-M example printed no output: $(cat "$w/cortexm.log")"

# x86-64: the hosted example and `plumb run` on the same .plumb and input.
"$example" "$w/model.plumb" "$w/input_0.npy" > "$w/x86_64.txt" || fail "x86-64 example exit $?"
cmp -s "$w/x86_64.txt" "$w/cortexm.txt" ||
  fail "Cortex-M outputs differ from x86-64's: $(diff "$w/x86_64.txt" "$w/cortexm.txt" | head -c 600)"
"$plumb" run "$w/model.plumb" --input "#0=$w/input_0.npy" --out "$w/run" > /dev/null || fail "plumb run exit $?"
io compare "$w/cortexm.txt" "$w/run" || fail "Cortex-M outputs differ from plumb run's"

read -r text data bss _ < <(arm-none-eabi-size "$elf" | tail -1)
arena=$(sed -n 's/^# arena: \([0-9]*\) bytes needed.*/\1/p' "$w/cortexm.log")
heap_loaded=$(sed -n 's/^# heap: \([0-9]*\) bytes in use after loading.*/\1/p' "$w/cortexm.log")
heap=$(sed -n 's/^# heap: .* \([0-9]*\) after planning.*/\1/p' "$w/cortexm.log")
ticks=$(sed -n 's/^# run: .* \([0-9]*\) timer ticks/\1/p' "$w/cortexm.log")
mallocs=$(sed -n 's/^# run: \([0-9]*\) C library allocations.*/\1/p' "$w/cortexm.log")
model_bytes=$(stat -c %s "$w/model.plumb")
echo "cortexm_qemu: ok (outputs byte-identical to x86-64 and equal to plumb run)"
echo "  Cortex-M3, MinSizeRel, -fno-exceptions -fno-rtti, the model's kernels only: .text $text (incl. the $model_bytes-byte model), .data $data, .bss $bss (incl. the static arena)"
echo "  arena $arena bytes; heap $heap_loaded bytes after loading, $heap after planning; run: $mallocs C library allocations, about $((ticks * 40)) instructions ($ticks ticks at 25 MHz, -icount shift=0)"
