// The contract between the executor and the `ref` kernels (spec/ops/<op>.md, one per op).
#pragma once

#include <vector>

#include "ir/attrs.h"
#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::rt {

// native: each op computed and rounded in its own dtype, as the spec defines.
// precise: floating ops evaluated in f64 (the spec's reference for error bounds): the executor
//   runs the graph with every floating value widened to f64, so kernels see f64 tensors.
enum class NumericMode { kNative, kPrecise };

}  // namespace plumb::rt

namespace plumb::rt::ref {

struct KernelCtx {
  const ir::Node& node;                // verified: arity, attributes and types are as the spec says
  std::vector<const RtValue*> inputs;  // in node order
  // In node order. When the result type is fully static after run-time inference, the executor
  // has already allocated the tensor with its final shape (from the plan's arena); the kernel
  // writes its elements. Otherwise (data-dependent shapes: nonzero, string split, sequences...)
  // the slot holds an empty Tensor{} and the kernel assigns a new value.
  std::vector<RtValue*> outputs;
  NumericMode mode = NumericMode::kNative;
  // The graph the node belongs to (the `constant` kernel reads its constants table); may be null
  // for a node run on its own, e.g. in a unit test.
  const ir::Graph* graph = nullptr;
};

// One explicit specialization per core op, in runtime/cpu/ref/<family>.cpp; a missing one is a
// link error. Control-flow ops (if, while) are run by the executor itself: their kernels return
// an Internal error. Kernels check only data-dependent conditions: the spec's R-labels, returned
// as runtime_error("<op>.Rn", ...) (the executor adds the node's place).
template <ir::Op op>
Status kernel(KernelCtx& cx);
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  template <>                                                                          \
  Status kernel<ir::Op::Enum>(KernelCtx & cx);
#include "spec/ops.def"

// Dispatches on cx.node.op.
Status run_kernel(KernelCtx& cx);

}  // namespace plumb::rt::ref
