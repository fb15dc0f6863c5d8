// The verifier: nothing runs unverified (DESIGN §4). Checks, in order: core version, value table
// (every ValueId in range, every value defined exactly once, before use, in scope: SSA), each
// node's structure and its op's labelled constraints through ir/infer.h, that declared result
// types agree with the inferred ones (type_refines), region signatures, graph inputs/outputs,
// constant sizes against their types, and the size limits of ir/infer.h.
// Errors name the node (ir::node_place) and carry the spec label.
#pragma once

#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::ir {

Status verify(const Graph& g);

}  // namespace plumb::ir
