// The contract between the executor and the `ref` kernels (spec/ops/<op>.md, one per op).
#pragma once

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/node_call.h"

namespace plumb::rt::ref {

// The ref kernels' name for the backend-neutral call record (runtime/node_call.h).
using KernelCtx = NodeCall;

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
