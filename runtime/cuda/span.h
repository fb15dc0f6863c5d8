// A compiled span of the cuda backend: its steps (step.h) run in order on the session's stream,
// with kernels of this folder and cuBLAS; a failing step's error names its node.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"
#include "runtime/cuda/step.h"

namespace plumb::rt::cuda {

// `scratch`: the span's scratch bytes; `guard_offset`: where in it the f32 guard's partial sums and
// flag live (matmul and conv through cuBLAS).
std::unique_ptr<CompiledSpan> make_span(const ir::Graph& g, std::vector<Step> steps, int64_t scratch,
                                        int64_t guard_offset);

}  // namespace plumb::rt::cuda
