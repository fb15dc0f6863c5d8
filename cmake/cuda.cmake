# The `cuda` backend's toolchain (issue 21): on when PLUMB_WITH_CUDA and CMake's FindCUDAToolkit
# finds the toolkit with its nvcc. Only then is the CUDA language enabled, so machines without the
# toolkit configure as before. Sets PLUMB_CUDA_BACKEND (read by runtime/CMakeLists.txt and
# tests/CMakeLists.txt).
set(PLUMB_CUDA_BACKEND OFF)
# Not in a cross build (tools/toolchains/): the toolkit found would be the build machine's.
if(PLUMB_WITH_CUDA AND NOT PLUMB_TINY AND NOT CMAKE_CROSSCOMPILING)
  if(PLUMB_SANITIZE OR PLUMB_TSAN OR PLUMB_FUZZ)
    # The sanitizers' flags are the host compiler's; CUDA's runtime under ASan needs
    # protect_shadow_gap=0 and reports its own allocations. The CPU-side tests run in the default build.
    message(STATUS "cuda backend: not built in a sanitizer build")
  else()
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE AND TARGET CUDA::cublas)
      if(NOT CMAKE_CUDA_COMPILER)
        set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
      endif()
      # Set explicitly: CMake's detection of the "native" architecture needs a GPU, which the build
      # machines lack. 90: Hopper (the H200 of tools/device_check.sh). Override with
      # -DCMAKE_CUDA_ARCHITECTURES=...
      set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures the cuda backend is compiled for")
      set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
      if(CMAKE_CXX_COMPILER_LAUNCHER AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
        set(CMAKE_CUDA_COMPILER_LAUNCHER ${CMAKE_CXX_COMPILER_LAUNCHER})  # ccache knows nvcc
      endif()
      # cudart is linked by name below (runtime/cuda/CMakeLists.txt), not added by CMake per target.
      set(CMAKE_CUDA_RUNTIME_LIBRARY None)
      enable_language(CUDA)
      set(CMAKE_CUDA_STANDARD 17)
      set(CMAKE_CUDA_STANDARD_REQUIRED ON)
      set(CMAKE_CUDA_EXTENSIONS OFF)
      set(PLUMB_CUDA_BACKEND ON)
      message(STATUS "cuda backend: CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
    else()
      message(STATUS "CUDA toolkit not found: the cuda backend is not built")
    endif()
  endif()
endif()
set(PLUMB_CUDA_BACKEND ${PLUMB_CUDA_BACKEND} CACHE INTERNAL "the cuda backend is built (tests/CMakeLists.txt)")
