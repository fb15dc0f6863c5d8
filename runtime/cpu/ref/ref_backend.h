// The `ref` backend: the reference interpreter (the oracle). Every node runs through the ref
// kernel table (runtime/cpu/ref/kernels.cpp) on the executor; deterministic, no threads.
#pragma once

#include <memory>

#include "runtime/backend.h"

namespace plumb::rt::ref {

// Its row in the backend table (runtime/backend_table.cpp).
std::unique_ptr<Backend> make_backend();

}  // namespace plumb::rt::ref
