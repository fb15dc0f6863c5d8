// What the cuda backend takes (issue 21): graph analysis only (no CUDA here), so the rules are
// unit-tested on machines without a GPU (tests/cuda/claims_test.cpp). A node is taken when a
// kernel of this folder computes exactly what spec/ops/<op>.md says for its kind and dtypes,
// with no runtime error to report (those ops stay on ref, which reports them); everything else
// is declined with the reason, which PLUMB_VERBOSE=dispatch prints. Partial coverage is correct:
// a declined node runs on ref, with copies at the span borders.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"

namespace plumb::rt::cuda {

// Why node `n` of `g` does not run on cuda ("" when it does). Constant nodes are no work.
std::string why_not(const ir::Graph& g, const ir::Node& n);

// Maximal runs of taken nodes (constants between them included) as claimed spans; every other
// node (but constants) declined with its reason.
std::vector<Claim> claim_spans(const ir::Graph& g);

// True when matmul or conv `n` (taken) goes to cuBLAS: f32 operands and result.
bool uses_cublas(const ir::Graph& g, const ir::Node& n);

}  // namespace plumb::rt::cuda
