# Cross build for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu (tools/setup.sh installs it);
# the programs are linked statically, so that qemu-aarch64 (qemu-user) runs them without a sysroot.
#   cmake -S . -B build-aarch64 --toolchain tools/toolchains/aarch64-linux-gnu.cmake -DPLUMB_TINY=ON ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# flatbuffers comes from the host (its flatc program and its headers, CMakeLists.txt): its package
# configuration is in the host's multiarch folder, which a cross build does not search.
execute_process(COMMAND gcc -print-multiarch OUTPUT_VARIABLE PLUMB_HOST_MULTIARCH OUTPUT_STRIP_TRAILING_WHITESPACE)
set(FlatBuffers_DIR /usr/lib/${PLUMB_HOST_MULTIARCH}/cmake/flatbuffers CACHE PATH "the host's flatbuffers")
