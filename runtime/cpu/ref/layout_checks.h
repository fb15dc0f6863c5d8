// The data-dependent checks of ref's layout kernels that the baseline of their copies
// (tests/ref_baseline/layout_baseline.cpp) runs too: the copies differ, the checks are one.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

// broadcast: the operand's step along each result dim of `shape` (0 where an operand dim of size 1
// repeats, and in the dims that are not among `dims`); broadcast.R1 where shape is not a shape,
// broadcast.R2 where an operand dim neither is 1 nor matches its result dim.
Expected<Dims> broadcast_steps(const Tensor& operand, const Dims& shape, const std::vector<int64_t>& dims);

// concat: the result shape of cx's operands joined along axis; concat.R1 where an operand's other
// dims differ from operand 0's.
Expected<Dims> concat_shape(const KernelCtx& cx, int64_t axis);

}  // namespace plumb::rt::ref
