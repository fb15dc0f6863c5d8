// Graph attributes lowered inline: shared by the control-flow rules (control.cpp: If, Loop, Scan,
// SequenceMap bodies inside core regions) and FlexAttention's score_mod / prob_mod modifiers
// (flex_attention.cpp, lowered straight into the enclosing graph).
#pragma once

#include <vector>

#include "frontends/onnx/model.h"
#include "ir/status.h"
#include "lowering/onnx/context.h"

namespace plumb::lower {

// The graph attribute `name` of `n`, or nullptr when it is absent or not a graph.
const onnx::OnnxGraph* graph_attr(const onnx::OnnxNode& n, const char* name);

// Lowers subgraph `g` into the builder's innermost open region with its first params.size()
// inputs bound to `params`; returns the values of its outputs. The caller's provenance and opset
// are restored afterwards (the driver sets them per node).
Expected<std::vector<ir::ValueId>> lower_subgraph(LowerCtx& cx, const onnx::OnnxGraph& g,
                                                  const std::vector<ir::ValueId>& params);

}  // namespace plumb::lower
