// A kernel's error, as every backend reports it: placed at its node, and, when the node is a guard
// a lowering added where ONNX leaves the result undefined (ir/guard.h), worded as "the result is
// undefined: ..." with the ruling's label. Backends that run nodes themselves (inside a span)
// report through this, so every backend gives the same message for the same model.
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::rt {

// `s` unchanged when it is ok or already placed; `preorder` is the node's index for ir::node_place.
Status node_error(Status s, const ir::Node& n, int64_t preorder);

// ir::node_place of the top-level node `node` of `g` (its pre-order index counts the nodes of
// the regions before it).
std::string top_level_place(const ir::Graph& g, size_t node);

}  // namespace plumb::rt
