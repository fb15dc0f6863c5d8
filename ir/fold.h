// Folding: a value computed from constants and statically known shapes alone becomes the constant
// it computes, before the graph runs. This is the one place that decides what may be folded; the
// evaluation itself is an ir::Evaluator's (ir/evaluator.h: the runtime's `ref`), so a folded value
// is exactly what the graph would compute. Three users:
//   - the builder (set_evaluator): a small node of constants is emitted as its constant
//     (fold_node), so shape arithmetic is constant as it is built;
//   - the lowering (LowerCtx::const_input): a Reshape target or axes that the model computes from
//     constants, shapes and offered input values (Folder, default limits);
//   - plumb diff (check/onnx/diff_onnx.h): whole weights through a DequantizeLinear or Transpose
//     (Folder, larger limits).
//   - the runtime's planner (runtime/plan.h): the all-known nodes of each plan, evaluated with the
//     same kernels, kept per plan (FoldScope::kPlan).
// All four ask may_fold below which nodes they may fold.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/evaluator.h"
#include "ir/graph.h"

namespace plumb::ir {

// How much one fold may evaluate. The defaults are the lowering's: the small integer and shape-like
// tensors that rules need as constants (anything bigger stays in the graph and is computed at run
// time). plumb diff folds whole weights (a DequantizeLinear of an initializer) with larger ones.
struct FoldLimits {
  int64_t max_elements = int64_t{1} << 16;  // of every value involved
  size_t max_nodes = 256;
  int64_t max_bytes = int64_t{64} << 20;  // the evaluation's memory
};

// Where a folded value is kept, which is what decides what may be folded:
//   kGraph: it becomes a constant of the graph, written to its file (the builder, the lowering,
//     plumb diff). Not folded: sources of data whose values the graph keeps computing (rng,
//     image_decode), containers and strings; results must have a file layout of one element per
//     dtype width (not string, not packed).
//   kPlan: it is kept in one plan's memory, in run-time layout, for that plan's input types only
//     (the planner): any op, rng and image_decode included (their values are a function of their
//     operands and attributes, so the plan holds what the run would compute); results are static
//     tensors of any dtype but string.
enum class FoldScope { kGraph, kPlan };

// The decision: node `n`, whose results have the types `results`, may be folded in `scope` into
// constants of at most `max_elements` elements each. Never a node with regions (if, while: what
// they compute is their regions', not a kernel's). Whether its operands are known is the caller's.
bool may_fold(const Node& n, const std::vector<Type>& results, FoldScope scope, int64_t max_elements);
// A value that may be folded into the graph (FoldScope::kGraph): a static tensor of at most
// `max_elements` elements whose file layout is one element per dtype width (not string, not
// packed).
bool foldable_type(const Type& t, int64_t max_elements);
// `shape_of` of a statically shaped operand is a constant that needs neither the node nor its
// operand: the operand's dims, when it is one (nullopt for an operand of unknown shape).
std::optional<std::vector<int64_t>> static_shape_dims(const Type& operand);
// That constant, of type `result` (nullopt unless `result` is i64, the type shape_of gives).
std::optional<ConstantData> shape_of_constant(const Type& operand, const Type& result);

// The constant that node `n` computes from `operands` (constants, in order) as a result of type
// `result`, evaluated by `eval`; nullopt when it does not run (a run-time error is left to the
// graph, which reports it with the node). The builder's folding (Builder::set_evaluator).
std::optional<ConstantData> fold_node(const Evaluator& eval, const Node& n,
                                      const std::vector<const ConstantData*>& operands, const Type& result);

class Folder {
 public:
  explicit Folder(const Evaluator& eval, FoldLimits limits = {}) : eval_(&eval), limits_(limits) {}
  // The value of `v` in `g` (whose top-level body is being built), or nullopt when it depends on
  // graph inputs, on nodes with regions or side effects (rng, image_decode), on values inside an
  // open region, or is larger than the folding limits.
  // `input_value`, when given, supplies values for graph inputs (the caller's offered values);
  // it returns nullopt for an input it does not know.
  using InputValue = std::function<std::optional<ConstantData>(ValueId param)>;
  std::optional<ConstantData> fold(const Graph& g, ValueId v, const InputValue& input_value = nullptr);
  // True when a top-level constant node defines `v` (nothing to fold).
  bool is_constant(const Graph& g, ValueId v);

 private:
  void index(const Graph& g);
  const Evaluator* eval_;
  FoldLimits limits_;
  size_t indexed_ = 0;                            // g.body.nodes already in producer_
  std::unordered_map<ValueId, size_t> producer_;  // value -> index in g.body.nodes
};

}  // namespace plumb::ir
