// Where a divergence lies when not every tensor was compared (issue 12 item 4). A differing tensor
// T2 was computed from the tensors known to agree (compared and fed forward, or compared and
// matching end to end) and the graph inputs, through every node in between; with sparse expected
// values that is more than one node, and naming only T2's producer ("its inputs agree") would
// blame a node whose inputs were never compared.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "check/eval.h"
#include "ir/graph.h"

namespace plumb::check {

struct DivergenceSpan {
  std::vector<size_t> nodes;          // ONNX nodes (indices into the OnnxNodeInfo list), topological order
  std::vector<ir::ValueId> agreeing;  // known-agreeing tensors that feed the span, topological order
  bool from_graph_inputs = false;     // a graph input feeds the span directly
  // One node: every input of T2's producer is known to agree (or is a graph input or a constant),
  // so the node itself differs.
  bool localized() const { return nodes.size() == 1; }
};

// Every value a node reads, its regions' nodes included (values defined inside the regions are
// among them), appended to `out`.
void reads_of(const ir::Node& n, std::vector<ir::ValueId>& out);

// The ONNX nodes that computed top-level value `value` from the values in `known`: the walk back
// from its producer through node inputs (values read inside regions included), stopping at graph
// inputs and at `known`. Nodes without an ONNX origin (initializer constants) and nodes that compute
// a constant (they read no graph input and no known tensor: an Identity of a weight) are walked
// through but not listed.
DivergenceSpan divergence_span(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes, ir::ValueId value,
                               const std::set<ir::ValueId>& known);

}  // namespace plumb::check
