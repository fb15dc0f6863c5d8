// The lowering driver: an OnnxModel in, a typed core graph out (DESIGN §1, §5). It binds graph
// inputs and initializers, walks the nodes in order, picks each node's rule from the registry by
// the model's opset import, tags every emitted core node with the ONNX node's provenance, expands
// model-local functions at their call sites, and maps graph outputs.
#pragma once

#include "frontends/onnx/model.h"
#include "ir/graph.h"
#include "ir/status.h"
#include "lowering/onnx/context.h"

namespace plumb::lower {

struct LowerOptions {
  bool verify = true;  // run ir::verify on the result
  // Values of graph inputs known to the caller (by ONNX input name). The lowering specializes on
  // their shapes first (each such input gets its value's static shape, so every shape computed
  // from shapes folds to a constant), and a rule that needs one of them as a build-time constant
  // (axes, pads, a shape given as a graph input) specializes on its value
  // (LowerCtx::offer_input_value).
  std::map<std::string, onnx::Tensor> input_values;
  // At most this many core nodes (negative: no limit; ir::Builder::set_node_limit).
  int64_t max_nodes = -1;
};

struct Lowered {
  ir::Graph graph;
  // Graph inputs whose offered values the graph was specialized on (sorted). The graph keeps them
  // as inputs; running it with other values for them gives the answer for the offered ones.
  std::vector<std::string> specialized_inputs;
};

// Errors name the node: place "node '<name>' (<OpType>-<opset>)". `eval` evaluates what the
// lowering folds (ir/fold.h): the caller's, rt::RefEvaluator (runtime/ref_evaluator.h) wherever
// plumb lowers, so the lowering itself links no runtime.
Expected<Lowered> lower_model_specialized(const onnx::OnnxModel& model, const ir::Evaluator& eval,
                                          const LowerOptions& options);
Expected<ir::Graph> lower_model(const onnx::OnnxModel& model, const ir::Evaluator& eval,
                                const LowerOptions& options = {});

// Lowers the nodes of `nodes` in order into the builder's current region (used for the main
// graph, function bodies and subgraphs). `opsets` gives the domain versions in force.
Status lower_nodes(LowerCtx& cx, const std::vector<onnx::OnnxNode>& nodes,
                   const std::map<std::string, int64_t>& opsets);

// "node 'name' (Op-13)"
std::string node_place(const onnx::OnnxNode& n, int64_t opset);

}  // namespace plumb::lower
