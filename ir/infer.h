// ONE type/shape inference per core op, shared by the builder (which infers result types as it
// emits), the verifier (which compares them with the declared ones) and the runtime planner
// (which resolves symbolic dims from actual inputs). It also checks the op's labelled
// constraints (spec/ops/<op>.md, `<op>.Cn`): an inference failure is an InvalidModel Status
// carrying the label.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attrs.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::ir {

// What inference knows about one operand.
struct Operand {
  const Type* type = nullptr;
  // The operand's integer contents, when known: at build/verify time when the operand is produced
  // by a `constant` node of an integer dtype (any size up to kMaxKnownValues elements), at run time
  // for every integer operand that an op reads as a shape, start, size, stride, pad or position.
  // nullptr when unknown. Values are widened to int64 (u64 values above INT64_MAX never occur in
  // shape-like operands; ops reading them reject that as a C- or R-label).
  const std::vector<int64_t>* values = nullptr;
};
constexpr int64_t kMaxKnownValues = 1 << 16;

// Everything inference may look at: the node (op, attributes, regions), its operands and, for
// region-carrying ops, the graph's value table (to read region parameter/result types).
struct InferCtx {
  const Node& node;
  const std::vector<Operand>& operands;
  const Graph& graph;
  // True at run time: every operand type is then static and every shape-like operand has values,
  // so inference must return static result types except for data-dependent ops (nonzero, ...),
  // which return kDynamic dims that the kernel resolves.
  bool at_runtime = false;
};

// Per-op inference, one explicit specialization per op (ir/infer_<family>.cpp). A missing one is
// a link error. Arity, region count and attribute presence/kinds were checked by
// check_node_structure before this is called; the specialization checks everything else.
template <Op op>
Expected<std::vector<Type>> infer(const InferCtx& cx);
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  template <>                                                                          \
  Expected<std::vector<Type>> infer<Op::Enum>(const InferCtx& cx);
#include "spec/ops.def"

// Dispatches on cx.node.op (after check_node_structure).
Expected<std::vector<Type>> infer_types(const InferCtx& cx);

// Arity (ops.def min/max), region count, and that exactly the op's attributes are present with
// the right kinds (and enum codes in range). Common to all ops; label "<op>.arity"/"<op>.attrs".
Status check_node_structure(const Node& n);

// Limits that keep a hostile file from causing huge allocations or pathological work.
constexpr int64_t kMaxRank = 64;
constexpr int64_t kMaxElements = int64_t{1} << 40;  // a tensor type claiming more is refused

}  // namespace plumb::ir
