// Build-time evaluation of core values that depend only on constants and statically known shapes
// (ONNX models compute Reshape targets, axes and pads with Shape -> Gather -> Concat chains; an
// expanded function does it for every node). A rule that needs such a value as an attribute-like
// constant gets it from LowerCtx::const_input, which asks this folder. The evaluation runs the
// `ref` runtime on a copy of the few nodes involved, so a folded value is exactly what the graph
// would compute.
#pragma once

#include <functional>
#include <optional>
#include <unordered_map>

#include "frontends/onnx/tensor_proto.h"
#include "ir/graph.h"

namespace plumb::lower {

// The constant that node `n` computes from `operands` (constants, in order), run on `ref`; nullopt
// when it does not run (a run-time error is left to the graph, which reports it with the node).
// The builder's fold hook (ir::Builder::set_fold_hook).
std::optional<ir::ConstantData> fold_node(const ir::Node& n,
                                          const std::vector<const ir::ConstantData*>& operands,
                                          const ir::Type& result);

// How much one fold may evaluate. The defaults are the lowering's: the small integer and shape-like
// tensors that rules need as constants (anything bigger stays in the graph and is computed at run
// time). plumb diff folds whole weights (a DequantizeLinear of an initializer) with larger ones.
struct FoldLimits {
  int64_t max_elements = int64_t{1} << 16;  // of every value involved
  size_t max_nodes = 256;
  int64_t max_bytes = int64_t{64} << 20;  // the evaluating session's memory
};

class Folder {
 public:
  explicit Folder(FoldLimits limits = {}) : limits_(limits) {}
  // The value of `v` in `g` (whose top-level body is being built), or nullopt when it depends on
  // graph inputs, on nodes with regions or side effects (rng, image_decode), on values inside an
  // open region, or is larger than the folding limits.
  // `input_value`, when given, supplies values for graph inputs (the caller's offered values);
  // it returns nullptr for an input it does not know.
  using InputValue = std::function<const onnx::Tensor*(ir::ValueId param)>;
  std::optional<onnx::Tensor> fold(const ir::Graph& g, ir::ValueId v,
                                   const InputValue& input_value = nullptr);
  // True when a top-level constant node defines `v` (nothing to fold).
  bool is_constant(const ir::Graph& g, ir::ValueId v);

 private:
  void index(const ir::Graph& g);
  FoldLimits limits_;
  size_t indexed_ = 0;                                // g.body.nodes already in producer_
  std::unordered_map<ir::ValueId, size_t> producer_;  // value -> index in g.body.nodes
};

}  // namespace plumb::lower
