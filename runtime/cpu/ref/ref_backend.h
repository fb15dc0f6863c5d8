// The `ref` backend: the reference interpreter (the oracle). It claims nothing: the executor runs
// every node on the ref kernel table (runtime/cpu/ref/kernels.cpp), which is also every other
// backend's fallback; deterministic (kernels may use SessionOptions::threads threads for
// independent results, runtime/cpu/ref/parallel.h: the bits do not depend on the count).
#pragma once

#include <memory>

#include "runtime/backend.h"

namespace plumb::rt::ref {

// Its row in the backend table (runtime/backend_table.cpp).
std::unique_ptr<Backend> make_backend();

}  // namespace plumb::rt::ref
