# Cross build for Cortex-M (bare metal) with Debian's gcc-arm-none-eabi + libnewlib-arm-none-eabi +
# libstdc++-arm-none-eabi-newlib (issue 18): the tiny libraries only, for an MPS2 board model of
# qemu-system-arm. Default core: Cortex-M3 (mps2-an385); override PLUMB_ARM_CPU_FLAGS for M4/M7.
#   cmake -S . -B build-cm --toolchain tools/toolchains/arm-none-eabi.cmake -DPLUMB_TINY=ON ...
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
# No OS to link a test program against while CMake probes the compiler.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(PLUMB_ARM_CPU_FLAGS "-mcpu=cortex-m3 -mthumb" CACHE STRING "the target core's flags")
set(CMAKE_C_FLAGS_INIT "${PLUMB_ARM_CPU_FLAGS}")
# -Wno-psabi: GCC notes on every std::vector iterator passed by value that its ABI changed in GCC
# 7.1 (a note about mixing objects from GCC < 7, which this build does not).
set(CMAKE_CXX_FLAGS_INIT "${PLUMB_ARM_CPU_FLAGS} -Wno-psabi")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${PLUMB_ARM_CPU_FLAGS} --specs=rdimon.specs")
# Debian's newlib is built without C99 printf formats: no %zu (ir/status.cpp's strfmt rewrites it).
set(PLUMB_PRINTF_NO_Z ON CACHE BOOL "the C library's printf has no 'z' length modifier")
# flatbuffers comes from the host (see aarch64-linux-gnu.cmake).
execute_process(COMMAND gcc -print-multiarch OUTPUT_VARIABLE PLUMB_HOST_MULTIARCH OUTPUT_STRIP_TRAILING_WHITESPACE)
set(FlatBuffers_DIR /usr/lib/${PLUMB_HOST_MULTIARCH}/cmake/flatbuffers CACHE PATH "the host's flatbuffers")
# CMAKE_SYSTEM_NAME Generic turns PLUMB_POSIX_FILES off (CMakeLists.txt): models load from memory
# only. examples/embed_cortexm builds the example for it (tests/embed/cortexm_qemu.sh).
