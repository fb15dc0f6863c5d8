// The "baseline" backend (tests only, never shipped): a host backend that claims every top-level
// node that has a baseline kernel (tests/ref_baseline/baseline_kernels.h: matmul, conv) and runs
// it on that kernel, ref's as it was before issue 17. Everything else runs on ref. A model run on
// --backend baseline therefore gives the old kernels' bits, and tests/ref_baseline/ref_bits.sh
// compares them byte for byte with ref's at 1, 2 and 3 threads.
#pragma once

#include <memory>

#include "runtime/backend.h"

namespace plumb::rt::ref_baseline {

// Its BackendEntry factory ("baseline").
std::unique_ptr<Backend> make_backend();

}  // namespace plumb::rt::ref_baseline
