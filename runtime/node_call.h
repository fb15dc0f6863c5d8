// The per-node call record: what the executor hands a backend's kernel for one node. The same
// contract for every backend (ref's kernels call it KernelCtx).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "runtime/numeric_mode.h"
#include "runtime/value.h"

namespace plumb::rt {

struct NodeCall {
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
  // Threads the kernel may use for independent results (SessionOptions::threads, at least 1);
  // each result is still computed by one thread in the spec's order, so results do not depend
  // on it.
  int threads = 1;
  // The node's scratch (issue 18): `scratch_bytes` bytes of the arena, 64-byte aligned, that the
  // schedule reserved for the kernel's temporaries (runtime/cpu/ref/scratch.h); null where none was
  // planned (a node in a region, one with run-time shapes, a unit test): the kernel takes its
  // temporaries from the heap then.
  uint8_t* scratch = nullptr;
  int64_t scratch_bytes = 0;
};

}  // namespace plumb::rt
