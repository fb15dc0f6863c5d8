// The structural findings of `plumb diff` (check/diff.h): which spans of core nodes of A and of B
// correspond where the two graphs differ, and what that is in ONNX terms (nodes added, removed,
// fused, split, swapped).
//
// A span is a connected set of top-level core nodes (constants aside: they are compared by value)
// grown from the nodes that differ: unpaired, or paired with a node that computes otherwise (other
// attributes or weights). It takes in, until nothing changes:
//   - the partner of each of its nodes;
//   - every core node of each ONNX node it touches (a LayerNormalization's 30 core nodes, some of
//     which pair with the ReduceMean, Sub, Pow... of its expansion);
//   - the nodes of spans next to its unpaired nodes (a BatchNormalization next to the Conv whose
//     weights changed; two weights changed side by side stay two findings);
// and two spans join where they feed the same input of two paired nodes (or the same graph output):
// the Relu of A and the Sigmoid of B that replaced it. Structure first: which spans correspond
// needs no data (`plumb diff --data` then compares their values).
//
// A span with an unpaired node, or whose ONNX nodes differ in op types between the sides (a Gelu's
// core nodes paired with those of a Div, Erf, Add... that compute otherwise), is one finding, by
// the ONNX nodes it holds on each side: the same names with the same ops (kept) and the others.
//   fused  more ONNX nodes in A than in B; or A's extra nodes gone and a kept node's weights
//          changed (a BatchNormalization folded into a Conv rewrites the Conv's weights)
//   split  the other way round
//   else   per ONNX node: only in A (removed), only in B (added), op X -> Y, reads other inputs (a
//          node rewired around a removed one), lowers differently
// The weight and attribute findings of a fused or split span's nodes become part of it.
// ONNX nodes fused or split onto the same core nodes (every core node paired and computing the
// same: Gemm against MatMul + Add) are a same-computation finding, not a change.
#pragma once

#include <vector>

#include "check/diff.h"

namespace plumb::check {

// The structure findings of the pairing `m`; absorbs from `content` (weight and attribute findings,
// with b_node set) those that belong to a fused or split span.
std::vector<DiffFinding> structure_findings(const ir::Graph& a, const ir::Graph& b, const GraphMatch& m,
                                            const AttrDescriber& describe, std::vector<DiffFinding>& content);

}  // namespace plumb::check
