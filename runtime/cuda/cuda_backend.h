// The `cuda` backend (issue 21, docs/backends.md "The cuda backend"): the core ops of claims.h on
// an NVIDIA GPU through the kernels of this folder and cuBLAS, with a caching device memory pool
// (memory_pool.h) and one CUDA stream (and cuBLAS handle) per session.
#pragma once

#include <memory>

#include "runtime/backend.h"

namespace plumb::rt::cuda {

// Whether this machine has a CUDA device the runtime can use: ok, or the one line
// "cuda: no CUDA device: <cudaGetErrorString>" (Unsupported).
Status device_status();

std::unique_ptr<Backend> make_backend();

}  // namespace plumb::rt::cuda
