// `plumb diff A B` (issue 24): what changed between two models, found on their core graphs
// (check/diff_match.h pairs the nodes and values) and reported ONNX node by ONNX node.
//
// A finding is one line, `changed node '<ONNX node name>' (<OpType>): <what>`, of one of these
// kinds, the most significant first (then by size, then by graph order):
//   structure  core nodes only in A (removed) or only in B (added), an ONNX node whose core nodes
//              were replaced by others ("op Relu -> Sigmoid", "reads other inputs", "lowers
//              differently"), graph inputs or outputs that differ in number or type
//   fused      several ONNX nodes of A computed by fewer of B (a BatchNormalization folded into a
//              Conv, a Gelu's Erf arithmetic contracted into a Gelu), and
//   split      the other way round: the spans of core nodes that correspond (check/diff_structure.h),
//              naming the ONNX nodes on each side; the weights and attributes that changed with
//              them are part of the finding
//   attribute  paired core nodes whose attributes differ, in ONNX terms where the describer can
//              (`pads [1,1,1,1] -> [0,0,2,2]`), else in core terms; non-float constants that differ
//              (a Reshape's target shape, axes)
//   weight     float constants that differ by a real change (check/diff_weights.h)
//   precision  float constants equal after rounding to f16 or bf16, or to a small integer type
//              with a scale (int8 quantization)
// Constant inputs are compared by value (through ConstantFolder where their nodes differ: an
// initializer against its DequantizeLinear), never reported as nodes added or removed.
// Not a change, and listed last as `same computation: ...`: ONNX nodes of A fused or split in B
// whose core nodes are the same (MatMul + Add against Gemm).
// No finding but those: the two core graphs compute the same thing (same ops, attributes,
// constant values, wiring).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "check/diff_match.h"
#include "check/diff_weights.h"
#include "ir/graph.h"

namespace plumb::check {

enum class FindingKind { structure, fused, split, attribute, weight, precision };  // most significant first
const char* finding_kind_name(FindingKind k);                                      // "structure", ...

struct DiffFinding {
  FindingKind kind = FindingKind::structure;
  std::string node;     // ONNX node name (B's; A's for a removal); "" for a graph-level finding
  std::string op_type;  // "Conv", or "Relu -> Sigmoid"
  std::string what;
  double size = 0;                // orders findings of one kind (a weight's max rel diff; nodes involved)
  size_t order = 0;               // position of the first core node involved (B's, or A's for a removal)
  bool same_computation = false;  // a fusion or split of ONNX nodes onto the same core nodes
  int b_node = -1;                // weight and attribute findings: the B top-level node they are about
  std::string brief;              // weight findings: what a fusion that absorbs them says of them
  std::vector<size_t> nodes_a, nodes_b;  // the top-level core nodes it is about (a span's), ascending
  // "changed node 'conv1' (Conv): pads [1,1,1,1] -> [0,0,2,2]", "same computation: ..."
  std::string line() const;
};

// The ONNX attribute differences between node `a` of model A and node `b` of model B, "" when
// none or unknown (then the core attributes are shown). plumb_check_onnx gives one for .onnx files.
using AttrDescriber = std::function<std::string(const ir::Provenance& a, const ir::Provenance& b)>;

struct GraphDiff {
  GraphMatch match;
  std::vector<DiffFinding> findings;  // sorted, most significant first
  bool equivalent() const;            // no finding but same-computation ones
};

GraphDiff diff_graphs(const ir::Graph& a, const ir::Graph& b, const AttrDescriber& describe = nullptr,
                      const ConstantFolder& fold = nullptr);

// The core attributes of two nodes of one op that differ: "pads_low [1,1] -> [0,0], groups 1 -> 2".
std::string core_attr_changes(const ir::Node& a, const ir::Node& b);

}  // namespace plumb::check
