// The `ref` backend: the reference interpreter (the oracle). Every node runs through the ref
// kernel table (runtime/cpu/ref/kernels.cpp) on the executor; deterministic, no threads.
#pragma once

#include <memory>

#include "runtime/backend.h"

namespace plumb::rt::ref {

std::unique_ptr<Backend> make_ref_backend();

}  // namespace plumb::rt::ref
