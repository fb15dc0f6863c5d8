// Which nodes and values of core graph B are which of core graph A (issue 24: `plumb diff`).
//
// Both models are lowered onto the core, so two exports of one model (other opsets, other
// exporters, an optimizer's output) meet there. The match is by structure first, provenance second:
//   - graph inputs pair by position;
//   - B's top-level nodes are taken in order; a B node pairs with an unpaired A node of the same
//     op and arity whose every input is the A partner of B's input (structural), or the A value of
//     the same ONNX tensor name (provenance: how the walk finds its way back after an inserted,
//     removed or swapped node), constant inputs standing against constant inputs whatever their
//     contents; commutative operands (add, mul, max, min, and, or, xor) may come in either order.
//     Among several candidates: equal attributes first, then the same ONNX node name, then the same
//     ONNX op type, then A's order. Where no A node fits, a node of the same ONNX node (by name)
//     whose inputs that do not pair are results of A nodes that pair with nothing (spans that
//     differ): the walk finds its way back after a LayerNormalization expanded into ReduceMean,
//     Sub, Pow... whose result tensor has another name, or past a node removed from A;
//   - constant inputs (constants and the nodes that compute only from constants: a broadcast
//     bias) pair through the consumers that read them, node for node while their ops agree; a
//     constant one model shares and the other holds twice pairs with both copies (for constants
//     b_of_a and a_of_b need not be inverses); where their nodes do not pair all the way down (an
//     initializer against its DequantizeLinear or Transpose, or against a folded copy), the two
//     values are evaluated (ConstantFolder) and compared by value: GraphMatch::folded;
//   - dead nodes (that no graph result depends on) are neither paired nor reported;
//   - the regions of if/while nodes are compared node for node (same_regions), not matched.
// What stays unpaired was added (B) or removed (A). check/diff.h turns the pairs into findings.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace plumb::check {

// The value of a value of `g` computed from constants only (a weight through a DequantizeLinear or
// a Transpose), nullopt when it cannot be evaluated. check/onnx gives one (ir::Folder on rt::RefEvaluator).
using ConstantFolder = std::function<std::optional<ir::ConstantData>(const ir::Graph& g, ir::ValueId v)>;

// A constant input of two paired nodes whose constant nodes do not pair all the way down.
struct FoldedInput {
  int node_b = -1;                                   // the B node reading it
  ir::ValueId a = ir::kNoValue, b = ir::kNoValue;    // the values read
  std::optional<ir::ConstantData> value_a, value_b;  // evaluated (nullopt: no folder, or it failed)
  bool same = false;                                 // both evaluated, of the same type and bytes
};

struct GraphMatch {
  std::vector<int> b_of_a;  // per A top-level node: its B partner, -1 when none
  std::vector<int> a_of_b;  // per B top-level node: its A partner, -1 when none
  // Per B value: its A partner, kNoValue when none. Also for a value of an unpaired node that the
  // same ONNX node (by name) reads on both sides where nothing else pairs (the result of a span
  // that differs: a LayerNormalization of A and the last node of its expansion in B).
  std::vector<ir::ValueId> value_a_of_b;
  std::vector<bool> live_a, live_b;    // per top-level node: a graph result depends on it
  std::vector<bool> const_a, const_b;  // per top-level node: computes from constants only
  // Per B top-level node: paired, and it computes what its partner computes from the partners of
  // its inputs, or from what it reads in their place when it paired past a span that differs (the
  // same attributes, constant inputs of the same values). A value of a node that is
  // paired but not the same (a changed weight or attribute) is not the partner's value: plumb diff's
  // data comparison takes the A tensor of its ONNX name instead.
  std::vector<bool> same_b;
  std::vector<bool> swapped_b;      // per paired B node: its two operands pair the other way round
  std::vector<FoldedInput> folded;  // each (A value, B value) once, in B's order
};

// Whether top-level nodes `na` of a and `nb` of b have regions that compute the same: node for
// node in order (regions are compared, not matched), outer values through m.value_a_of_b.
bool same_regions(const GraphMatch& m, const ir::Graph& a, const ir::Graph& b, int na, int nb);

// The constant a Constant node holds (nullptr for other nodes).
const ir::ConstantData* constant_of(const ir::Graph& g, const ir::Node& n);
// Same type and bytes.
bool same_constant(const ir::ConstantData& x, const ir::ConstantData& y);

GraphMatch match_graphs(const ir::Graph& a, const ir::Graph& b, const ConstantFolder& fold = nullptr);

// The A input that B node `nb`'s input `i` pairs with (nb paired).
ir::ValueId partner_input(const GraphMatch& m, const ir::Graph& a, const ir::Graph& b, int nb, size_t i);

// Whether a binary node's two operands may be exchanged without changing its result.
bool commutative(const ir::Node& n);

}  // namespace plumb::check
